/**
 * Maps a read Inspect log onto the files of one evidence bundle (FORMAT.md,
 * section 9: imported evidence). A pure function of the log, the original
 * bytes, the options and the tool version: no clock, no locale, no random.
 * docs/importing.md is the field-by-field description of what this does.
 */
import { canonicalBytes, digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import { compareUtf8 } from '../../evidence/paths.ts';
import { jsonlBytes, prettyJson, withSelfId } from '../../evidence/seal.ts';
import { NAME, VERSION } from '../../version.ts';
import type { Attempt, CostState, LedgerRecord, Outcome, Plan } from '../../schema/index.ts';
import { ImportError } from '../errors.ts';
import type { InspectLog } from './read-log.ts';
import type { InspectModelUsage, InspectSample, InspectScore } from './schema.ts';
import { secondsBetween, toUtcTimestamp } from './time.ts';

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

/** The `origin.format` of Inspect imports. */
export const INSPECT_ORIGIN_FORMAT = 'inspect-eval-log';

/** The grader profile recorded for an Inspect scorer. */
export const INSPECT_GRADER_PROFILE = 'inspect-scorer';

/** What the import produced and what the log did not have. */
export interface ImportSummary {
  /** The log's status as recorded (started, success, cancelled, error). */
  status: string;
  tasks: number;
  attempts: number;
  /** Planned attempts per task (the epochs). */
  epochs: number;
  /** The graded score's name, or null when the log records no scorer. */
  scorer: string | null;
  /** One sentence per thing the log lacked or the import could not carry, fixed words and counts only. */
  missing: string[];
}

/** A mapped bundle: its files (manifest excluded), plan id and summary. */
export interface MappedBundle {
  files: Map<string, Uint8Array>;
  planId: string;
  summary: ImportSummary;
}

/** Fixed bundle path of the original log, by format: never chosen by log text. */
export function sourcePath(format: InspectLog['format']): string {
  return `source/inspect-log.${format}`;
}

type Verdict = 'pass' | 'fail' | 'error';

/** The verdict of one Inspect score value (docs/importing.md, "Scores"). */
export function scoreVerdict(value: unknown, passThreshold: number): Verdict {
  if (value === 'C') return 'pass';
  if (value === 'I' || value === 'P' || value === 'N') return 'fail';
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

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Maps a log to bundle files. Throws ImportError when the log holds nothing a bundle can carry. */
export function mapInspectLog(log: InspectLog, source: Uint8Array, options: ImportOptions = DEFAULT_IMPORT_OPTIONS): MappedBundle {
  const { header } = log;
  const spec = header.eval;
  const missing: string[] = [];
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

  // Samples: unique (id, epoch); task ids unique as strings.
  const samples = [...log.samples].sort((a, b) => compareSampleIds(a.id, b.id) || a.epoch - b.epoch);
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

  // Times.
  const started = utc(header.stats?.started_at, 'stats.started_at') ?? utc(spec.created, 'eval.created');
  if (started === null) throw new ImportError('the log records no start time (stats.started_at, eval.created)');
  const completed = utc(header.stats?.completed_at, 'stats.completed_at');

  // Identity: the selector is eval.model; the exact model is what the outputs report (the most frequent).
  const reported = new Map<string, number>();
  for (const s of samples) {
    const model = s.output?.model;
    if (typeof model === 'string' && model !== '') reported.set(model, (reported.get(model) ?? 0) + 1);
  }
  const byCount = [...reported].sort((a, b) => b[1] - a[1] || compareUtf8(a[0], b[0]));
  const exactModel = byCount[0]?.[0] ?? spec.model;
  if (byCount.length > 1) {
    missing.push(
      `the outputs report ${byCount.length} different models: the plan's model is the one most samples report (${byCount[0]![1]} of ${samples.length}); attempts reporting another fail IDENTITY_MISMATCH`,
    );
  }
  const unreported = samples.filter((s) => !(typeof s.output?.model === 'string' && s.output.model !== '')).length;
  if (unreported > 0) missing.push(`${plural(unreported, 'sample')} without a model reported by its output: attributed to the run's model`);

  const inspectVersion = spec.packages?.inspect_ai ?? null;
  if (inspectVersion === null) missing.push('no inspect_ai version recorded (packages.inspect_ai): harness and grader version "unknown"');
  const version = inspectVersion ?? 'unknown';

  // Epochs: the configured number, raised to the highest epoch present.
  const maxEpoch = Math.max(...samples.map((s) => s.epoch));
  const configured = spec.config?.epochs ?? null;
  const epochs = Math.max(configured ?? 1, maxEpoch);
  if (configured === null) missing.push(`no epochs configured in the log: attempts per task = ${epochs}, the highest epoch present`);
  else if (maxEpoch > configured) missing.push(`epoch ${maxEpoch} is present although ${configured} configured: attempts per task = ${epochs}`);

  // Planned samples not in the log.
  const tasks = [...taskIds.keys()];
  const plannedIds = spec.dataset?.sample_ids;
  if (plannedIds) {
    const planned = plannedIds.length * (configured ?? epochs);
    const present = samples.filter((s) => plannedIds.some((id) => id === s.id)).length;
    if (present < planned) missing.push(`${planned - present} of ${planned} planned sample runs (dataset sample_ids x epochs) are not in the log`);
    const unplanned = tasks.filter((t) => !plannedIds.some((id) => String(id) === t)).length;
    if (unplanned > 0) missing.push(`${plural(unplanned, 'task')} in the log not among dataset.sample_ids`);
  } else if (typeof header.results?.total_samples === 'number' && header.results.total_samples > samples.length) {
    missing.push(`${header.results.total_samples - samples.length} of ${header.results.total_samples} sample runs counted by results.total_samples are not in the log`);
  }
  const missingEpochs = tasks.length * epochs - samples.length;
  if (missingEpochs > 0) missing.push(`${plural(missingEpochs, 'slot')} (task x epoch) without a sample: left unaccounted`);

  // Scorer: by name, in the order eval.scorers, results.scores, then the samples' own score names.
  const scorerNames: string[] = [];
  const addName = (name: string) => {
    if (!scorerNames.includes(name)) scorerNames.push(name);
  };
  for (const s of spec.scorers ?? []) addName(s.name);
  for (const s of header.results?.scores ?? []) addName(s.name);
  for (const s of samples) for (const name of Object.keys(s.scores ?? {}).sort(compareUtf8)) addName(name);
  if (options.scorer !== null && !scorerNames.includes(options.scorer)) {
    throw new ImportError(`the log has no scorer named ${JSON.stringify(options.scorer)} (it has ${scorerNames.length === 0 ? 'none' : scorerNames.map((n) => JSON.stringify(n)).join(', ')})`);
  }
  const scorer = options.scorer ?? scorerNames[0] ?? null;
  if (scorer === null) missing.push('the log records no scorer: no attempt has a grade (each fails closed as grader_failure)');
  const others = scorerNames.filter((n) => n !== scorer);
  if (others.length > 0) missing.push(`${plural(others.length, 'other scorer')} not imported (one grading generation grades with one scorer; see --scorer)`);
  const scorerSpec =
    scorer === null
      ? null
      : ((spec.scorers ?? []).find((s) => s.name === scorer) ??
        (() => {
          const r = (header.results?.scores ?? []).find((s) => s.name === scorer);
          return r ? { name: r.name, scorer: r.scorer, params: r.params ?? {} } : { name: scorer };
        })());
  const grader = {
    id: scorer ?? 'none',
    version,
    executable: digestCanonical({ scorer: scorerSpec, pass_threshold: options.passThreshold }),
  };

  // Plan.
  const solverSteps = (header.plan?.steps ?? []).map((s) => s.solver);
  const agentName = spec.solver ?? (solverSteps.length > 0 ? solverSteps.join(' > ') : 'inspect_ai');
  const rawEval = spec as Record<string, unknown>;
  const rawConfig = rawMember(rawEval, 'config');
  const harnessSpec = {
    task: spec.task,
    task_version: rawMember(rawEval, 'task_version'),
    task_file: rawMember(rawEval, 'task_file'),
    task_registry_name: rawMember(rawEval, 'task_registry_name'),
    task_args: rawMember(rawEval, 'task_args'),
    task_attribs: rawMember(rawEval, 'task_attribs'),
    solver: rawMember(rawEval, 'solver'),
    solver_args: rawMember(rawEval, 'solver_args'),
    plan: header.plan ?? null,
    dataset: { name: rawMember(rawMember(rawEval, 'dataset'), 'name'), location: rawMember(rawMember(rawEval, 'dataset'), 'location') },
    revision: rawMember(rawEval, 'revision'),
    model_generate_config: rawMember(rawEval, 'model_generate_config'),
    limits: Object.fromEntries(['message_limit', 'token_limit', 'time_limit', 'working_limit', 'cost_limit'].map((k) => [k, rawMember(rawConfig, k)])),
  };
  const toolPolicy = { approval: rawMember(rawConfig, 'approval'), sandbox: rawMember(rawEval, 'sandbox') };
  const sandboxType = rawMember(spec.sandbox, 'type');
  const seed = spec.model_generate_config?.seed ?? header.plan?.config?.seed ?? null;
  if (seed === null) missing.push('no seed recorded: plan seed 0');

  const ledgerRecords: LedgerRecord[] = [];
  const prompts = new Map<string, string>();
  for (const s of samples) {
    const taskId = String(s.id);
    const prompt = digestCanonical(s.input);
    const known = prompts.get(taskId);
    if (known !== undefined) {
      if (known !== prompt) throw new ImportError(`sample ${JSON.stringify(s.id)} has different inputs in different epochs: one task cannot have two prompts`);
      continue;
    }
    prompts.set(taskId, prompt);
    ledgerRecords.push({
      task_id: taskId,
      repo: null,
      base_sha: null,
      prompt_sha256: prompt,
      failing_tests: null,
      failing_assertion: null,
      oracle_sha256: null,
      license: options.license,
      difficulty: null,
      holdout: true,
      cluster_id: taskId,
      created_at: started,
    });
  }
  const ledgerBytes = jsonlBytes(ledgerRecords);

  const subject = { selector: spec.model, model: exactModel, agent: { name: agentName, version }, role: 'candidate' as const };
  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `${spec.task} (imported Inspect log)`,
      created_at: started,
      ledger: { name: spec.dataset?.name ?? spec.task, digest: digestBytes(ledgerBytes), tasks: ledgerRecords.length },
      environment: {
        tool_policy: digestCanonical(toolPolicy),
        wiki: [],
        isolation: typeof sandboxType === 'string' ? `inspect_ai sandbox: ${sandboxType}` : 'inspect_ai: no sandbox recorded',
        session_topology: 'single-session',
      },
      harness: { name: 'inspect_ai', version, commit: digestHex(digestCanonical(harnessSpec)) },
      grader: { profile: INSPECT_GRADER_PROFILE, ...grader },
      subjects: [subject],
      attempts: epochs,
      budget: null,
      access_tier: 'black_box',
      seed: seed ?? 0,
      origin: { kind: 'imported', format: INSPECT_ORIGIN_FORMAT, source: digestBytes(source), tool: { name: NAME, version: VERSION } },
    } satisfies Plan,
    'plan_id',
  );

  // Attempts and grades.
  const files = new Map<string, Uint8Array>();
  const artifact = (value: unknown): string => {
    const bytes = canonicalBytes(value ?? null);
    const digest = digestBytes(bytes);
    files.set(`artifacts/${digestHex(digest)}.json`, bytes);
    return digest;
  };
  const attempts: Attempt[] = [];
  const results: { attempt_id: string; verdict: Verdict; input: string; output: string; receipt: string }[] = [];
  const counts = { noUsage: 0, noCost: 0, noTime: 0, ungraded: 0, uninterpretable: 0, errors: 0, limits: 0, invalidated: 0, otherUsage: 0 };
  samples.forEach((s, i) => {
    const attemptId = `a-${String(i + 1).padStart(6, '0')}`;
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
    const usage: InspectModelUsage | undefined = (s.model_usage ?? {})[spec.model];
    if (usageEntries.some(([model]) => model !== spec.model)) counts.otherUsage++;
    if (!usage) counts.noUsage++;
    let cost: { state: CostState; micros: number | null };
    if (usage && typeof usage.total_cost === 'number') {
      const micros = Math.round(usage.total_cost * 1e6);
      cost = micros === 0 ? { state: 'zero', micros: 0 } : { state: 'complete', micros };
    } else {
      cost = { state: 'unavailable', micros: null };
      counts.noCost++;
    }
    const observed = typeof s.output?.model === 'string' && s.output.model !== '' ? s.output.model : exactModel;
    attempts.push({
      attempt_id: attemptId,
      task_id: String(s.id),
      model: exactModel,
      agent: subject.agent,
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
    });
    const score: InspectScore | undefined = scorer === null ? undefined : (s.scores ?? {})[scorer];
    if (score === undefined) {
      counts.ungraded++;
      return;
    }
    const verdict = scoreVerdict(score.value, options.passThreshold);
    if (verdict === 'error') counts.uninterpretable++;
    results.push({
      attempt_id: attemptId,
      verdict,
      input: artifact({ input: s.input, target: s.target, choices: s.choices ?? null }),
      output: artifact(s.output ?? null),
      receipt: artifact(score),
    });
  });
  if (counts.invalidated > 0) missing.push(`${plural(counts.invalidated, 'sample')} invalidated after the run: outcome invalid_case`);
  if (counts.errors > 0) missing.push(`${plural(counts.errors, 'sample')} halted by an error: outcome harness_failure`);
  if (counts.limits > 0) missing.push(`${plural(counts.limits, 'sample')} halted by a limit: outcome timeout, cancelled or model_failure`);
  if (scorer !== null && counts.ungraded > 0) missing.push(`${plural(counts.ungraded, 'sample')} without a score from the scorer: no grade (fails closed as grader_failure)`);
  if (counts.uninterpretable > 0) missing.push(`${plural(counts.uninterpretable, 'score')} with a value that is not C, I, P, N, a boolean or a number: verdict error`);
  if (counts.noUsage > 0) missing.push(`${plural(counts.noUsage, 'sample')} without model usage for the run's model: tokens unknown (null)`);
  if (counts.otherUsage > 0) missing.push(`${plural(counts.otherUsage, 'sample')} with usage of other models: not attributed to the attempt`);
  if (counts.noCost > 0) missing.push(`${plural(counts.noCost, 'sample')} without total_cost: cost unavailable`);
  if (counts.noTime > 0) missing.push(`${plural(counts.noTime, 'sample')} without total_time or start and end: wall_seconds 0`);

  files.set('plan.json', prettyJson(plan));
  files.set('ledger.jsonl', ledgerBytes);
  files.set('attempts.jsonl', jsonlBytes(attempts));
  files.set(
    'grades/1.json',
    prettyJson({ schema: 'ledgerboard.grades.v1', generation: 1, created_at: completed ?? started, grader, results }),
  );
  files.set(sourcePath(log.format), source);
  files.set('NOTES.md', Buffer.from(notes(log, missing), 'utf8'));
  return {
    files,
    planId: plan.plan_id,
    summary: { status: header.status, tasks: ledgerRecords.length, attempts: attempts.length, epochs, scorer, missing },
  };
}

/** NOTES.md: provenance and what is missing, in fixed words and counts (no log text: it is rendered on the site). */
function notes(log: InspectLog, missing: string[]): string {
  const lines = [
    '# Imported Inspect AI eval log',
    '',
    `This bundle was imported by ${NAME} ${VERSION} (\`ledgerboard import inspect\`) from the`,
    `Inspect AI eval log kept byte for byte as \`${sourcePath(log.format)}\`; the plan's`,
    '`origin.source` is its SHA-256. It was never frozen before the run: there is no',
    'declared budget and no freeze to check attempts against, and it never ranks',
    'against frozen evidence. docs/importing.md describes every mapped field.',
    '',
    '## What the log did not have',
    '',
    ...(missing.length === 0 ? ['Nothing the mapping uses was missing.'] : missing.map((m) => `- ${m}`)),
    '',
  ];
  return lines.join('\n');
}
