/** Synthetic lm-evaluation-harness run directories (in memory) for the lm-eval importer's tests. */
import { createHash } from 'node:crypto';
import { mapImportInput } from '../../../src/import/import-input.ts';
import type { ImportRequest, MappedBundle } from '../../../src/import/importer.ts';
import type { ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../../src/import/limits.ts';
import { lmEvalImporter } from '../../../src/import/lmeval/importer.ts';

export const REAL_RUNS = new URL('../../../content/imported/lm-eval/', import.meta.url).pathname;
export const STAMP = '2026-02-01T10-00-00.000001';
/** 2026-02-01T09:00:00.5Z */
export const DATE = 1769936400.5;

type Json = Record<string, unknown>;

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** One samples line; override any member (a metric value is a top-level member). */
export function line(docId: number, overrides: Json = {}): Json {
  const prompt = `Question ${docId}?`;
  return {
    doc_id: docId,
    doc: { q: `Question ${docId}?`, a: 'yes' },
    target: 'yes',
    arguments: { gen_args_0: { arg_0: prompt, arg_1: ' yes' } },
    resps: [[['-1.5', false]]],
    filtered_resps: [['-1.5', false]],
    filter: 'none',
    metrics: ['acc'],
    doc_hash: sha('doc'),
    prompt_hash: sha(prompt),
    target_hash: sha('yes'),
    acc: 1.0,
    ...overrides,
  };
}

/** A results file; override any member. */
export function results(tasks: Record<string, { acc?: number; effective?: number }>, overrides: Json = {}): Json {
  return {
    results: Object.fromEntries(Object.entries(tasks).map(([t, r]) => [t, { alias: t, 'acc,none': r.acc ?? 1, 'acc_stderr,none': 0.1 }])),
    configs: Object.fromEntries(Object.keys(tasks).map((t) => [t, { task: t, metric_list: [{ metric: 'acc' }], output_type: 'multiple_choice' }])),
    versions: Object.fromEntries(Object.keys(tasks).map((t) => [t, 1])),
    'n-shot': Object.fromEntries(Object.keys(tasks).map((t) => [t, 0])),
    'n-samples': Object.fromEntries(Object.entries(tasks).map(([t, r]) => [t, { original: 100, effective: r.effective ?? 2 }])),
    config: { model: 'hf', model_args: 'pretrained=acme/tiny,dtype=float32', model_sha: 'abc123', random_seed: 0 },
    git_hash: 'e16afa2f',
    date: DATE,
    model_name: 'acme/tiny',
    lm_eval_version: '0.4.9',
    ...overrides,
  };
}

/** An input directory from relative path -> content (objects are JSON, arrays of objects JSONL). */
export function run(files: Record<string, Json | Json[] | string | Uint8Array>, skipped: string[] = []): ImportInput {
  const map = new Map<string, Uint8Array>();
  for (const [path, content] of Object.entries(files).sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))) {
    let bytes: Uint8Array;
    if (content instanceof Uint8Array) bytes = content;
    else if (typeof content === 'string') bytes = Buffer.from(content, 'utf8');
    else if (Array.isArray(content)) bytes = Buffer.from(content.map((l) => `${JSON.stringify(l)}\n`).join(''), 'utf8');
    else bytes = Buffer.from(JSON.stringify(content, null, 2), 'utf8');
    map.set(path, bytes);
  }
  return { name: 'run', kind: 'directory', files: map, skipped };
}

/** The usual synthetic run: one task `t` with docs 0 (acc 1) and 1 (acc 0). */
export function basicRun(extra: Record<string, Json | Json[] | string | Uint8Array> = {}): ImportInput {
  return run({
    [`results_${STAMP}.json`]: results({ t: { acc: 0.5 } }),
    [`samples_t_${STAMP}.jsonl`]: [line(1, { acc: 0.0 }), line(0)],
    ...extra,
  });
}

export function request(flags: Record<string, string> = {}, limits: Partial<ImportLimits> = {}, license = 'MIT'): ImportRequest {
  return { license, flags, limits: { ...DEFAULT_IMPORT_LIMITS, ...limits } };
}

export async function mapRun(input: ImportInput, flags: Record<string, string> = {}, limits: Partial<ImportLimits> = {}): Promise<MappedBundle> {
  return mapImportInput(lmEvalImporter, input, request(flags, limits));
}

export function jsonOf(bundle: MappedBundle, path: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(bundle.files.get(path)!).toString('utf8')) as Record<string, unknown>;
}

export function jsonlOf(bundle: MappedBundle, path: string): Record<string, unknown>[] {
  return Buffer.from(bundle.files.get(path)!)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function verdicts(bundle: MappedBundle): string[] {
  return (jsonOf(bundle, 'grades/1.json').results as { verdict: string }[]).map((r) => r.verdict);
}

export function notesOf(bundle: MappedBundle): string {
  return Buffer.from(bundle.files.get('NOTES.md')!).toString('utf8');
}
