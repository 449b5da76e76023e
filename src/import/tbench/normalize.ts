/**
 * Brings both Terminal-Bench layouts to one shape (a run of trials with an
 * outcome, a verdict, times, tokens and cost each), and cross-checks each
 * layout's own aggregate against its trials. map.ts turns that shape into a
 * bundle. Pure functions: no clock, no locale, no random.
 * docs/importing.md ("Terminal-Bench") is the description of every rule here.
 */
import { compareUtf8 } from '../../json/compare.ts';
import { digestCanonical, digestHex } from '../../json/canonical.ts';
import type { Outcome } from '../../schema/index.ts';
import { boundedString, plural } from '../text.ts';
import { ImportError } from '../errors.ts';
import { instantMs, toUtcTimestamp } from '../time.ts';
import type { HarborRun, Tb1Run } from './read.ts';
import type { HarborTrial, Tb1Trial } from './schema.ts';

export type Verdict = 'pass' | 'fail' | 'error';

/** One trial, in the shape both layouts share. */
export interface Trial {
  taskId: string;
  trialName: string;
  /** The directory of the trial's own result file in the input (its log files are beside it), or null when the run has none for it. */
  dir: string | null;
  /** The ledger's prompt digest of the trial's task. */
  prompt: string;
  outcome: Outcome;
  verdict: Verdict;
  /** The verifier failed (a test timeout, unparsable test output, a verifier error): not graded, verdict error. */
  verifierFailed: boolean;
  /** An outcome class the importer does not know (an unknown failure mode or exception type): harness_failure. */
  unknownKind: boolean;
  /**
   * Resolved although the source records a failure (an agent timeout, say):
   * the failure's words for NOTES.md (tb1ModeWords, harborTypeWords), else
   * null. Such a trial is `completed` and passes, as the source counts it.
   */
  resolvedDespite: string | null;
  startedAt: string | null;
  endedAt: string | null;
  /** Null when unknown; `zeroTokens` when it is null because the source wrote 0 and 0. */
  tokens: { input: number; output: number } | null;
  zeroTokens: boolean;
  /** The source's dollar figure (undefined when the layout records none). */
  costUsd: number | null | undefined;
  model: string;
  gradeInput: unknown;
  gradeOutput: unknown;
  receipt: unknown;
}

/** A run, in the shape both layouts share. */
export interface Run {
  layout: 'tb1' | 'harbor';
  trials: Trial[];
  created: string;
  completed: string | null;
  title: string;
  ledgerName: string;
  selector: string;
  model: string;
  agent: { name: string; version: string };
  harness: { name: string; version: string; commit: string };
  grader: { profile: string; id: string; version: string; executable: string };
  toolPolicy: string;
  isolation: string;
  /** Attempts per task the run configured (n_attempts), or null when not recorded. */
  configuredAttempts: number | null;
  status: string;
  missing: string[];
}

/** Import options that change the bundle. */
export interface TbenchOptions {
  license: string;
  /** A Harbor reward at or above this passes; null: only rewards of exactly 0 and 1 are accepted. */
  passThreshold: number | null;
  /** The flag's text as given (kept in the grader id, so the site's re-run command gives it back). */
  passThresholdText: string | null;
}

function utc(text: string | null | undefined, what: string): string | null {
  if (text === null || text === undefined || text === '') return null;
  const ts = toUtcTimestamp(text);
  if (ts === null) throw new ImportError(`${what} ${JSON.stringify(text.slice(0, 80))} is not a timestamp with a UTC offset`);
  return ts;
}

function rawMember(object: unknown, key: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return null;
  const value = (object as Record<string, unknown>)[key];
  return value === undefined ? null : value;
}

/** Tokens from an input and an output count: unknown (null) when either is missing, and when both are 0 ("not measured"). */
function tokensOf(input: number | null | undefined, output: number | null | undefined): { tokens: Trial['tokens']; zero: boolean } {
  if (typeof input !== 'number' || typeof output !== 'number') return { tokens: null, zero: false };
  if (input === 0 && output === 0) return { tokens: null, zero: true };
  return { tokens: { input, output }, zero: false };
}

/** The earliest and latest of some UTC timestamps, compared as instants (fraction digits vary, so not as strings). */
function extremes(times: readonly (string | null)[]): { first: string | null; last: string | null } {
  const known = times.filter((t): t is string => t !== null).map((t) => ({ t, ms: instantMs(t) }));
  known.sort((a, b) => a.ms - b.ms || compareUtf8(a.t, b.t));
  return { first: known[0]?.t ?? null, last: known[known.length - 1]?.t ?? null };
}


/** Each task's trials must share one prompt (instruction, or task checksum): one task cannot have two. */
function checkPrompts(trials: readonly Trial[]): void {
  const prompts = new Map<string, string>();
  for (const t of trials) {
    const known = prompts.get(t.taskId);
    if (known !== undefined && known !== t.prompt) {
      throw new ImportError(`the task ${JSON.stringify(t.taskId.slice(0, 200))} has trials with different instructions or task checksums: one task cannot have two prompts`);
    }
    prompts.set(t.taskId, t.prompt);
  }
}

// ---------------------------------------------------------------- Terminal-Bench 1

/** TB1 failure modes (terminal_bench/harness/models.py FailureMode) and their outcome. */
const TB1_VERIFIER_FAILURES = new Set(['test_timeout', 'parse_error']);
const TB1_MODEL_FAILURES = new Set(['context_length_exceeded', 'output_length_exceeded', 'fatal_llm_parse_error']);
const TB1_HARNESS_FAILURES = new Set(['unknown_agent_error', 'unknown', 'agent_installation_failed']);

/** The TB1 failure modes the importer knows (terminal_bench/harness/models.py FailureMode). */
const TB1_KNOWN_MODES = new Set(['unset', 'none', 'agent_timeout', ...TB1_VERIFIER_FAILURES, ...TB1_MODEL_FAILURES, ...TB1_HARNESS_FAILURES]);

/**
 * The outcome of a TB1 trial from its failure mode and is_resolved, whether
 * its tests did not finish (a verifier failure: only when is_resolved is
 * null), and whether the mode is known. A trial with is_resolved true is
 * `completed` whatever its failure mode: TB1's harness sets is_resolved only
 * after the tests ran and their output was parsed (also after an agent
 * timeout), and TB1's own accuracy counts it resolved.
 */
export function tb1Outcome(mode: string | null | undefined, isResolved?: boolean | null): { outcome: Outcome; verifierFailed: boolean; known: boolean } {
  const known = mode === null || mode === undefined || TB1_KNOWN_MODES.has(mode);
  if (isResolved === true) return { outcome: 'completed', verifierFailed: false, known };
  const graded = isResolved === false;
  if (mode === null || mode === undefined || mode === 'unset' || mode === 'none') return { outcome: 'completed', verifierFailed: false, known };
  if (mode === 'agent_timeout') return { outcome: 'timeout', verifierFailed: false, known };
  if (TB1_VERIFIER_FAILURES.has(mode)) return { outcome: 'completed', verifierFailed: !graded, known };
  if (TB1_MODEL_FAILURES.has(mode)) return { outcome: 'model_failure', verifierFailed: false, known };
  return { outcome: 'harness_failure', verifierFailed: false, known };
}

/** The TB1 verdict: is_resolved alone, whatever the failure mode (true pass, false fail); null or absent is error (not graded). */
export function tb1Verdict(isResolved: boolean | null | undefined): Verdict {
  if (isResolved === null || isResolved === undefined) return 'error';
  return isResolved ? 'pass' : 'fail';
}

/** The words NOTES.md names a failure mode by: a known mode's own name, never an unknown one's text (untrusted). */
export function tb1ModeWords(mode: string | null | undefined): string {
  if (mode === null || mode === undefined) return 'no failure mode';
  return TB1_KNOWN_MODES.has(mode) ? `failure_mode ${mode}` : 'a failure mode the importer does not know';
}

/** Normalises a TB1 run directory; throws ImportError when its aggregate disagrees with its trials. */
export function normalizeTb1(run: Tb1Run, maxStringBytes: number): Run {
  const missing: string[] = [];
  const meta = run.metadata;
  if (run.trials.length === 0) throw new ImportError('the run\'s results.json holds no trials: there is nothing to import; a plan needs at least one task (FORMAT.md section 3)');
  checkTb1Aggregate(run);
  if (meta === null) missing.push('no run_metadata.json: no model, agent, dataset, start or end time of the run recorded (see the lines below)');
  const model = meta?.model_name ?? null;
  if (model === null) missing.push('no model recorded (run_metadata model_name): subject model "unknown"');
  const agentName = meta?.agent_name ?? null;
  if (agentName === null) missing.push('no agent recorded (run_metadata agent_name): agent name "unknown"');
  missing.push('a Terminal-Bench 1 run records no agent version and no harness version: both "unknown"');
  const runModel = boundedString(model ?? 'unknown', maxStringBytes, 'the model name');
  const trials = run.trials.map((t) => tb1Trial(t, runModel, maxStringBytes, run.trialDirs.get(t.trial_name) ?? null));
  checkPrompts(trials);
  const times = extremes(trials.flatMap((t) => [t.startedAt, t.endedAt]));
  const start = utc(meta?.start_time, 'run_metadata start_time');
  let created = start;
  if (created === null) {
    created = extremes(trials.map((t) => t.startedAt)).first;
    if (created === null) throw new ImportError('the run records no start time (run_metadata start_time, trial_started_at): its evidence cannot be dated');
    missing.push('no run start time (run_metadata start_time): the plan\'s created_at is the earliest trial start');
  }
  const completed = utc(meta?.end_time, 'run_metadata end_time') ?? times.last;
  const dataset = meta?.dataset_name ?? null;
  const ledgerName = boundedString(dataset === null ? 'terminal-bench' : meta?.dataset_version ? `${dataset}==${meta.dataset_version}` : dataset, maxStringBytes, 'the dataset name');
  const runId = meta?.run_id ?? run.results.id ?? null;
  const rawMeta = meta as Record<string, unknown> | null;
  const spec = {
    layout: 'terminal-bench-1',
    dataset_name: rawMember(rawMeta, 'dataset_name'),
    dataset_version: rawMember(rawMeta, 'dataset_version'),
    dataset_path: rawMember(rawMeta, 'dataset_path'),
    agent_name: rawMember(rawMeta, 'agent_name'),
    agent_kwargs: rawMember(rawMeta, 'agent_kwargs'),
    model_name: rawMember(rawMeta, 'model_name'),
    n_attempts: rawMember(rawMeta, 'n_attempts'),
    commit_hash: rawMember(rawMeta, 'commit_hash'),
  };
  return {
    layout: 'tb1',
    trials,
    created,
    completed,
    title: `${boundedString(runId ?? 'run', maxStringBytes, 'the run id')} (imported Terminal-Bench 1 run)`,
    ledgerName,
    selector: runModel,
    model: runModel,
    agent: { name: boundedString(agentName ?? 'unknown', maxStringBytes, 'the agent name'), version: 'unknown' },
    harness: { name: 'terminal-bench', version: '1 (run directory; harness version not recorded)', commit: digestHex(digestCanonical(spec)) },
    grader: {
      profile: 'terminal-bench-tests',
      id: 'is_resolved',
      version: 'unknown',
      executable: digestCanonical({ layout: 'terminal-bench-1', verdict: 'is_resolved: every test of the task passed' }),
    },
    toolPolicy: digestCanonical({ layout: 'terminal-bench-1', tool_access: null }),
    isolation: 'terminal-bench 1: not recorded in the run directory',
    configuredAttempts: meta?.n_attempts ?? null,
    status: meta?.end_time ? 'finished' : 'not recorded',
    missing,
  };
}

function tb1Trial(t: Tb1Trial, model: string, maxStringBytes: number, dir: string | null): Trial {
  const { outcome, verifierFailed, known } = tb1Outcome(t.failure_mode, t.is_resolved);
  const { tokens, zero } = tokensOf(t.total_input_tokens, t.total_output_tokens);
  const name = JSON.stringify(t.trial_name.slice(0, 200));
  const startedAt = utc(t.trial_started_at, `trial ${name} trial_started_at`);
  const endedAt = utc(t.trial_ended_at, `trial ${name} trial_ended_at`);
  return {
    taskId: boundedString(t.task_id, maxStringBytes, 'a task id'),
    trialName: boundedString(t.trial_name, maxStringBytes, 'a trial name'),
    dir,
    prompt: digestCanonical(t.instruction),
    outcome,
    verdict: tb1Verdict(t.is_resolved),
    verifierFailed,
    unknownKind: !known && outcome === 'harness_failure',
    resolvedDespite: t.is_resolved === true && t.failure_mode && t.failure_mode !== 'unset' && t.failure_mode !== 'none' ? tb1ModeWords(t.failure_mode) : null,
    startedAt,
    endedAt,
    tokens,
    zeroTokens: zero,
    costUsd: undefined,
    model,
    gradeInput: { task_id: t.task_id, instruction: t.instruction },
    gradeOutput: { parser_results: t.parser_results ?? null },
    receipt: { is_resolved: t.is_resolved ?? null, failure_mode: t.failure_mode ?? null, parser_results: t.parser_results ?? null },
  };
}

/** n_resolved, n_unresolved, resolved_ids, unresolved_ids and accuracy must be what the trials say. */
function checkTb1Aggregate(run: Tb1Run): void {
  const { results, trials } = run;
  const resolved = trials.filter((t) => t.is_resolved === true);
  const others = trials.filter((t) => t.is_resolved !== true);
  const disagree = (what: string) => new ImportError(`the run's aggregate disagrees with its trials: ${what}; refusing rather than choosing one`);
  if (typeof results.n_resolved === 'number' && results.n_resolved !== resolved.length) {
    throw disagree(`n_resolved is ${results.n_resolved}, the trials resolve ${resolved.length}`);
  }
  if (typeof results.n_unresolved === 'number' && results.n_unresolved !== others.length) {
    throw disagree(`n_unresolved is ${results.n_unresolved}, ${others.length} trials are not resolved`);
  }
  const sameIds = (listed: readonly string[], of: readonly Tb1Trial[]) => {
    const a = [...listed].sort(compareUtf8);
    const b = of.map((t) => t.task_id).sort(compareUtf8);
    return a.length === b.length && a.every((x, i) => x === b[i]);
  };
  if (results.resolved_ids && !sameIds(results.resolved_ids, resolved)) throw disagree('resolved_ids are not the task ids of the resolved trials');
  if (results.unresolved_ids && !sameIds(results.unresolved_ids, others)) throw disagree('unresolved_ids are not the task ids of the unresolved trials');
  const rate = resolved.length / trials.length;
  for (const [what, accuracy] of [
    ['accuracy', results.accuracy],
    ['run_metadata accuracy', run.metadata?.accuracy],
  ] as const) {
    if (typeof accuracy === 'number' && Math.abs(accuracy - rate) > 1e-9) throw disagree(`${what} is ${accuracy}, the trials resolve ${resolved.length} of ${trials.length}`);
  }
}

// ---------------------------------------------------------------- Harbor

/** Harbor exception types (harbor/trial/trial.py, verifier/verifier.py) that mean the verifier produced no reward. */
const HARBOR_VERIFIER_FAILURES = new Set([
  'VerifierTimeoutError',
  'VerifierOutputParseError',
  'RewardFileNotFoundError',
  'RewardFileEmptyError',
  'AddTestsDirError',
  'DownloadVerifierDirError',
  'TestCommandError',
]);
const HARBOR_MODEL_FAILURES = new Set(['ContextLengthExceededError', 'OutputLengthExceededError']);
const HARBOR_CANCELLED = new Set(['CancelledError', 'KeyboardInterrupt']);
const HARBOR_HARNESS_FAILURES = new Set(['NonZeroAgentExitCodeError', 'AgentSetupTimeoutError', 'RuntimeError', 'Exception']);

/** The outcome of a Harbor exception type (null: no exception), whether it is a verifier failure, and whether the type is known. */
export function harborOutcome(type: string | null | undefined): { outcome: Outcome; verifierFailed: boolean; known: boolean } {
  if (type === null || type === undefined) return { outcome: 'completed', verifierFailed: false, known: true };
  if (type === 'AgentTimeoutError') return { outcome: 'timeout', verifierFailed: false, known: true };
  if (HARBOR_VERIFIER_FAILURES.has(type)) return { outcome: 'completed', verifierFailed: true, known: true };
  if (HARBOR_MODEL_FAILURES.has(type)) return { outcome: 'model_failure', verifierFailed: false, known: true };
  if (HARBOR_CANCELLED.has(type)) return { outcome: 'cancelled', verifierFailed: false, known: true };
  if (/^Environment[A-Za-z]*Error$/.test(type)) return { outcome: 'environment_failure', verifierFailed: false, known: true };
  return { outcome: 'harness_failure', verifierFailed: false, known: HARBOR_HARNESS_FAILURES.has(type) };
}

/** The Harbor verdict of a reward: 1 passes and 0 fails; any other value only against --pass-threshold; none (or a verifier failure) is error. */
export function harborVerdict(reward: number | null | undefined, verifierFailed: boolean, threshold: number | null): Verdict {
  if (verifierFailed || reward === null || reward === undefined) return 'error';
  if (threshold !== null) return reward >= threshold ? 'pass' : 'fail';
  if (reward === 1) return 'pass';
  if (reward === 0) return 'fail';
  return 'error';
}

function harborModel(t: HarborTrial): string | null {
  const info = t.agent_info?.model_info;
  if (info?.name) return info.provider ? `${info.provider}/${info.name}` : info.name;
  return t.config?.agent?.model_name ?? null;
}

/** Normalises a Harbor job; throws ImportError when its aggregate disagrees with its trials or it mixes subjects. */
export function normalizeHarbor(run: HarborRun, options: TbenchOptions, maxStringBytes: number): Run {
  const missing: string[] = [];
  const { job } = run;
  if (run.trials.length === 0) throw new ImportError('the job holds no trial result.json: there is nothing to import; a plan needs at least one task (FORMAT.md section 3)');
  const nonBinary = run.trials.find((t) => {
    const r = t.verifier_result?.rewards?.reward;
    return typeof r === 'number' && r !== 0 && r !== 1;
  });
  if (nonBinary !== undefined && options.passThreshold === null) {
    throw new ImportError(
      `the trial ${JSON.stringify(nonBinary.trial_name.slice(0, 200))} has the non-binary reward ${nonBinary.verifier_result!.rewards!.reward}: give --pass-threshold N (a reward >= N passes) to grade this job`,
    );
  }
  checkHarborAggregate(run, missing);
  const subjects = new Map<string, { model: string | null; name: string | null; version: string | null }>();
  for (const t of run.trials) {
    const s = { model: harborModel(t), name: t.agent_info?.name ?? t.config?.agent?.name ?? null, version: t.agent_info?.version ?? null };
    subjects.set(JSON.stringify(s), s);
  }
  if (subjects.size > 1) {
    throw new ImportError(`the job's trials name ${subjects.size} different agents or models: a bundle holds one subject; split the job's trial directories by agent and model and import each`);
  }
  const subject = [...subjects.values()][0]!;
  if (subject.model === null) missing.push('no model recorded (agent_info.model_info, config.agent.model_name): subject model "unknown"');
  if (subject.name === null) missing.push('no agent recorded (agent_info.name): agent name "unknown"');
  if (subject.version === null) missing.push('no agent version recorded (agent_info.version): agent version "unknown"');
  const model = boundedString(subject.model ?? 'unknown', maxStringBytes, 'the model name');
  const selectors = new Set(run.trials.map((t) => t.config?.agent?.model_name ?? null));
  const selector = selectors.size === 1 && [...selectors][0] ? boundedString([...selectors][0]!, maxStringBytes, 'the model name') : model;
  const trials = run.trials.map((t, i) => harborTrial(t, model, options.passThreshold, maxStringBytes, run.trialDirs[i] ?? null));
  checkPrompts(trials);
  const noChecksum = run.trials.filter((t) => !t.task_checksum).length;
  if (noChecksum > 0) missing.push(`${plural(noChecksum, 'trial')} without a task_checksum: the task's prompt digest covers its name only`);
  const times = extremes(trials.flatMap((t) => [t.startedAt, t.endedAt]));
  let created = job.started_at ? toUtcTimestamp(job.started_at) : null;
  if (created === null) {
    created = extremes(trials.map((t) => t.startedAt)).first;
    if (created === null) throw new ImportError('the job records no start time with a UTC offset (job or trial started_at): its evidence cannot be dated');
    missing.push(
      job.started_at
        ? 'the job\'s started_at has no UTC offset (it names no instant): the plan\'s created_at is the earliest trial start'
        : 'no job start time (started_at): the plan\'s created_at is the earliest trial start',
    );
  }
  const jobEnd = job.finished_at ? toUtcTimestamp(job.finished_at) : null;
  const completed = jobEnd ?? times.last;
  const sources = [...new Set(run.trials.map((t) => t.source ?? null).filter((s): s is string => s !== null))].sort(compareUtf8);
  const ledgerName = boundedString(sources.length === 1 ? sources[0]! : 'harbor job', maxStringBytes, 'the dataset name');
  const environment = rawMember(run.config, 'environment') ?? (run.trials[0]!.config?.environment as unknown) ?? null;
  const envType = rawMember(environment, 'type');
  const threshold = options.passThresholdText;
  return {
    layout: 'harbor',
    trials,
    created,
    completed,
    title: `${ledgerName} (imported Harbor job)`,
    ledgerName,
    selector,
    model,
    agent: {
      name: boundedString(subject.name ?? 'unknown', maxStringBytes, 'the agent name'),
      version: boundedString(subject.version ?? 'unknown', maxStringBytes, 'the agent version'),
    },
    harness: { name: 'harbor', version: 'job directory (harness version not recorded)', commit: digestHex(digestCanonical({ layout: 'harbor', config: run.config })) },
    grader: {
      profile: 'harbor-verifier',
      id: threshold === null ? 'reward' : `reward>=${threshold}`,
      version: 'unknown',
      executable: digestCanonical({ layout: 'harbor', reward: 'verifier_result.rewards.reward', pass_threshold: options.passThreshold }),
    },
    toolPolicy: digestCanonical({ layout: 'harbor', environment }),
    isolation: typeof envType === 'string' ? `harbor environment: ${boundedString(envType, maxStringBytes, 'the environment type')}` : 'harbor: no environment recorded',
    configuredAttempts: typeof rawMember(run.config, 'n_attempts') === 'number' && Number.isInteger(rawMember(run.config, 'n_attempts')) && (rawMember(run.config, 'n_attempts') as number) >= 1 ? (rawMember(run.config, 'n_attempts') as number) : null,
    status: job.finished_at ? 'finished' : 'not finished',
    missing,
  };
}

/** The words NOTES.md names an exception type by: a known type's own name, never an unknown one's text (untrusted). */
export function harborTypeWords(type: string): string {
  return harborOutcome(type).known ? `exception ${type}` : 'an exception type the importer does not know';
}

function harborTrial(t: HarborTrial, model: string, threshold: number | null, maxStringBytes: number, dir: string | null): Trial {
  const type = t.exception_info?.exception_type;
  const kind = harborOutcome(type);
  const { known, verifierFailed } = kind;
  const usage = t.agent_result ?? null;
  const { tokens, zero } = tokensOf(usage?.n_input_tokens, usage?.n_output_tokens);
  const name = JSON.stringify(t.trial_name.slice(0, 200));
  const reward = t.verifier_result?.rewards?.reward;
  const verdict = harborVerdict(reward, verifierFailed, threshold);
  // A reward that passes is the verifier's word: the trial is resolved whatever the exception (an agent timeout, say), as Harbor's own mean counts it.
  const outcome = verdict === 'pass' ? 'completed' : kind.outcome;
  return {
    taskId: boundedString(t.task_name, maxStringBytes, 'a task name'),
    trialName: boundedString(t.trial_name, maxStringBytes, 'a trial name'),
    dir,
    prompt: digestCanonical({ task_name: t.task_name, task_checksum: t.task_checksum ?? null }),
    outcome,
    verdict,
    verifierFailed,
    unknownKind: !known && outcome === 'harness_failure',
    resolvedDespite: verdict === 'pass' && type ? harborTypeWords(type) : null,
    startedAt: utc(t.started_at, `trial ${name} started_at`),
    endedAt: utc(t.finished_at, `trial ${name} finished_at`),
    tokens,
    zeroTokens: zero,
    costUsd: usage?.cost_usd ?? null,
    model,
    gradeInput: { task_name: t.task_name, task_checksum: t.task_checksum ?? null, source: t.source ?? null },
    gradeOutput: { verifier_result: t.verifier_result ?? null },
    receipt: { rewards: t.verifier_result?.rewards ?? null, exception_type: t.exception_info?.exception_type ?? null, pass_threshold: threshold },
  };
}

/** n_total_trials and each eval's reward_stats must agree with the trials present. */
function checkHarborAggregate(run: HarborRun, missing: string[]): void {
  const { job, trials } = run;
  const disagree = (what: string) => new ImportError(`the job's aggregate disagrees with its trials: ${what}; refusing rather than choosing one`);
  const total = job.n_total_trials;
  if (typeof total === 'number') {
    if (total < trials.length) throw disagree(`n_total_trials is ${total}, the job holds ${trials.length} trial results`);
    if (total > trials.length) missing.push(`${total - trials.length} of the ${total} trials the job counts (n_total_trials) have no result.json: not imported`);
  } else missing.push('the job does not count its trials (n_total_trials): trials that never wrote a result.json cannot be told apart');
  const byName = new Map(trials.map((t) => [t.trial_name, t]));
  for (const stats of Object.values(job.stats?.evals ?? {})) {
    for (const [key, values] of Object.entries(stats.reward_stats?.reward ?? {})) {
      for (const trialName of values) {
        const t = byName.get(trialName);
        if (t === undefined) throw disagree(`reward_stats name the trial ${JSON.stringify(trialName.slice(0, 200))}, which has no result.json in the job`);
        const recorded = t.verifier_result?.rewards?.reward ?? null;
        const listed = key === 'None' || key === 'null' ? null : Number(key);
        if (recorded !== listed) {
          throw disagree(`reward_stats give the trial ${JSON.stringify(trialName.slice(0, 200))} the reward ${JSON.stringify(key.slice(0, 40))}, its result.json another`);
        }
      }
    }
  }
}
