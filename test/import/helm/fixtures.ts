/**
 * Synthetic HELM run directories for the helm importer's tests: the shape of
 * the real ones (content/imported/helm), small and editable, as an
 * ImportInput (relative path -> bytes) or written to disk.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapImportInput } from '../../../src/import/import-input.ts';
import type { ImportRequest, MappedBundle } from '../../../src/import/importer.ts';
import type { ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../../src/import/limits.ts';
import { helmImporter } from '../../../src/import/helm/importer.ts';

type Json = Record<string, unknown>;

export const REAL_RUNS = new URL('../../../content/imported/helm/', import.meta.url).pathname;
export const LLAMA = 'harm_bench-model-meta_llama-3-70b';
export const QWEN = 'harm_bench-model-qwen_qwen2-72b-instruct';

/** A run_spec.json; override any member, or the adapter's. */
export function runSpec(overrides: Json = {}, adapter: Json = {}): Json {
  return {
    name: 'toy:model=acme_model',
    scenario_spec: { class_name: 'helm.benchmark.scenarios.toy.ToyScenario', args: {} },
    adapter_spec: { method: 'generation', max_train_instances: 0, num_outputs: 1, num_train_trials: 1, model_deployment: 'acme/model-api', model: 'acme/model', ...adapter },
    metric_specs: [{ class_name: 'helm.benchmark.metrics.basic_metrics.BasicGenerationMetric', args: {} }],
    groups: ['toy'],
    ...overrides,
  };
}

/** One stat as HELM writes it (count 1 unless given). */
export function stat(name: string, value: number | null, options: { split?: string; perturbation?: string; count?: number; subSplit?: string } = {}): Json {
  const metricName: Json = { name, split: options.split ?? 'test' };
  if (options.subSplit !== undefined) metricName.sub_split = options.subSplit;
  if (options.perturbation !== undefined) metricName.perturbation = { name: options.perturbation, robustness: true, fairness: false, computed_on: 'perturbed' };
  const count = options.count ?? 1;
  if (count === 0) return { name: metricName, count: 0, sum: 0, sum_squared: 0 };
  return { name: metricName, count, sum: value, sum_squared: value === null ? null : value * value, min: value, max: value, mean: value, variance: 0, stddev: 0 };
}

/** One per_instance_stats.json entry. */
export function entry(id: string, trial: number, stats: Json[], perturbation?: string): Json {
  return { instance_id: id, train_trial_index: trial, ...(perturbation === undefined ? {} : { perturbation: { name: perturbation } }), stats };
}

/** The usual stats of an instance: the graded exact_match and the token counts. */
export function instanceStats(value: number, options: { split?: string; prompt?: number; output?: number } = {}): Json[] {
  const split = options.split ?? 'test';
  return [stat('exact_match', value, { split }), stat('num_prompt_tokens', options.prompt ?? 10, { split }), stat('num_output_tokens', options.output ?? 2, { split })];
}

/** One request state of scenario_state.json. */
export function requestState(id: string, trial: number, overrides: { input?: string; split?: string; time?: number | null; success?: boolean; model?: string; perturbation?: string } = {}): Json {
  const instance: Json = { input: { text: overrides.input ?? `question ${id}` }, references: [{ output: { text: 'answer' }, tags: ['correct'] }], split: overrides.split ?? 'test', id };
  if (overrides.perturbation !== undefined) instance.perturbation = { name: overrides.perturbation };
  const result: Json = { success: overrides.success ?? true, completions: [{ text: 'answer', logprob: 0 }], cached: false };
  if (overrides.time !== null) result.request_time = overrides.time ?? 1.5;
  return { instance, train_trial_index: trial, request: { model: overrides.model ?? 'acme/model', prompt: `question ${id}` }, result };
}

export function scenarioState(states: Json[]): Json {
  return { adapter_spec: runSpec().adapter_spec, request_states: states };
}

const text = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2), 'utf8');

/** A run directory as an import input: the given documents (objects are serialised, bytes kept), any extra files. */
export function runInput(docs: { runSpec?: unknown; perInstance?: unknown; scenarioState?: unknown; stats?: unknown; extra?: Record<string, string | Uint8Array> }): ImportInput {
  const files = new Map<string, Uint8Array>();
  const put = (path: string, value: unknown) => {
    if (value === undefined) return;
    files.set(path, value instanceof Uint8Array ? value : text(value));
  };
  put('per_instance_stats.json', docs.perInstance);
  put('run_spec.json', docs.runSpec);
  put('scenario_state.json', docs.scenarioState);
  put('stats.json', docs.stats);
  for (const [path, value] of Object.entries(docs.extra ?? {})) files.set(path, typeof value === 'string' ? Buffer.from(value, 'utf8') : value);
  return { name: 'toy-run', kind: 'directory', files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), skipped: [] };
}

/** The default synthetic run: two instances, exact_match 1 and 0, one train trial, with scenario state and stats. */
export function toyRun(): Parameters<typeof runInput>[0] {
  return {
    runSpec: runSpec(),
    perInstance: [entry('id2', 0, instanceStats(0)), entry('id1', 0, instanceStats(1))],
    scenarioState: scenarioState([requestState('id1', 0), requestState('id2', 0, { time: 2.25 })]),
    stats: [stat('exact_match', 0.5), stat('num_instances', 2)],
  };
}

/** A request with the helm flags. */
export function helmRequest(flags: Record<string, string> = { metric: 'exact_match' }, limits: Partial<ImportLimits> = {}, license = 'MIT'): ImportRequest {
  return { license, flags, limits: { ...DEFAULT_IMPORT_LIMITS, ...limits } };
}

/** Maps an input with the helm importer (checked as every import is: originals under source/ byte for byte). */
export function mapRun(input: ImportInput, flags?: Record<string, string>, limits?: Partial<ImportLimits>): Promise<MappedBundle> {
  return mapImportInput(helmImporter, input, helmRequest(flags, limits));
}

/** Writes an input's files under a directory. */
export async function writeInput(dir: string, input: ImportInput): Promise<void> {
  for (const [path, bytes] of input.files) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), bytes);
  }
}

export function jsonOf(files: Map<string, Uint8Array>, path: string): Json {
  return JSON.parse(Buffer.from(files.get(path)!).toString('utf8')) as Json;
}

export function jsonlOf(files: Map<string, Uint8Array>, path: string): Json[] {
  return Buffer.from(files.get(path)!)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
}

export function notesOf(files: Map<string, Uint8Array>): string {
  return Buffer.from(files.get('NOTES.md')!).toString('utf8');
}
