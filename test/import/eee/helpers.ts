/**
 * Minimal synthetic Every Eval Ever inputs following eval.schema.json and
 * instance_level_eval.schema.json (0.2.2) exactly: an aggregate with two
 * results (a binary `acc` and a continuous `f1`, joined by
 * evaluation_result_id), and a sidecar with one row per sample and metric.
 * The real files (content/imported/eee) are 0.2.0 and lack what these cover.
 */
import { createHash } from 'node:crypto';
import { sealManifest } from '../../../src/evidence/seal.ts';
import { mapImportInput } from '../../../src/import/import-input.ts';
import type { ImportRequest, MappedBundle } from '../../../src/import/importer.ts';
import type { ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../../src/import/limits.ts';
import { eeeImporter } from '../../../src/import/eee/importer.ts';
import { verifyBundle } from '../../../src/verify/verify-bundle.ts';
import { snapshotOfFiles } from '../../helpers/bundle-builder.ts';

type Json = Record<string, unknown>;

export const AGG_PATH = 'data/synthetic/acme/model-1/6b1c2f9e-0d7a-4a55-9c1e-2f3a4b5c6d7e.json';
export const SIDECAR_PATH = 'data/synthetic/acme/model-1/6b1c2f9e-0d7a-4a55-9c1e-2f3a4b5c6d7e_samples.jsonl';

/** One sidecar row (single_turn); override any member. */
export function row(sampleId: string | number, resultId: string, overrides: Json = {}): Json {
  return {
    schema_version: '0.2.2',
    evaluation_id: 'synthetic/acme/model-1/1747312345.0',
    model_id: 'acme/model-1',
    evaluation_name: resultId === 'r-acc' ? 'accuracy' : 'f1',
    evaluation_result_id: resultId,
    sample_id: sampleId,
    interaction_type: 'single_turn',
    input: { raw: `question ${String(sampleId)}`, reference: ['answer'] },
    output: { raw: ['answer'] },
    messages: null,
    answer_attribution: [{ turn_idx: 0, source: 'output.raw', extracted_value: 'answer', extraction_method: 'exact_match', is_terminal: true }],
    evaluation: { score: 1, is_correct: true },
    token_usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
    performance: { latency_ms: 1500, generation_time_ms: 1200 },
    error: null,
    ...overrides,
  };
}

/** The sidecar's bytes: one compact JSON object per line, a final newline. */
export function jsonl(rows: Json[]): Buffer {
  return Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');
}

/** An aggregate referencing the sidecar (checksum and total_rows of `sidecar` unless overridden). */
export function aggregate(sidecar: Buffer, overrides: Json = {}, detailed: Json = {}): Json {
  return {
    schema_version: '0.2.2',
    evaluation_id: 'synthetic/acme/model-1/1747312345.0',
    evaluation_timestamp: '1747312345.25',
    retrieved_timestamp: '1747399999.0',
    source_metadata: { source_name: 'synthetic', source_type: 'evaluation_run', source_organization_name: 'Acme Evals', evaluator_relationship: 'third_party' },
    model_info: { name: 'Acme Model 1', id: 'acme/model-1' },
    eval_library: { name: 'acme-eval', version: '1.2.3' },
    evaluation_results: [
      {
        evaluation_result_id: 'r-acc',
        evaluation_name: 'accuracy',
        source_data: { dataset_name: 'synthetic-qa', source_type: 'other' },
        metric_config: { metric_id: 'accuracy', metric_name: 'Accuracy', lower_is_better: false, score_type: 'binary' },
        score_details: { score: 0.5 },
        generation_config: { generation_args: { temperature: 0, sandbox: { type: 'docker' } } },
      },
      {
        evaluation_result_id: 'r-f1',
        evaluation_name: 'f1',
        source_data: { dataset_name: 'synthetic-qa', source_type: 'other' },
        metric_config: { metric_id: 'f1', metric_name: 'F1', lower_is_better: false, score_type: 'continuous', min_score: 0, max_score: 1 },
        score_details: { score: 0.7 },
      },
    ],
    detailed_evaluation_results: {
      format: 'jsonl',
      file_path: SIDECAR_PATH,
      hash_algorithm: 'sha256',
      checksum: createHash('sha256').update(sidecar).digest('hex'),
      total_rows: sidecar.toString('utf8').split('\n').filter((l) => l !== '').length,
      ...detailed,
    },
    ...overrides,
  };
}

/** A directory input from relative path -> bytes (or JSON), sorted as input.ts sorts. */
export function dirInput(files: Record<string, Uint8Array | Json | string>): ImportInput {
  const entries = Object.entries(files).map(([path, value]): [string, Uint8Array] => [
    path,
    value instanceof Uint8Array ? value : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value, null, 4), 'utf8'),
  ]);
  entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return { name: 'run', kind: 'directory', files: new Map(entries), skipped: [] };
}

/** The standard synthetic input: samples s1 (right), s2 (wrong), s3 (right, no token_usage), each scored by r-acc and r-f1. */
export function standardRows(): Json[] {
  return [
    row('s1', 'r-acc'),
    row('s1', 'r-f1', { evaluation: { score: 0.9, is_correct: true } }),
    row('s2', 'r-acc', { evaluation: { score: 0, is_correct: false }, performance: null }),
    row('s2', 'r-f1', { evaluation: { score: 0.4, is_correct: false }, performance: null }),
    row('s3', 'r-acc', { token_usage: null }),
    row('s3', 'r-f1', { evaluation: { score: 0.8, is_correct: true }, token_usage: null }),
  ];
}

export function standardInput(rows: Json[] = standardRows(), overrides: Json = {}, detailed: Json = {}): ImportInput {
  const side = jsonl(rows);
  return dirInput({ [AGG_PATH]: aggregate(side, overrides, detailed), [SIDECAR_PATH]: side });
}

export function request(flags: Record<string, string> = {}, limits: Partial<ImportLimits> = {}, license = 'CC-BY-4.0'): ImportRequest {
  return { license, flags, limits: { ...DEFAULT_IMPORT_LIMITS, ...limits } };
}

/** Maps an input (checking the directory importer's promise) without touching the disk. */
export function mapInput(input: ImportInput, flags: Record<string, string> = {}, limits: Partial<ImportLimits> = {}): Promise<MappedBundle> {
  return mapImportInput(eeeImporter, input, request(flags, limits));
}

/** The verifier's result for mapped files (manifest sealed in memory). */
export function verifyMapped(mapped: MappedBundle) {
  const files = new Map(mapped.files);
  files.set('manifest.json', sealManifest(files, mapped.planId));
  return verifyBundle(snapshotOfFiles(files));
}

/** The bundle id of mapped files. */
export function bundleIdOf(mapped: MappedBundle): string {
  const manifest = JSON.parse(sealManifest(mapped.files, mapped.planId).toString('utf8')) as { bundle_id: string };
  return manifest.bundle_id;
}

/** A JSON file of mapped files. */
export function json(mapped: MappedBundle, path: string): Json {
  return JSON.parse(Buffer.from(mapped.files.get(path)!).toString('utf8')) as Json;
}

/** A JSONL file of mapped files. */
export function lines(mapped: MappedBundle, path: string): Json[] {
  return Buffer.from(mapped.files.get(path)!)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
}

export function notes(mapped: MappedBundle): string {
  return Buffer.from(mapped.files.get('NOTES.md')!).toString('utf8');
}
