/**
 * Maps a read Inspect log onto the files of one evidence bundle (FORMAT.md,
 * section 9: imported evidence). A pure function of the log, the original
 * bytes, the options and the tool version: no clock, no locale, no random.
 * docs/importing.md is the field-by-field description of what this does.
 */
import { digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import { compareUtf8 } from '../../json/compare.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import type { Attempt, GradeResult, Grader, LedgerRecord, Outcome, Plan, Subject } from '../../schema/index.ts';
import { ImportError } from '../errors.ts';
import { artifactWriter, attemptIdOf, costFromUsd, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import type { ImportSummary, MappedBundle } from '../importer.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../limits.ts';
import { checkStringBounds } from './bounds.ts';
import type { InspectLog } from './read-log.ts';
import type { InspectEvalSpec, InspectHeader, InspectModelUsage, InspectSample, InspectScore } from './schema.ts';
import { secondsBetween, toUtcTimestamp } from '../time.ts';

/** Options of an import; each one is part of what the bundle id depends on. */
export interface ImportOptions {
  /** License of every task (ledger `license`); empty when not given (MISSING_LICENSE warning). */
  license: string;
  /** A numeric score at or above this passes. */
  passThreshold: number;
  /** The score (by name) that grades the attempts; the log's first scorer when null. */
  scorer: string | null;
}

export const DEFAULT_IMPORT_OPTIONS: ImportOptions = { license: '', passThreshold: 1, scorer: null };

import { INSPECT_ORIGIN_FORMAT } from './source-reader.ts';

export { INSPECT_ORIGIN_FORMAT };

export { NO_USABLE_GRADES } from '../common.ts';

import { INSPECT_GRADER_PROFILE, passThresholdOfProfile } from './profile.ts';

export { INSPECT_GRADER_PROFILE, passThresholdOfProfile };

/**
 * The plan's grader profile for a pass threshold: `inspect-scorer` at the
 * default (1), else `inspect-scorer pass>=N` (N as String() writes it), so
 * the threshold can be read back from the bundle (a re-import, the re-run
 * command) and bundles at the default threshold stay as they were.
 */
export function inspectGraderProfile(passThreshold: number): string {
  return passThreshold === DEFAULT_IMPORT_OPTIONS.passThreshold ? INSPECT_GRADER_PROFILE : `${INSPECT_GRADER_PROFILE} pass>=${String(passThreshold)}`;
}


export type { ImportSummary, MappedBundle };

/** Fixed bundle path of the original log, by format: never chosen by log text. */
export function sourcePath(format: InspectLog['format']): string {
  return `source/inspect-log.${format}`;
}

type Verdict = 'pass' | 'fail' | 'error';

/** What Inspect's value_to_float makes of P (partial credit): the threshold applies to it as to a number. */
export const PARTIAL_CREDIT = 0.5;

/**
 * The verdict of one Inspect score value (docs/importing.md, "Scores"): C
 * passes and I and N fail whatever the threshold; P is partial credit, 0.5 as
 * Inspect's own accuracy counts it, and passes only when the threshold is at
 * most 0.5; a number passes at or above the threshold.
 */
export function scoreVerdict(value: unknown, passThreshold: number): Verdict {
  if (value === 'C') return 'pass';
  if (value === 'I' || value === 'N') return 'fail';
  if (value === 'P') return PARTIAL_CREDIT >= passThreshold ? 'pass' : 'fail';
  if (typeof value === 'boolean') return value ? 'pass' : 'fail';
  if (typeof value === 'number' && Number.isFinite(value)) return value >= passThreshold ? 'pass' : 'fail';
  return 'error';
}

/** Outcome of a sample: invalidated, errored, halted by a limit, or completed. */
export function sampleOutcome(sample: InspectSample): Outcome {
  if (sample.invalidation !== undefined && sample.invalidation !== null) return 'invalid_case';
  if (sample.error) return 'harness_failure';
  if (sample.limit) {
    switch (sample.limit.type) {
      case 'time':
      case 'working':
        return 'timeout';
      case 'operator':
        return 'cancelled';
      default:
        // context, message, token, cost, custom: the model ran out of its allowance.
        return 'model_failure';
    }
  }
  return 'completed';
}

/** Compares sample ids: integers first in numeric order, then strings in UTF-8 byte order. */
function compareSampleIds(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareUtf8(a, b);
}

function utc(text: string | null | undefined, what: string): string | null {
  if (text === null || text === undefined || text === '') return null;
  const ts = toUtcTimestamp(text);
  if (ts === null) throw new ImportError(`${what} ${JSON.stringify(text)} is not a timestamp with a UTC offset`);
  return ts;
}

function rawMember(object: unknown, key: string): unknown {
  if (typeof object !== 'object' || object === null) return null;
  const value = (object as Record<string, unknown>)[key];
  return value === undefined ? null : value;
}

/**
 * What the steps of {@link mapInspectLog} share: the log's header, its
 * samples in attempt order, the options, and the list of what the log lacked, to which
 * each step appends its sentences in turn (their order is NOTES.md's).
 */
interface Mapping {
  readonly header: InspectHeader;
  readonly spec: InspectEvalSpec;
  readonly options: ImportOptions;
  /** Sorted by id, then epoch: one attempt each, in this order. */
  readonly samples: readonly InspectSample[];
  /** The task ids (sample ids as strings), in sample order. */
  readonly tasks: readonly string[];
  readonly missing: string[];
}

/** The run's start, and its completion when the log records one (UTC timestamps). */
interface RunTimes {
  started: string;
  completed: string | null;
}

/** How many of the samples' outcomes, usages, costs, times and grades the bundle cannot carry as the log had them. */
interface SampleCounts {
  noUsage: number;
  noCost: number;
  noTime: number;
  ungraded: number;
  uninterpretable: number;
  errors: number;
  limits: number;
  invalidated: number;
  otherUsage: number;
  /** Completed samples graded pass or fail, and samples halted by a model or time limit: what a pass rate measures. */
  usable: number;
}

/**
 * Maps a log to bundle files. Throws ImportError when the log holds nothing a
 * bundle can carry, and ImportLimitError for a string it would keep that is
 * past `limits.maxStringBytes` (default: the import default, 64 KiB).
 */
export function mapInspectLog(
  log: InspectLog,
  source: Uint8Array,
  options: ImportOptions = DEFAULT_IMPORT_OPTIONS,
  limits: Pick<ImportLimits, 'maxStringBytes'> = DEFAULT_IMPORT_LIMITS,
): MappedBundle {
  checkStringBounds(log, limits.maxStringBytes, options.scorer);
  const { header } = log;
  const missing: string[] = [];
  noteRunState(log, missing);
  const m: Mapping = { header, spec: header.eval, options, ...samplesInOrder(log.samples), missing };
  const times = runTimes(header);
  const exactModel = exactModelOf(m);
  const version = inspectVersion(m);
  const { configured, epochs } = attemptsPerTask(m);
  notePlannedSamples(m, configured, epochs);
  const scorer = chooseScorer(m);
  const grader = graderOf(m, scorer, version);
  const ledgerRecords = ledgerOf(m, times.started);
  const ledgerBytes = jsonlBytes(ledgerRecords);
  const subject: Subject = { selector: m.spec.model, model: exactModel, agent: { name: agentName(m), version }, role: 'candidate' };
  const plan = planOf(m, { started: times.started, ledgerBytes, tasks: ledgerRecords.length, version, grader, subject, epochs, source });

  const files = new Map<string, Uint8Array>();
  const { attempts, results, usable } = attemptsAndGrades(m, { times, exactModel, agent: subject.agent, scorer, files });

  files.set(sourcePath(log.format), source);
  return finishImport({
    files,
    plan,
    ledgerBytes,
    attempts,
    grades: { created_at: times.completed ?? times.started, grader, results },
    notes: { heading: 'Imported Inspect AI eval log', format: 'inspect', source: `Inspect AI eval log kept byte for byte as \`${sourcePath(log.format)}\`` },
    missing,
    usable,
    summary: { status: header.status, tasks: ledgerRecords.length, epochs, scorer },
  });
}

/** The run's status and how the log was read: an unfinished run, a missing header, non-finite numbers; no samples at all is an ImportError. */
function noteRunState(log: InspectLog, missing: string[]): void {
  const { header } = log;
  if (header.status !== 'success') {
    missing.push(
      header.status === 'started'
        ? 'the run did not finish (status "started"): samples not written before it stopped are missing'
        : `the run ended with status "${header.status}": samples it did not complete are missing`,
    );
  }
  if (log.headerFromJournal) missing.push('the archive has no header.json: the eval spec comes from _journal/start.json; no stats, results or completion time');
  if (log.samples.length === 0) {
    throw new ImportError(
      `the log holds no samples (status "${header.status}"): there is nothing to import; a plan needs at least one task (FORMAT.md section 3)`,
    );
  }
  if (log.nonFinite > 0) missing.push(`${plural(log.nonFinite, 'non-finite number')} (NaN or Infinity) in the log read as null`);
}

/** The samples in attempt order and their task ids; (id, epoch) must be unique, and so must task ids as strings. */
function samplesInOrder(logSamples: readonly InspectSample[]): { samples: InspectSample[]; tasks: string[] } {
  const samples = [...logSamples].sort((a, b) => compareSampleIds(a.id, b.id) || a.epoch - b.epoch);
  const taskIds = new Map<string, number | string>();
  const slots = new Set<string>();
  for (const s of samples) {
    const taskId = String(s.id);
    const earlier = taskIds.get(taskId);
    if (earlier !== undefined && earlier !== s.id) {
      throw new ImportError(`two sample ids, ${JSON.stringify(earlier)} and ${JSON.stringify(s.id)}, name one task id ${JSON.stringify(taskId)}`);
    }
    taskIds.set(taskId, s.id);
    const slot = `${taskId}\u0000${s.epoch}`;
    if (slots.has(slot)) throw new ImportError(`the log holds sample ${JSON.stringify(s.id)} epoch ${s.epoch} twice`);
    slots.add(slot);
  }
  return { samples, tasks: [...taskIds.keys()] };
}

/** The run's start (stats.started_at, else eval.created; an ImportError when neither) and completion. */
function runTimes(header: InspectHeader): RunTimes {
  const started = utc(header.stats?.started_at, 'stats.started_at') ?? utc(header.eval.created, 'eval.created');
  if (started === null) throw new ImportError('the log records no start time (stats.started_at, eval.created)');
  return { started, completed: utc(header.stats?.completed_at, 'stats.completed_at') };
}

/** Identity: the selector is eval.model; the exact model is what the outputs report (the most frequent). */
function exactModelOf(m: Mapping): string {
  const { samples, missing } = m;
  const reported = new Map<string, number>();
  for (const s of samples) {
    const model = s.output?.model;
    if (typeof model === 'string' && model !== '') reported.set(model, (reported.get(model) ?? 0) + 1);
  }
  const byCount = [...reported].sort((a, b) => b[1] - a[1] || compareUtf8(a[0], b[0]));
  const exactModel = byCount[0]?.[0] ?? m.spec.model;
  if (byCount.length > 1) {
    missing.push(
      `the outputs report ${byCount.length} different models: the plan's model is the one most samples report (${byCount[0]![1]} of ${samples.length}); attempts reporting another fail IDENTITY_MISMATCH`,
    );
  }
  const unreported = samples.filter((s) => !(typeof s.output?.model === 'string' && s.output.model !== '')).length;
  if (unreported > 0) missing.push(`${plural(unreported, 'sample')} without a model reported by its output: attributed to the run's model`);
  return exactModel;
}

/** The inspect_ai version, the harness's and the grader's version; "unknown" when not recorded. */
function inspectVersion(m: Mapping): string {
  const recorded = m.spec.packages?.inspect_ai ?? null;
  if (recorded === null) m.missing.push('no inspect_ai version recorded (packages.inspect_ai): harness and grader version "unknown"');
  return recorded ?? 'unknown';
}

/** Epochs: the configured number (null when none), and the attempts per task: that number raised to the highest epoch present. */
function attemptsPerTask(m: Mapping): { configured: number | null; epochs: number } {
  const maxEpoch = Math.max(...m.samples.map((s) => s.epoch));
  const configured = m.spec.config?.epochs ?? null;
  const epochs = Math.max(configured ?? 1, maxEpoch);
  if (configured === null) m.missing.push(`no epochs configured in the log: attempts per task = ${epochs}, the highest epoch present`);
  else if (maxEpoch > configured) m.missing.push(`epoch ${maxEpoch} is present although ${configured} configured: attempts per task = ${epochs}`);
  return { configured, epochs };
}

/** Planned samples not in the log (by dataset.sample_ids, else results.total_samples), and task x epoch slots without a sample. */
function notePlannedSamples(m: Mapping, configured: number | null, epochs: number): void {
  const { header, samples, tasks, missing } = m;
  const plannedIds = m.spec.dataset?.sample_ids;
  if (plannedIds) {
    // Ids compare as task ids, i.e. as strings: Inspect may list "0" in dataset.sample_ids for a sample whose id is 0
    // (two ids that are one string are refused above, so this identifies nothing that is not one task).
    const plannedTasks = new Set(plannedIds.map((id) => String(id)));
    const planned = plannedTasks.size * (configured ?? epochs);
    const present = samples.filter((s) => plannedTasks.has(String(s.id))).length;
    if (present < planned) missing.push(`${planned - present} of ${planned} planned sample runs (dataset sample_ids x epochs) are not in the log`);
    const unplanned = tasks.filter((t) => !plannedTasks.has(t)).length;
    if (unplanned > 0) missing.push(`${plural(unplanned, 'task')} in the log not among dataset.sample_ids`);
  } else if (typeof header.results?.total_samples === 'number' && header.results.total_samples > samples.length) {
    missing.push(`${header.results.total_samples - samples.length} of ${header.results.total_samples} sample runs counted by results.total_samples are not in the log`);
  }
  const missingEpochs = tasks.length * epochs - samples.length;
  if (missingEpochs > 0) missing.push(`${plural(missingEpochs, 'slot')} (task x epoch) without a sample: left unaccounted`);
}

/**
 * The score key that grades: the name asked for, else the first declared
 * scorer (eval.scorers, then results.scores), else the first key the samples
 * carry; null when there is none. A declared name that no sample carries
 * (R vitals declares `model_graded_qa()` and keys the samples' scores
 * `model_graded_qa() (<grader model>)`) is resolved to the key the samples
 * carry: the only key no eval.scorers name claims, else the only one that begins
 * with the name; when neither is unique, the import is refused with the keys
 * listed (choose one with --scorer).
 */
function chooseScorer(m: Mapping): string | null {
  const { header, options, missing } = m;
  const declared: string[] = [];
  const sampleKeys: string[] = [];
  const add = (list: string[], name: string) => {
    if (!list.includes(name)) list.push(name);
  };
  for (const s of m.spec.scorers ?? []) add(declared, s.name);
  for (const s of header.results?.scores ?? []) add(declared, s.name);
  for (const s of m.samples) for (const name of Object.keys(s.scores ?? {}).sort(compareUtf8)) add(sampleKeys, name);
  const names = [...declared];
  for (const k of sampleKeys) add(names, k);
  const quoted = (list: readonly string[]) => (list.length === 0 ? 'none' : list.map((n) => JSON.stringify(n)).join(', '));
  if (options.scorer !== null && !names.includes(options.scorer)) {
    throw new ImportError(`the log has no scorer named ${JSON.stringify(options.scorer)} (it has ${quoted(names)})`);
  }
  const wanted = options.scorer ?? names[0] ?? null;
  let scorer = wanted;
  if (wanted !== null && sampleKeys.length > 0 && !sampleKeys.includes(wanted)) {
    // A key is claimed when eval.scorers declares a scorer of that very name (results.scores names the keys as carried).
    const unclaimed = sampleKeys.filter((k) => !(m.spec.scorers ?? []).some((s) => s.name === k));
    const prefixed = unclaimed.filter((k) => k.startsWith(wanted));
    const resolved = unclaimed.length === 1 ? unclaimed[0]! : prefixed.length === 1 ? prefixed[0]! : null;
    if (resolved === null) {
      throw new ImportError(
        `no sample carries a score under the scorer name ${JSON.stringify(wanted)}, and which of the keys the samples carry is its score is ambiguous (${quoted(unclaimed.length > 0 ? unclaimed : sampleKeys)}): choose one with --scorer`,
      );
    }
    scorer = resolved;
  }
  // Said whatever the path to the key (a re-run with --scorer <key> gives the same NOTES.md, so the same bundle id).
  if (scorer !== null && (m.spec.scorers ?? []).length > 0 && !(m.spec.scorers ?? []).some((s) => s.name === scorer)) {
    missing.push('the samples key their scores under a name that eval.scorers does not declare: graded by the key the samples carry (the grader id)');
  }
  if (scorer === null) missing.push('the log records no scorer: no attempt has a grade (each fails closed as grader_failure)');
  const others = names.filter((n) => n !== scorer && (sampleKeys.length === 0 || sampleKeys.includes(n) || !declared.includes(n)));
  if (others.length > 0) missing.push(`${plural(others.length, 'other scorer')} not imported (one grading generation grades with one scorer; see --scorer)`);
  return scorer;
}

/** The grader: the scorer's name, the inspect_ai version, and the digest of the scorer's spec with the pass threshold. */
function graderOf(m: Mapping, scorer: string | null, version: string): Grader {
  const { header, spec } = m;
  const scorerSpec =
    scorer === null
      ? null
      : ((spec.scorers ?? []).find((s) => s.name === scorer) ??
        (() => {
          const r = (header.results?.scores ?? []).find((s) => s.name === scorer);
          return r ? { name: r.name, scorer: r.scorer, params: r.params ?? {} } : { name: scorer };
        })());
  return {
    id: scorer ?? 'none',
    version,
    executable: digestCanonical({ scorer: scorerSpec, pass_threshold: m.options.passThreshold }),
  };
}

/** One ledger record per task, in sample order; the epochs of a task must share one input (its prompt). */
function ledgerOf(m: Mapping, started: string): LedgerRecord[] {
  const ledgerRecords: LedgerRecord[] = [];
  const prompts = new Map<string, string>();
  for (const s of m.samples) {
    const taskId = String(s.id);
    const prompt = digestCanonical(s.input);
    const known = prompts.get(taskId);
    if (known !== undefined) {
      if (known !== prompt) throw new ImportError(`sample ${JSON.stringify(s.id)} has different inputs in different epochs: one task cannot have two prompts`);
      continue;
    }
    prompts.set(taskId, prompt);
    ledgerRecords.push(importedLedgerRecord(taskId, prompt, m.options.license, started));
  }
  return ledgerRecords;
}

/** The agent's name: eval.solver, else the plan's solver steps, else inspect_ai. */
function agentName(m: Mapping): string {
  const solverSteps = (m.header.plan?.steps ?? []).map((s) => s.solver);
  return m.spec.solver ?? (solverSteps.length > 0 ? solverSteps.join(' > ') : 'inspect_ai');
}

/** What the harness commit digests: the task, solver, dataset, generation config and limits as the log records them. */
function harnessSpecOf(m: Mapping): Record<string, unknown> {
  const rawEval = m.spec as Record<string, unknown>;
  const rawConfig = rawMember(rawEval, 'config');
  return {
    task: m.spec.task,
    task_version: rawMember(rawEval, 'task_version'),
    task_file: rawMember(rawEval, 'task_file'),
    task_registry_name: rawMember(rawEval, 'task_registry_name'),
    task_args: rawMember(rawEval, 'task_args'),
    task_attribs: rawMember(rawEval, 'task_attribs'),
    solver: rawMember(rawEval, 'solver'),
    solver_args: rawMember(rawEval, 'solver_args'),
    plan: m.header.plan ?? null,
    dataset: { name: rawMember(rawMember(rawEval, 'dataset'), 'name'), location: rawMember(rawMember(rawEval, 'dataset'), 'location') },
    revision: rawMember(rawEval, 'revision'),
    model_generate_config: rawMember(rawEval, 'model_generate_config'),
    limits: Object.fromEntries(['message_limit', 'token_limit', 'time_limit', 'working_limit', 'cost_limit'].map((k) => [k, rawMember(rawConfig, k)])),
  };
}

/** The plan, with its self id: ledger, environment, harness, grader, the one subject, and the import's origin. */
function planOf(
  m: Mapping,
  parts: { started: string; ledgerBytes: Uint8Array; tasks: number; version: string; grader: Grader; subject: Subject; epochs: number; source: Uint8Array },
): Plan {
  const { header, spec } = m;
  const { started, version } = parts;
  const rawEval = spec as Record<string, unknown>;
  const toolPolicy = { approval: rawMember(rawMember(rawEval, 'config'), 'approval'), sandbox: rawMember(rawEval, 'sandbox') };
  const sandboxType = rawMember(spec.sandbox, 'type');
  const seed = spec.model_generate_config?.seed ?? header.plan?.config?.seed ?? null;
  if (seed === null) m.missing.push('no seed recorded: plan seed 0');
  return withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `${spec.task} (imported Inspect log)`,
      created_at: started,
      ledger: { name: spec.dataset?.name ?? spec.task, digest: digestBytes(parts.ledgerBytes), tasks: parts.tasks },
      environment: {
        tool_policy: digestCanonical(toolPolicy),
        wiki: [],
        isolation: typeof sandboxType === 'string' ? `inspect_ai sandbox: ${sandboxType}` : 'inspect_ai: no sandbox recorded',
        session_topology: 'single-session',
      },
      harness: { name: 'inspect_ai', version, commit: digestHex(digestCanonical(harnessSpecOf(m))) },
      grader: { profile: inspectGraderProfile(m.options.passThreshold), ...parts.grader },
      subjects: [parts.subject],
      attempts: parts.epochs,
      budget: null,
      access_tier: 'black_box',
      seed: seed ?? 0,
      origin: importOrigin(INSPECT_ORIGIN_FORMAT, parts.source),
    } satisfies Plan,
    'plan_id',
  );
}

/**
 * One attempt per sample, in order, and a grade result for each sample the
 * scorer scored; the result's input, output and receipt are written into
 * `files` as artifacts. Then what the samples lacked, as counts.
 */
function attemptsAndGrades(
  m: Mapping,
  run: { times: RunTimes; exactModel: string; agent: Subject['agent']; scorer: string | null; files: Map<string, Uint8Array> },
): { attempts: Attempt[]; results: GradeResult[]; usable: number } {
  const { scorer, files } = run;
  const artifact = artifactWriter(files);
  const attempts: Attempt[] = [];
  const results: GradeResult[] = [];
  const counts: SampleCounts = { noUsage: 0, noCost: 0, noTime: 0, ungraded: 0, uninterpretable: 0, errors: 0, limits: 0, invalidated: 0, otherUsage: 0, usable: 0 };
  m.samples.forEach((s, i) => {
    const attemptId = attemptIdOf(i);
    attempts.push(attemptOf(m, s, attemptId, run, counts));
    // A limit the model ran into is a measured failure of the model, graded or not.
    const outcome = sampleOutcome(s);
    if (outcome === 'model_failure' || outcome === 'timeout') counts.usable++;
    const score: InspectScore | undefined = scorer === null ? undefined : (s.scores ?? {})[scorer];
    if (score === undefined) {
      counts.ungraded++;
      return;
    }
    const verdict = scoreVerdict(score.value, m.options.passThreshold);
    if (verdict === 'error') counts.uninterpretable++;
    else if (outcome === 'completed') counts.usable++;
    results.push({
      attempt_id: attemptId,
      verdict,
      input: artifact({ input: s.input, target: s.target, choices: s.choices ?? null }),
      output: artifact(s.output ?? null),
      receipt: artifact(score),
    });
  });
  noteSampleCounts(m.missing, counts, scorer);
  return { attempts, results, usable: counts.usable };
}

/** The attempt of one sample: outcome, times, tokens, retries and cost; what it lacks is tallied in `counts`. */
function attemptOf(
  m: Mapping,
  s: InspectSample,
  attemptId: string,
  run: { times: RunTimes; exactModel: string; agent: Subject['agent'] },
  counts: SampleCounts,
): Attempt {
  const { started, completed } = run.times;
  const model = m.spec.model;
  const outcome = sampleOutcome(s);
  if (outcome === 'invalid_case') counts.invalidated++;
  else if (s.error) counts.errors++;
  else if (s.limit) counts.limits++;
  const sampleStart = utc(s.started_at, `sample ${JSON.stringify(s.id)} started_at`);
  const sampleEnd = utc(s.completed_at, `sample ${JSON.stringify(s.id)} completed_at`);
  const startedAt = sampleStart ?? started;
  const endedAt = sampleEnd ?? (sampleStart !== null ? sampleStart : (completed ?? started));
  let wall: number;
  if (typeof s.total_time === 'number') wall = s.total_time;
  else if (sampleStart !== null && sampleEnd !== null) wall = Math.max(0, Math.round(secondsBetween(sampleStart, sampleEnd) * 1e6) / 1e6);
  else {
    wall = 0;
    counts.noTime++;
  }
  const usageEntries = Object.entries(s.model_usage ?? {});
  const usage: InspectModelUsage | undefined = (s.model_usage ?? {})[model];
  if (usageEntries.some(([other]) => other !== model)) counts.otherUsage++;
  if (!usage) counts.noUsage++;
  const cost = costFromUsd(usage?.total_cost);
  if (cost.state === 'unavailable') counts.noCost++;
  const observed = typeof s.output?.model === 'string' && s.output.model !== '' ? s.output.model : run.exactModel;
  return {
    attempt_id: attemptId,
    task_id: String(s.id),
    model: run.exactModel,
    agent: run.agent,
    index: s.epoch,
    observed_model: observed,
    outcome,
    started_at: startedAt,
    ended_at: endedAt,
    wall_seconds: wall,
    tokens: usage ? { input: usage.input_tokens, output: usage.output_tokens } : null,
    retries: s.error_retries?.length ?? 0,
    cost,
    patch: null,
  };
}

/** What the samples lacked or the import could not carry, one sentence per kind, with its count. */
function noteSampleCounts(missing: string[], counts: SampleCounts, scorer: string | null): void {
  if (counts.invalidated > 0) missing.push(`${plural(counts.invalidated, 'sample')} invalidated after the run: outcome invalid_case`);
  if (counts.errors > 0) missing.push(`${plural(counts.errors, 'sample')} halted by an error: outcome harness_failure`);
  if (counts.limits > 0) missing.push(`${plural(counts.limits, 'sample')} halted by a limit: outcome timeout, cancelled or model_failure`);
  if (scorer !== null && counts.ungraded > 0) missing.push(`${plural(counts.ungraded, 'sample')} without a score from the scorer: no grade (fails closed as grader_failure)`);
  if (counts.uninterpretable > 0) missing.push(`${plural(counts.uninterpretable, 'score')} with a value that is not C, I, P, N, a boolean or a number: verdict error`);
  if (counts.noUsage > 0) missing.push(`${plural(counts.noUsage, 'sample')} without model usage for the run's model: tokens unknown (null)`);
  if (counts.otherUsage > 0) missing.push(`${plural(counts.otherUsage, 'sample')} with usage of other models: not attributed to the attempt`);
  if (counts.noCost > 0) missing.push(`${plural(counts.noCost, 'sample')} without total_cost: cost unavailable`);
  if (counts.noTime > 0) missing.push(`${plural(counts.noTime, 'sample')} without total_time or start and end: wall_seconds 0`);
}

