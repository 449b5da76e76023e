/**
 * Reads a HELM run directory (benchmark_output/runs/<suite>/<run_name>/), as
 * an import input: run_spec.json and per_instance_stats.json are required,
 * scenario_state.json and stats.json are read when present, every other file
 * is left unread (and not kept). Each document is parsed once, strictly (the
 * project's I-JSON parser; Python's NaN and Infinity tokens are read as null
 * and counted), and validated with the schemas of schema.ts.
 */
import type { z } from 'zod';
import { parseSourceJson } from '../source-json.ts';
import { ImportError, ImportLimitError } from '../errors.ts';
import type { ImportInput } from '../input-shape.ts';
import type { ImportLimits } from '../limits.ts';
import { HelmPerInstanceStats, HelmRunSpec, HelmScenarioState, HelmStats, type HelmInstanceStats, type HelmRunSpec as RunSpec, type HelmScenarioState as ScenarioState, type HelmStat } from './schema.ts';

/** The files of a run directory the importer reads, by relative path (fixed names: never chosen by the input). */
export const RUN_SPEC = 'run_spec.json';
export const PER_INSTANCE_STATS = 'per_instance_stats.json';
export const SCENARIO_STATE = 'scenario_state.json';
export const STATS = 'stats.json';
export const READ_FILES = [PER_INSTANCE_STATS, RUN_SPEC, SCENARIO_STATE, STATS] as const;

/** A read run directory. */
export interface HelmRun {
  runSpec: RunSpec;
  perInstance: HelmInstanceStats[];
  scenarioState: ScenarioState | null;
  /** stats.json, when present (the mapping compares its instance count; sourceMetrics reads its figures from the bundle). */
  stats: HelmStat[] | null;
  /** The bytes of each file read, by relative path: exactly what the bundle keeps under source/. */
  read: Map<string, Uint8Array>;
  /** Input files not read (other files of the run directory, hidden entries). */
  unread: number;
  /** Non-finite number tokens (NaN, Infinity) read as null, over every file read. */
  nonFinite: number;
}

/** The first schema problem of a document, as one sentence naming the path inside it (never the value). */
function schemaProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  const path = issue.path.length === 0 ? 'the top level' : issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
  return `${path.slice(0, 200)}: ${issue.message}`;
}

function parseDocument<T>(bytes: Uint8Array, name: string, schema: z.ZodType<T>, limits: ImportLimits, counted: { nonFinite: number }): T {
  const { value, nonFinite } = parseSourceJson(bytes, name);
  counted.nonFinite += nonFinite;
  if (Array.isArray(value) && value.length > limits.maxRecords) {
    throw new ImportLimitError(`${name} holds ${value.length} records, more than the ${limits.maxRecords} an import reads (import_limits.maxRecords)`, 'maxRecords');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ImportError(`${name} is not a HELM ${name} as the importer reads it (${schemaProblem(parsed.error)})`);
  return parsed.data;
}

/** Reads the run directory's files. Throws ImportError when it is not a run directory or a file is malformed. */
export function readHelmRun(input: ImportInput, limits: ImportLimits): HelmRun {
  if (input.kind !== 'directory') throw new ImportError('a HELM run is a directory (benchmark_output/runs/<suite>/<run>): give the run directory, not a file');
  const runSpecBytes = input.files.get(RUN_SPEC);
  const statsBytes = input.files.get(PER_INSTANCE_STATS);
  if (runSpecBytes === undefined || statsBytes === undefined) {
    throw new ImportError(`the directory has no ${runSpecBytes === undefined ? RUN_SPEC : PER_INSTANCE_STATS} at its top: a HELM run directory holds ${RUN_SPEC} and ${PER_INSTANCE_STATS}`);
  }
  const counted = { nonFinite: 0 };
  const runSpec = parseDocument(runSpecBytes, RUN_SPEC, HelmRunSpec, limits, counted);
  const perInstance = parseDocument(statsBytes, PER_INSTANCE_STATS, HelmPerInstanceStats, limits, counted);
  const read = new Map<string, Uint8Array>([
    [PER_INSTANCE_STATS, statsBytes],
    [RUN_SPEC, runSpecBytes],
  ]);
  const stateBytes = input.files.get(SCENARIO_STATE);
  let scenarioState: ScenarioState | null = null;
  if (stateBytes !== undefined) {
    scenarioState = parseDocument(stateBytes, SCENARIO_STATE, HelmScenarioState, limits, counted);
    if (scenarioState.request_states.length > limits.maxRecords) {
      throw new ImportLimitError(`${SCENARIO_STATE} holds ${scenarioState.request_states.length} request states, more than the ${limits.maxRecords} an import reads (import_limits.maxRecords)`, 'maxRecords');
    }
    read.set(SCENARIO_STATE, stateBytes);
  }
  const aggregateBytes = input.files.get(STATS);
  let stats: HelmStat[] | null = null;
  if (aggregateBytes !== undefined) {
    // Read and checked like the others (sourceMetrics reads it from the bundle), so a malformed one refuses the import.
    stats = parseDocument(aggregateBytes, STATS, HelmStats, limits, counted);
    read.set(STATS, aggregateBytes);
  }
  const unread = [...input.files.keys()].filter((p) => !read.has(p)).length + input.skipped.length;
  return { runSpec, perInstance, scenarioState, stats, read, unread, nonFinite: counted.nonFinite };
}

/**
 * HELM's own aggregate of a stat on a split, unperturbed and over the whole
 * split (no sub_split), from stats.json's bytes: its mean and count, and the
 * split's num_instances. Null when stats.json holds no such stat; an
 * ImportError when it is not JSON or not a HELM stats.json.
 */
export function helmAggregate(bytes: Uint8Array, metric: string, split: string): { mean: number | null; count: number; instances: number | null } | null {
  const { value } = parseSourceJson(bytes, STATS);
  const parsed = HelmStats.safeParse(value);
  if (!parsed.success) throw new ImportError(`${STATS} is not a HELM ${STATS} as the importer reads it`);
  const stat = aggregateStat(parsed.data, metric, split);
  if (stat === undefined) return null;
  return { mean: stat.mean ?? null, count: stat.count, instances: aggregateStat(parsed.data, 'num_instances', split)?.mean ?? null };
}

/** The stat of that name over the whole split in stats.json: unperturbed, no sub_split. */
export function aggregateStat(stats: readonly HelmStat[], name: string, split: string): HelmStat | undefined {
  return stats.find((s) => s.name.name === name && s.name.split === split && !s.name.perturbation && !s.name.sub_split);
}
