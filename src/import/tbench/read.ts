/**
 * Reads a Terminal-Bench input, a directory, in one of its two layouts:
 *
 * - a Terminal-Bench 1 run directory: `results.json` (the run's trials and
 *   aggregate) at its root, `run_metadata.json` beside it, and one
 *   `<task>/<trial>/results.json` per trial (the same trial object);
 * - a Harbor job directory (Terminal-Bench 2): `result.json` (the job's
 *   aggregate) and `config.json` at its root, and one `<trial>/result.json`
 *   per trial.
 *
 * Which files are read is decided by their relative paths' shape (fixed
 * names at fixed depths), never by text inside a file: a path a file mentions
 * (a recording path, a trial URI) is never followed. Every file read is parsed
 * strictly and its mapped members validated (schema.ts); the aggregate is
 * cross-checked against the trials by map.ts.
 */
import type { z } from 'zod';
import { compareUtf8 } from '../../json/compare.ts';
import { canonicalJson } from '../../json/canonical.ts';
import type { JsonValue } from '../../json/strict-json.ts';
import { ImportError, ImportLimitError } from '../errors.ts';
import type { ImportInput } from '../input-shape.ts';
import type { ImportLimits } from '../limits.ts';
import { parseSourceJson } from '../source-json.ts';
import { describeIssue, HarborJob, HarborTrial, Tb1Results, Tb1RunMetadata, Tb1Trial } from './schema.ts';

export type Layout = 'tb1' | 'harbor';

/** The main file of each layout (its digest is the plan's origin.source). */
export const MAIN_FILE: Readonly<Record<Layout, string>> = { tb1: 'results.json', harbor: 'result.json' };

const TB1_METADATA = 'run_metadata.json';
const HARBOR_CONFIG = 'config.json';
const TB1_TRIAL_FILE = /^[^/]+\/[^/]+\/results\.json$/;
const HARBOR_TRIAL_FILE = /^[^/]+\/result\.json$/;

/**
 * The log files kept beside a trial's result file, by their path relative to
 * the trial's directory (the directory of a trial file read), for the
 * transcripts (transcript.ts): TB1's keystrokes and tmux panes, Harbor's ATIF
 * trajectory and the verifier's output. Nothing else of a trial directory
 * (recordings, session logs, other agent files) is kept.
 */
export const LOG_FILES: Readonly<Record<Layout, readonly string[]>> = {
  tb1: ['commands.txt', 'panes/pre-agent.txt', 'panes/post-agent.txt', 'panes/post-test.txt'],
  harbor: ['agent/trajectory.json', 'verifier/test-stdout.txt'],
};

/** The largest log file kept (bytes; or import_limits.file_bytes when smaller). */
export const LOG_FILE_BYTES = 4 * 1024 * 1024;
/** The most log bytes one bundle keeps together (or import_limits.input_bytes when smaller). */
export const LOG_TOTAL_BYTES = 32 * 1024 * 1024;

/** The log files a run keeps: within the bounds, in byte order of their paths; and how many were left out for their size. */
export interface KeptLogs {
  /** Relative paths kept, byte order. */
  kept: string[];
  /** Log files of a trial directory not kept: one past LOG_FILE_BYTES, or past LOG_TOTAL_BYTES with those before it. */
  over: number;
}

/**
 * The log files of the trials' directories that a bundle keeps: one at most
 * LOG_FILE_BYTES, all together at most LOG_TOTAL_BYTES, taken in byte order
 * of their paths (a file left out adds nothing, so a re-import from the kept
 * files keeps exactly them again).
 */
function keptLogs(input: ImportInput, layout: Layout, dirs: Iterable<string>, limits: ImportLimits): KeptLogs {
  const candidates: string[] = [];
  for (const dir of new Set(dirs)) {
    for (const name of LOG_FILES[layout]) if (input.files.has(`${dir}/${name}`)) candidates.push(`${dir}/${name}`);
  }
  candidates.sort(compareUtf8);
  const fileMax = Math.min(LOG_FILE_BYTES, limits.maxFileBytes);
  let budget = Math.min(LOG_TOTAL_BYTES, limits.maxInputBytes);
  const kept: string[] = [];
  let over = 0;
  for (const path of candidates) {
    const size = input.files.get(path)!.byteLength;
    if (size > fileMax || size > budget) {
      over++;
      continue;
    }
    budget -= size;
    kept.push(path);
  }
  return { kept, over };
}

/** The directory of a relative file path ('' for a root file). */
function dirOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

/** A TB1 run as read. */
export interface Tb1Run {
  layout: 'tb1';
  results: Tb1Results;
  /** The run-level trials, in file order. */
  trials: Tb1Trial[];
  metadata: Tb1RunMetadata | null;
  /** Per-trial files read (each equal to its run-level entry). */
  trialFiles: number;
  /** The directory of each trial's per-trial results.json, by trial_name (a trial without one has none). */
  trialDirs: Map<string, string>;
  logs: KeptLogs;
  /** Relative paths of the files read, byte order. */
  read: string[];
  nonFinite: number;
}

/** A Harbor job as read. */
export interface HarborRun {
  layout: 'harbor';
  job: HarborJob;
  /** The job's config.json as parsed, or null when the job has none. */
  config: JsonValue | null;
  /** The trials, in path order. */
  trials: HarborTrial[];
  /** The directory of each trial's result.json, in the order of `trials`. */
  trialDirs: string[];
  logs: KeptLogs;
  read: string[];
  nonFinite: number;
}

export type TbenchRun = Tb1Run | HarborRun;

interface Parsed {
  value: JsonValue;
  nonFinite: number;
}

function parseFile(bytes: Uint8Array, path: string): Parsed {
  return parseSourceJson(bytes, `the file ${JSON.stringify(path)}`);
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string, shape: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ImportError(`${what} is not ${shape} (${describeIssue(parsed.error)})`);
  return parsed.data;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses a root file for detection: the value, or null when it is not readable JSON. */
function peek(input: ImportInput, path: string): unknown {
  const bytes = input.files.get(path);
  if (bytes === undefined) return null;
  try {
    return parseFile(bytes, path).value;
  } catch {
    return null;
  }
}

/** The layout an input holds, judged from its root files' content; null when neither. Never throws. */
export function detectLayout(input: ImportInput): Layout | null {
  if (input.kind !== 'directory') return null;
  const tb1 = peek(input, MAIN_FILE.tb1);
  if (isObject(tb1) && Array.isArray(tb1.results)) {
    const first = tb1.results[0];
    if (input.files.has(TB1_METADATA) || (isObject(first) && 'trial_name' in first && 'task_id' in first)) return 'tb1';
  }
  const harbor = peek(input, MAIN_FILE.harbor);
  if (isObject(harbor) && !('task_name' in harbor) && ('n_total_trials' in harbor || 'stats' in harbor)) return 'harbor';
  return null;
}

/** Reads a Terminal-Bench input; throws ImportError for anything that is not a readable run of either layout. */
export function readRun(input: ImportInput, limits: ImportLimits): TbenchRun {
  if (input.kind !== 'directory') {
    throw new ImportError('a Terminal-Bench run is a directory (a TB1 run directory or a Harbor job directory): give the directory, not a file');
  }
  const hasTb1 = input.files.has(MAIN_FILE.tb1);
  const hasHarbor = input.files.has(MAIN_FILE.harbor);
  if (hasTb1 && hasHarbor) {
    throw new ImportError('the directory holds both a results.json (Terminal-Bench 1) and a result.json (Harbor) at its root: import one run directory or job at a time');
  }
  if (hasTb1) return readTb1(input, limits);
  if (hasHarbor) return readHarbor(input, limits);
  throw new ImportError('not a Terminal-Bench run: the directory has neither a results.json (Terminal-Bench 1 run) nor a result.json (Harbor job) at its root');
}

function readTb1(input: ImportInput, limits: ImportLimits): Tb1Run {
  const read = [MAIN_FILE.tb1];
  const main = parseFile(input.files.get(MAIN_FILE.tb1)!, MAIN_FILE.tb1);
  let nonFinite = main.nonFinite;
  const results = validate(Tb1Results, main.value, "the run's results.json", 'a Terminal-Bench 1 run result');
  if (results.results.length > limits.maxRecords) {
    throw new ImportLimitError(`the run holds ${results.results.length} trials, more than the ${limits.maxRecords} an import reads (import_limits.maxRecords)`, 'maxRecords');
  }
  const trials = results.results.map((t, i) => validate(Tb1Trial, t, `trial ${i + 1} of the run's results.json`, 'a Terminal-Bench 1 trial'));
  const raw = new Map<string, string>();
  trials.forEach((t, i) => {
    if (raw.has(t.trial_name)) throw new ImportError(`the run's results.json lists the trial ${JSON.stringify(t.trial_name.slice(0, 200))} twice`);
    raw.set(t.trial_name, canonicalJson(results.results[i]));
  });
  let metadata: Tb1RunMetadata | null = null;
  const metadataBytes = input.files.get(TB1_METADATA);
  if (metadataBytes !== undefined) {
    const parsed = parseFile(metadataBytes, TB1_METADATA);
    nonFinite += parsed.nonFinite;
    metadata = validate(Tb1RunMetadata, parsed.value, 'run_metadata.json', 'Terminal-Bench 1 run metadata');
    read.push(TB1_METADATA);
  }
  let trialFiles = 0;
  const trialDirs = new Map<string, string>();
  for (const [path, bytes] of input.files) {
    if (!TB1_TRIAL_FILE.test(path)) continue;
    const parsed = parseFile(bytes, path);
    nonFinite += parsed.nonFinite;
    const trial = validate(Tb1Trial, parsed.value, `the trial file ${JSON.stringify(path)}`, 'a Terminal-Bench 1 trial');
    const listed = raw.get(trial.trial_name);
    if (listed === undefined) {
      throw new ImportError(`the trial file ${JSON.stringify(path)} holds a trial the run's results.json does not list: the run-level results.json is the record of the run; the two disagree`);
    }
    if (listed !== canonicalJson(parsed.value)) {
      throw new ImportError(`the trial file ${JSON.stringify(path)} disagrees with the run's results.json entry of the same trial`);
    }
    trialFiles++;
    trialDirs.set(trial.trial_name, dirOf(path));
    read.push(path);
  }
  const logs = keptLogs(input, 'tb1', trialDirs.values(), limits);
  read.push(...logs.kept);
  return { layout: 'tb1', results, trials, metadata, trialFiles, trialDirs, logs, read: read.sort(compareUtf8), nonFinite };
}

function readHarbor(input: ImportInput, limits: ImportLimits): HarborRun {
  const read = [MAIN_FILE.harbor];
  const main = parseFile(input.files.get(MAIN_FILE.harbor)!, MAIN_FILE.harbor);
  let nonFinite = main.nonFinite;
  if (isObject(main.value) && 'task_name' in main.value) {
    throw new ImportError('the result.json at the root is one trial\'s result, not a job\'s: give the Harbor job directory (the parent of the trial directories)');
  }
  const job = validate(HarborJob, main.value, "the job's result.json", 'a Harbor job result');
  let config: JsonValue | null = null;
  const configBytes = input.files.get(HARBOR_CONFIG);
  if (configBytes !== undefined) {
    const parsed = parseFile(configBytes, HARBOR_CONFIG);
    nonFinite += parsed.nonFinite;
    if (!isObject(parsed.value)) throw new ImportError('the job\'s config.json is not a JSON object');
    config = parsed.value;
    read.push(HARBOR_CONFIG);
  }
  const trials: HarborTrial[] = [];
  const trialDirs: string[] = [];
  const names = new Set<string>();
  for (const [path, bytes] of input.files) {
    if (!HARBOR_TRIAL_FILE.test(path)) continue;
    if (trials.length >= limits.maxRecords) throw new ImportLimitError(`the job holds more than ${limits.maxRecords} trials (import_limits.maxRecords)`, 'maxRecords');
    const parsed = parseFile(bytes, path);
    nonFinite += parsed.nonFinite;
    const trial = validate(HarborTrial, parsed.value, `the trial file ${JSON.stringify(path)}`, 'a Harbor trial result');
    if (names.has(trial.trial_name)) throw new ImportError(`two trial files hold the trial ${JSON.stringify(trial.trial_name.slice(0, 200))}`);
    names.add(trial.trial_name);
    trials.push(trial);
    trialDirs.push(dirOf(path));
    read.push(path);
  }
  const logs = keptLogs(input, 'harbor', trialDirs, limits);
  read.push(...logs.kept);
  return { layout: 'harbor', job, config, trials, trialDirs, logs, read: read.sort(compareUtf8), nonFinite };
}
