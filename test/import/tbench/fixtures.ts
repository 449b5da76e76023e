/**
 * Synthetic Terminal-Bench inputs (read as input.ts would give them: relative
 * path -> bytes), for the mapping, hostile-input and fuzz tests.
 */
import type { ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../../src/import/limits.ts';
import type { ImportRequest, MappedBundle } from '../../../src/import/importer.ts';
import { mapImportInput } from '../../../src/import/import-input.ts';
import { tbenchImporter } from '../../../src/import/tbench/importer.ts';

type Json = Record<string, unknown>;

export const REAL_DIR = new URL('../../../content/imported/terminal-bench/', import.meta.url).pathname;

/** One TB1 trial object; override any member. */
export function tb1Trial(task: string, n: number, overrides: Json = {}): Json {
  return {
    id: `id-${task}-${n}`,
    trial_name: `${task}.${n}-of-2.run`,
    task_id: task,
    instruction: `do ${task}`,
    is_resolved: true,
    failure_mode: 'unset',
    parser_results: { test_a: 'passed' },
    recording_path: `run/${task}/${task}.${n}-of-2.run/sessions/agent.cast`,
    total_input_tokens: 100,
    total_output_tokens: 20,
    trial_started_at: `2026-03-01T10:0${n}:00.500000+01:00`,
    trial_ended_at: `2026-03-01T10:0${n}:30+01:00`,
    ...overrides,
  };
}

/** A TB1 run directory from its trials; the aggregate is computed unless given. */
export function tb1Input(trials: Json[], opts: { aggregate?: Json; metadata?: Json | null; trialFiles?: boolean; extra?: Record<string, string> } = {}): ImportInput {
  const resolved = trials.filter((t) => t.is_resolved === true);
  const results = {
    id: 'run-uuid',
    results: trials,
    pass_at_k: {},
    n_resolved: resolved.length,
    n_unresolved: trials.length - resolved.length,
    resolved_ids: resolved.map((t) => t.task_id),
    unresolved_ids: trials.filter((t) => t.is_resolved !== true).map((t) => t.task_id),
    accuracy: trials.length === 0 ? 0 : resolved.length / trials.length,
    ...opts.aggregate,
  };
  const files = new Map<string, Uint8Array>();
  files.set('results.json', Buffer.from(JSON.stringify(results, null, 4)));
  const metadata =
    opts.metadata === undefined
      ? {
          run_id: 'run',
          dataset_name: 'terminal-bench-core',
          dataset_version: '0.1.1',
          agent_name: 'terminus',
          model_name: 'acme/model-1',
          start_time: '2026-03-01T10:00:00+01:00',
          end_time: '2026-03-01T10:30:00+01:00',
          n_attempts: 2,
          accuracy: results.accuracy,
        }
      : opts.metadata;
  if (metadata !== null) files.set('run_metadata.json', Buffer.from(JSON.stringify(metadata, null, 4)));
  if (opts.trialFiles !== false) {
    for (const t of trials) files.set(`${String(t.task_id)}/${String(t.trial_name)}/results.json`, Buffer.from(JSON.stringify(t, null, 4)));
  }
  for (const [k, v] of Object.entries(opts.extra ?? {})) files.set(k, Buffer.from(v));
  return { name: 'run', kind: 'directory', files: sorted(files), skipped: [] };
}

/** One Harbor trial result; override any member. */
export function harborTrial(task: string, id: string, overrides: Json = {}): Json {
  return {
    id: `uuid-${id}`,
    task_name: task,
    trial_name: `${task.split("/").pop()!}__${id}`,
    task_checksum: `checksum-${task}`,
    source: 'terminal-bench/terminal-bench-2',
    config: { agent: { name: 'terminus-2', model_name: 'acme/model-1' }, environment: { type: 'docker' } },
    agent_info: { name: 'terminus-2', version: '2.0.0', model_info: { name: 'model-1', provider: 'acme' } },
    agent_result: { n_input_tokens: 1000, n_cache_tokens: 10, n_output_tokens: 50, cost_usd: 0.0125 },
    verifier_result: { rewards: { reward: 1.0 } },
    exception_info: null,
    started_at: '2026-03-02T08:00:00.250000Z',
    finished_at: '2026-03-02T08:01:00Z',
    ...overrides,
  };
}

/** A Harbor job directory from its trials; the job's aggregate is computed unless given. */
export function harborInput(trials: Json[], opts: { job?: Json; config?: Json | null; extra?: Record<string, string> } = {}): ImportInput {
  const rewards: Record<string, string[]> = {};
  for (const t of trials) {
    const r = (t.verifier_result as { rewards?: { reward?: number | null } } | null)?.rewards?.reward;
    if (typeof r === 'number') (rewards[Number.isInteger(r) ? r.toFixed(1) : String(r)] ??= []).push(String(t.trial_name));
  }
  const job = {
    id: 'job-uuid',
    started_at: '2026-03-02T08:00:00.000000',
    finished_at: '2026-03-02T08:10:00.000000',
    n_total_trials: trials.length,
    stats: { evals: { 'terminus-2__model-1__tb2': { n_trials: trials.length, n_errors: 0, metrics: [{ mean: 0.5 }], reward_stats: { reward: rewards }, exception_stats: {} } } },
    ...opts.job,
  };
  const files = new Map<string, Uint8Array>();
  files.set('result.json', Buffer.from(JSON.stringify(job, null, 4)));
  if (opts.config !== null) files.set('config.json', Buffer.from(JSON.stringify(opts.config ?? { job_name: 'job', n_attempts: 2, environment: { type: 'docker' } }, null, 4)));
  for (const t of trials) files.set(`${String(t.trial_name)}/result.json`, Buffer.from(JSON.stringify(t, null, 4)));
  for (const [k, v] of Object.entries(opts.extra ?? {})) files.set(k, Buffer.from(v));
  return { name: 'job', kind: 'directory', files: sorted(files), skipped: [] };
}

function sorted(files: Map<string, Uint8Array>): Map<string, Uint8Array> {
  return new Map([...files].sort(([a], [b]) => (Buffer.from(a).compare(Buffer.from(b)))));
}

/** A request with flags and limits. */
export function request(flags: Record<string, string> = {}, limits: Partial<ImportLimits> = {}, license = 'MIT'): ImportRequest {
  return { license, flags, limits: { ...DEFAULT_IMPORT_LIMITS, ...limits } };
}

/** Maps an input with the terminal-bench importer (checks the source/ originals as the import does). */
export function mapTb(input: ImportInput, flags: Record<string, string> = {}, limits: Partial<ImportLimits> = {}): Promise<MappedBundle> {
  return mapImportInput(tbenchImporter, input, request(flags, limits));
}

/** A JSON file of a mapped bundle. */
export function jsonOf(bundle: MappedBundle, path: string): Json {
  return JSON.parse(Buffer.from(bundle.files.get(path)!).toString('utf8')) as Json;
}

/** A JSONL file of a mapped bundle. */
export function jsonlOf(bundle: MappedBundle, path: string): Json[] {
  return Buffer.from(bundle.files.get(path)!)
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);
}

/** The verdicts of generation 1 by attempt id. */
export function verdicts(bundle: MappedBundle): Record<string, string> {
  const grades = jsonOf(bundle, 'grades/1.json') as { results: { attempt_id: string; verdict: string }[] };
  return Object.fromEntries(grades.results.map((r) => [r.attempt_id, r.verdict]));
}

export function notes(bundle: MappedBundle): string {
  return Buffer.from(bundle.files.get('NOTES.md')!).toString('utf8');
}
