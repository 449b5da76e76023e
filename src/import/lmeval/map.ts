/**
 * Maps a read lm-evaluation-harness run onto the files of one evidence
 * bundle (FORMAT.md section 9). A pure function of the run's relative paths
 * and bytes, the options and the tool version: no clock, locale or random.
 * docs/importing.md ("lm-evaluation-harness") describes every field.
 *
 * One attempt per (task, doc_id): lm-eval's filters are alternative scorings
 * of one response (closer to grading generations than to attempts), so only
 * the lines of one filter are imported and graded by one metric.
 */
import { createHash } from 'node:crypto';
import { digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import type { JsonValue } from '../../json/strict-json.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import { compareUtf8 } from '../../json/compare.ts';
import type { Attempt, GradeResult, Grader, LedgerRecord, Plan, Subject } from '../../schema/index.ts';
import { ImportError } from '../errors.ts';
import { artifactWriter, attemptIdOf, boundedString, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import type { MappedBundle } from '../importer.ts';
import type { LmEvalRun, SampleLine } from './read-run.ts';
import { graderIdOfRules, NAME, parseGraderId, type Direction, type PerTask, type TaskRule } from './rules.ts';
import { unixToUtc } from './time.ts';

import { LMEVAL_ORIGIN_FORMAT } from './source-reader.ts';

export { LMEVAL_ORIGIN_FORMAT };

/** The grader profile recorded for an lm-eval metric. */
export const LMEVAL_GRADER_PROFILE = 'lm-eval-metric';

/** Options of an import; each one is part of what the bundle id depends on. */
export interface LmEvalOptions {
  license: string;
  /** The per-doc metric that grades (a member of each samples line, e.g. acc, exact_match): for every task, per task; else each task's only metric in the results. */
  metric: PerTask<string>;
  /** The filter whose lines are imported (lm-eval's `filter` member, e.g. none, strict-match): else "none" where a task has it, or the task's only filter. */
  filter: PerTask<string>;
  /** A number at or above (higher is better) or at or below (lower is better) this passes; none: only 0/1 and booleans are read. */
  passThreshold: PerTask<number>;
  maxStringBytes: number;
}

export const DEFAULT_FILTER = 'none';

type Verdict = 'pass' | 'fail' | 'error';

/**
 * The verdict of one per-doc metric value. Higher is better: a boolean is
 * itself; a number passes at or above the threshold, or, without one, is 1
 * (pass) or 0 (fail). Lower is better (always with a threshold): a number
 * passes at or below it; a boolean has no order against it. Anything else
 * (a list, as corpus-level metrics such as f1 and bleu log their inputs; a
 * string; null) is `error`.
 */
export function metricVerdict(value: unknown, passThreshold: number | null, direction: Direction = 'higher'): Verdict {
  if (typeof value === 'boolean') return direction === 'lower' ? 'error' : value ? 'pass' : 'fail';
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (passThreshold !== null) return (direction === 'lower' ? value <= passThreshold : value >= passThreshold) ? 'pass' : 'fail';
    if (value === 1) return 'pass';
    if (value === 0) return 'fail';
  }
  return 'error';
}

export { parseGraderId };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function member(object: unknown, key: string): unknown {
  if (!isObject(object)) return null;
  const value = object[key];
  return value === undefined ? null : value;
}

/** `pretrained=x,dtype=y` (lm-eval's string form) or an object: the `pretrained` (or `model`) argument. */
function pretrainedOf(modelArgs: unknown): string | null {
  if (isObject(modelArgs)) {
    for (const key of ['pretrained', 'model']) if (typeof modelArgs[key] === 'string' && modelArgs[key] !== '') return modelArgs[key];
    return null;
  }
  if (typeof modelArgs !== 'string') return null;
  for (const part of modelArgs.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    if (eq > 0 && (key === 'pretrained' || key === 'model') && part.slice(eq + 1).trim() !== '') return part.slice(eq + 1).trim();
  }
  return null;
}

/** One imported doc: its task, line and metric value. */
interface Doc {
  task: string;
  taskId: string;
  line: SampleLine;
  value: unknown;
}

/** Maps a read run to bundle files. Throws ImportError when it cannot be mapped honestly. */
export function mapLmEvalRun(run: LmEvalRun, options: LmEvalOptions, skipped: number): MappedBundle {
  const { results } = run;
  const missing: string[] = [];
  const bounded = (text: string, what: string) => boundedString(text, options.maxStringBytes, what);

  if (results.date === null || results.date === undefined) {
    throw new ImportError(`${run.resultsPath} records no run start (date): the plan's created_at must be the run's own start, and none is invented`);
  }
  const started = unixToUtc(results.date);
  if (started === null) throw new ImportError(`${run.resultsPath} date ${String(results.date)} is not a Unix time between 1970 and 9999`);

  const { docs, rules, directions, otherFilterLines, otherMetrics } = docsOf(run, options);
  for (const [task, rule] of rules) {
    const values = docs.filter((d) => d.task === task).map((d) => d.value);
    const numeric = values.filter((v) => typeof v === 'number' && Number.isFinite(v)) as number[];
    const booleans = rule.direction === 'lower' ? 0 : values.filter((v) => typeof v === 'boolean').length;
    if (numeric.length + booleans === 0) {
      throw new ImportError(
        `no doc of task ${JSON.stringify(task)} has a number${rule.direction === 'lower' ? '' : ' or a boolean'} as its ${rule.metric} value (filter ${rule.filter}): lm-eval aggregates such a metric over the corpus (f1, bleu, word_perplexity and the like log their inputs per doc), so there is no per-doc pass or fail to import; choose a per-doc metric with --metric`,
      );
    }
    const continuous = numeric.filter((v) => v !== 0 && v !== 1);
    if (continuous.length > 0 && rule.threshold === null) {
      throw new ImportError(
        `the metric ${rule.metric} of task ${JSON.stringify(task)} (filter ${rule.filter}) is continuous (${plural(continuous.length, 'doc')} with a value other than 0 or 1): give --pass-threshold N (a value >= N passes), or choose a 0/1 metric with --metric`,
      );
    }
  }

  // Ledger: one task per (task, doc_id), tasks in byte order, docs by doc_id.
  let fallbackPrompts = 0;
  const ledger: LedgerRecord[] = docs.map((d) => {
    const prompt = promptDigest(d);
    if (prompt.fallback) fallbackPrompts++;
    return importedLedgerRecord(d.taskId, prompt.digest, options.license, started);
  });
  const ledgerBytes = jsonlBytes(ledger);

  const config = results.config ?? {};
  const name = results.model_name || pretrainedOf(config.model_args) || config.model || null;
  if (name === null) missing.push('no model name recorded (model_name, model_args pretrained, config.model): the subject is "unknown"');
  const modelName = bounded(name ?? 'unknown', 'the model name');
  const sha = typeof config.model_sha === 'string' && config.model_sha !== '' ? bounded(config.model_sha, 'the model revision (model_sha)') : null;
  if (sha === null) missing.push('no model revision (config.model_sha) recorded: the subject is the model name alone');
  const model = sha === null ? modelName : `${modelName}@${sha}`;
  const version = bounded(results.lm_eval_version || 'unknown', 'lm_eval_version');
  if (!results.lm_eval_version) missing.push('no lm_eval_version recorded: harness and grader version "unknown"');
  const backend = bounded(config.model || 'unknown', 'the model backend (config.model)');
  const subject: Subject = { selector: modelName, model, agent: { name: `lm-evaluation-harness ${backend}`, version }, role: 'candidate' };

  const tasks = [...rules.keys()];
  const grader: Grader = {
    id: bounded(graderIdOfRules(rules), 'the grader id'),
    version,
    executable: digestCanonical({
      // Per task: the rule applied, and how the task computes and filters the metric, as the results file records it (metric_list, filter_list).
      tasks: tasks.map((t) => {
        const rule = rules.get(t)!;
        const cfg = member(results.configs ?? null, t);
        return {
          task: t,
          metric: rule.metric,
          filter: rule.filter,
          higher_is_better: rule.direction === 'higher',
          pass_threshold: rule.threshold,
          metric_list: member(cfg, 'metric_list'),
          filter_list: member(cfg, 'filter_list'),
          output_type: member(cfg, 'output_type'),
        };
      }),
    }),
  };
  const seed = config.random_seed ?? null;
  if (seed === null) missing.push('no random_seed recorded: plan seed 0');

  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `${tasks.length === 1 ? tasks[0]! : `${tasks[0]!} and ${plural(tasks.length - 1, 'more task')}`} (imported lm-eval run)`,
      created_at: started,
      ledger: { name: tasks.length === 1 ? tasks[0]! : `lm-eval: ${tasks.join(', ')}`, digest: digestBytes(ledgerBytes), tasks: ledger.length },
      environment: {
        tool_policy: digestCanonical({ harness: 'lm-evaluation-harness', tools: null }),
        wiki: [],
        isolation: 'lm-evaluation-harness: no tools, no sandbox',
        session_topology: 'single-session',
      },
      harness: { name: 'lm-evaluation-harness', version, commit: digestHex(digestCanonical(harnessSpecOf(run, tasks))) },
      grader: { profile: LMEVAL_GRADER_PROFILE, ...grader },
      subjects: [subject],
      attempts: 1,
      budget: null,
      access_tier: 'black_box',
      seed: seed ?? 0,
      origin: importOrigin(LMEVAL_ORIGIN_FORMAT, run.resultsBytes),
    } satisfies Plan,
    'plan_id',
  );

  const files = new Map<string, Uint8Array>();
  const artifact = artifactWriter(files);
  const attempts: Attempt[] = [];
  const gradeResults: GradeResult[] = [];
  let usable = 0;
  let uninterpretable = 0;
  docs.forEach((d, i) => {
    const attemptId = attemptIdOf(i);
    attempts.push({
      attempt_id: attemptId,
      task_id: d.taskId,
      model,
      agent: subject.agent,
      index: 1,
      observed_model: model,
      outcome: 'completed',
      started_at: started,
      ended_at: started,
      wall_seconds: 0,
      tokens: null,
      retries: 0,
      cost: { state: 'unavailable', micros: null },
      patch: null,
    });
    const rule = rules.get(d.task)!;
    const verdict = metricVerdict(d.value, rule.threshold, rule.direction);
    if (verdict === 'error') uninterpretable++;
    else usable++;
    const s = d.line.sample;
    gradeResults.push({
      attempt_id: attemptId,
      verdict,
      input: artifact({ doc: s.doc ?? null, target: s.target ?? null, arguments: s.arguments ?? null }),
      output: artifact({ resps: s.resps ?? null, filtered_resps: s.filtered_resps ?? null, filter: s.filter ?? DEFAULT_FILTER }),
      receipt: artifact({
        metric: rule.metric,
        filter: rule.filter,
        value: d.value ?? null,
        higher_is_better: rule.direction === 'higher',
        pass_threshold: rule.threshold,
        doc_hash: s.doc_hash ?? null,
        prompt_hash: s.prompt_hash ?? null,
        target_hash: s.target_hash ?? null,
      }),
    });
  });

  // What the run did not have, in fixed words and counts (NOTES.md is rendered on the site).
  const n = docs.length;
  missing.push(`${plural(n, 'doc')} without a start or end time: each attempt starts and ends at the run start (the results file's date), wall_seconds 0`);
  missing.push(`${plural(n, 'doc')} without token counts: tokens unknown (null)`);
  missing.push(`${plural(n, 'doc')} without a cost: cost unavailable`);
  missing.push('no per-doc model report: observed_model is the run\'s model; no retry counts: retries 0');
  if (fallbackPrompts > 0) missing.push(`${plural(fallbackPrompts, 'doc')} without a usable prompt_hash: prompt digest of the doc and arguments as recorded`);
  if (uninterpretable > 0) missing.push(`${plural(uninterpretable, 'doc')} whose metric value the rule cannot read (not a number or a boolean; a boolean under a lower-is-better metric): verdict error`);
  noteDirections(directions, rules, missing);
  if (otherFilterLines > 0) missing.push(`${plural(otherFilterLines, 'sample line')} under other filters not imported (a filter is another scoring of the same response; see --filter)`);
  if (otherMetrics > 0) missing.push(`${plural(otherMetrics, 'other metric')} not imported (one grading generation grades each task with one metric; see --metric)`);
  const unkept: string[] = [];
  noteRunFiles(run, tasks, skipped, missing, unkept);
  if (run.nonFinite > 0) missing.push(`${plural(run.nonFinite, 'non-finite number')} (NaN or Infinity) in the files read as null`);

  files.set(`source/${run.resultsPath}`, run.resultsBytes);
  for (const t of run.tasks) files.set(`source/${t.path}`, t.bytes);
  return finishImport({
    files,
    plan,
    ledgerBytes,
    attempts,
    grades: { created_at: started, grader, results: gradeResults },
    notes: {
      heading: 'Imported lm-evaluation-harness run',
      format: 'lm-eval',
      source: `lm-evaluation-harness results file and its samples files, kept byte for byte under \`source/\` (the results file is the first)`,
    },
    missing,
    unkept,
    usable,
    summary: { status: 'not recorded', tasks: ledger.length, epochs: 1, scorer: grader.id },
  });
}

/** Where each task's direction came from: the results file's higher_is_better (true or false), or the default (absent or null). */
export type DirectionSource = 'results' | 'default';

/**
 * Each task's filter: the flag's (for the task, else for every task); else
 * "none" where the task has lines under it, else the task's only filter;
 * else refused with the list. A filter read from the file must be one a
 * flag can name, so that the re-run flags give the same rule.
 */
function filterOf(t: LmEvalRun['tasks'][number], options: LmEvalOptions): string {
  const given = options.filter.tasks.get(t.task) ?? options.filter.all;
  if (given !== null) return given;
  const filters = [...new Set(t.lines.map((l) => l.sample.filter ?? DEFAULT_FILTER))].sort(compareUtf8);
  if (filters.includes(DEFAULT_FILTER)) return DEFAULT_FILTER;
  if (filters.length > 1) {
    throw new ImportError(
      `task ${JSON.stringify(t.task)} has samples under ${filters.length} filters and none is "none" (it has: ${listed(filters)}): choose one with --filter (for this task: --filter ${t.task}=NAME)`,
    );
  }
  if (!NAME.test(filters[0]!)) throw new ImportError(`task ${JSON.stringify(t.task)} has samples under the filter ${JSON.stringify(filters[0]!.slice(0, 60))}, a name --filter cannot give: not imported`);
  return filters[0]!;
}

function listed(names: readonly string[]): string {
  return names.slice(0, 20).map((n) => JSON.stringify(n.slice(0, 60))).join(', ') + (names.length > 20 ? `, and ${names.length - 20} more` : '');
}

/**
 * Each task's metric: the flag's (for the task, else for every task); else
 * the one metric the results file names for the task under its filter
 * (`<metric>,<filter>` keys, stderr excluded); none or several are refused
 * with the list: the default is never a name the results file does not have.
 */
function metricOf(task: string, filter: string, entry: Record<string, unknown>, options: LmEvalOptions): string {
  const given = options.metric.tasks.get(task) ?? options.metric.all;
  if (given !== null) return given;
  const names = [
    ...new Set(
      Object.keys(entry)
        .filter((k) => k.endsWith(`,${filter}`))
        .map((k) => k.slice(0, k.length - filter.length - 1))
        .filter((m) => m !== '' && !m.endsWith('_stderr')),
    ),
  ].sort(compareUtf8);
  if (names.length === 1 && NAME.test(names[0]!)) return names[0]!;
  if (names.length === 0) {
    throw new ImportError(`the results file names no metric of task ${JSON.stringify(task)} under the filter ${JSON.stringify(filter)}: choose one with --metric (for this task: --metric ${task}=NAME)`);
  }
  if (names.length === 1) throw new ImportError(`the results file's metric of task ${JSON.stringify(task)} is ${JSON.stringify(names[0]!.slice(0, 60))}, a name --metric cannot give: not imported`);
  throw new ImportError(
    `task ${JSON.stringify(task)} has ${names.length} metrics in the results file (${listed(names)}) under the filter ${JSON.stringify(filter)}: choose one with --metric (for this task: --metric ${task}=NAME)`,
  );
}

/** A task's direction for its metric: the results file's higher_is_better, else higher by default. */
function directionOf(run: LmEvalRun, task: string, metric: string): { direction: Direction; source: DirectionSource } {
  const recorded = run.results.higher_is_better?.[task];
  const value = recorded !== undefined && Object.hasOwn(recorded, metric) ? recorded[metric] : null;
  if (value === true) return { direction: 'higher', source: 'results' };
  if (value === false) return { direction: 'lower', source: 'results' };
  return { direction: 'higher', source: 'default' };
}

/** Every task a per-task flag names must be a task of the run (one with a samples file). */
function checkNamedTasks(run: LmEvalRun, options: LmEvalOptions): void {
  const present = new Set(run.tasks.map((t) => t.task));
  for (const [flag, values] of [['metric', options.metric], ['filter', options.filter], ['pass-threshold', options.passThreshold]] as const) {
    for (const task of values.tasks.keys()) {
      if (!present.has(task)) {
        throw new ImportError(`--${flag} names the task ${JSON.stringify(task)}, which this run has no samples file for (its tasks: ${listed([...present])})`);
      }
    }
  }
}

/**
 * The docs of each task's filter, task by task (byte order), by doc_id, and
 * each task's rule; each task must be in the results, carry its metric on
 * every line, and hold as many docs as the results say it evaluated.
 */
function docsOf(
  run: LmEvalRun,
  options: LmEvalOptions,
): { docs: Doc[]; rules: Map<string, TaskRule>; directions: Map<string, DirectionSource>; otherFilterLines: number; otherMetrics: number } {
  checkNamedTasks(run, options);
  const docs: Doc[] = [];
  const rules = new Map<string, TaskRule>();
  const directions = new Map<string, DirectionSource>();
  let otherFilterLines = 0;
  const others = new Set<string>();
  for (const t of run.tasks) {
    boundedString(t.task, options.maxStringBytes, 'a task name');
    const entry = run.results.results[t.task];
    if (entry === undefined) {
      throw new ImportError(`${t.path} is the samples file of task ${JSON.stringify(t.task)}, which ${run.resultsPath} does not list in its results: the files are not one run`);
    }
    const filter = filterOf(t, options);
    const chosen = t.lines.filter((l) => (l.sample.filter ?? DEFAULT_FILTER) === filter);
    otherFilterLines += t.lines.length - chosen.length;
    if (chosen.length === 0) {
      const filters = [...new Set(t.lines.map((l) => l.sample.filter ?? DEFAULT_FILTER))].sort(compareUtf8);
      throw new ImportError(`task ${JSON.stringify(t.task)} has no samples under the filter ${JSON.stringify(filter)} (it has: ${listed(filters)}): choose one with --filter`);
    }
    const metric = metricOf(t.task, filter, entry, options);
    const { direction, source } = directionOf(run, t.task, metric);
    const threshold = options.passThreshold.tasks.get(t.task) ?? options.passThreshold.all;
    if (direction === 'lower' && threshold === null) {
      throw new ImportError(
        `the metric ${metric} of task ${JSON.stringify(t.task)} is lower-is-better (the results file's higher_is_better is false): give --pass-threshold N (a value <= N passes; for this task: --pass-threshold ${t.task}=N)`,
      );
    }
    rules.set(t.task, { metric, filter, direction, threshold });
    directions.set(t.task, source);
    const seen = new Set<number>();
    for (const l of chosen) {
      if (seen.has(l.sample.doc_id)) throw new ImportError(`${t.path} holds doc_id ${l.sample.doc_id} twice under the filter ${JSON.stringify(filter)} (line ${l.line})`);
      seen.add(l.sample.doc_id);
      if (!Object.hasOwn(l.raw, metric)) {
        throw new ImportError(
          `${t.path} line ${l.line} has no value for the metric ${JSON.stringify(metric)} (its metrics: ${metricCandidates(l, entry)}): choose one with --metric and --filter`,
        );
      }
      for (const m of l.sample.metrics ?? []) if (m !== metric) others.add(`${t.task}\u0000${m}`);
    }
    const effective = run.results['n-samples']?.[t.task]?.effective;
    if (effective !== undefined && effective !== chosen.length) {
      throw new ImportError(
        `${t.path} holds ${plural(chosen.length, 'doc')} under the filter ${JSON.stringify(filter)}, but ${run.resultsPath} says task ${JSON.stringify(t.task)} evaluated ${effective} (n-samples effective): the files are not one run`,
      );
    }
    chosen.sort((a, b) => a.sample.doc_id - b.sample.doc_id);
    for (const l of chosen) docs.push({ task: t.task, taskId: `${t.task}/${l.sample.doc_id}`, line: l, value: l.raw[metric] });
  }
  return { docs, rules, directions, otherFilterLines, otherMetrics: others.size };
}

/** NOTES.md: how many tasks were graded in each direction, and why (the results file's higher_is_better, or the default). */
function noteDirections(directions: ReadonlyMap<string, DirectionSource>, rules: ReadonlyMap<string, TaskRule>, missing: string[]): void {
  const count = (direction: Direction, source: DirectionSource) => [...rules].filter(([t, r]) => r.direction === direction && directions.get(t) === source).length;
  const recordedHigher = count('higher', 'results');
  const lower = count('lower', 'results');
  const defaulted = count('higher', 'default');
  if (recordedHigher > 0) missing.push(`${plural(recordedHigher, 'task')} graded higher-is-better, as the results file's higher_is_better says for the metric`);
  if (lower > 0) missing.push(`${plural(lower, 'task')} graded lower-is-better, as the results file's higher_is_better (false) says for the metric: a value at or below --pass-threshold passes`);
  if (defaulted > 0) missing.push(`${plural(defaulted, 'task')} graded higher-is-better by default: the results file records no higher_is_better for the metric`);
}

/** The metric keys a line or its task's results offer, as `metric,filter` pairs, for a refusal message. */
function metricCandidates(line: SampleLine, entry: Record<string, unknown>): string {
  const filter = line.sample.filter ?? DEFAULT_FILTER;
  const names = new Set<string>();
  for (const m of line.sample.metrics ?? []) names.add(`${m},${filter}`);
  for (const key of Object.keys(entry)) if (key.includes(',') && !key.includes('_stderr,')) names.add(key);
  const list = [...names].sort(compareUtf8);
  return list.length === 0 ? 'none' : list.slice(0, 20).map((n) => JSON.stringify(n)).join(', ');
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The prompt digest of a doc: lm-eval's prompt_hash is the SHA-256 of the
 * first request's context (arguments.gen_args_0.arg_0); it is checked
 * against that text where the line records it, and a mismatch refuses the
 * run. Without a usable prompt_hash: the canonical digest of {doc, arguments}.
 */
function promptDigest(d: Doc): { digest: string; fallback: boolean } {
  const s = d.line.sample;
  const hash = typeof s.prompt_hash === 'string' && HEX64.test(s.prompt_hash) ? s.prompt_hash : null;
  if (hash === null) return { digest: digestCanonical({ doc: s.doc ?? null, arguments: s.arguments ?? null }), fallback: true };
  const context = member(member(s.arguments, 'gen_args_0'), 'arg_0');
  if (typeof context === 'string' && createHash('sha256').update(context, 'utf8').digest('hex') !== hash) {
    throw new ImportError(`doc ${JSON.stringify(d.taskId)}: its prompt_hash is not the SHA-256 of its prompt (arguments.gen_args_0.arg_0): the line contradicts itself`);
  }
  return { digest: `sha256:${hash}`, fallback: false };
}

/** What the harness commit digests: each imported task's config, version, shots and hash, and the run's settings, as recorded. */
function harnessSpecOf(run: LmEvalRun, tasks: readonly string[]): Record<string, JsonValue | unknown> {
  const raw = run.rawResults;
  const config = member(raw, 'config');
  return {
    tasks: tasks.map((t) => ({
      task: t,
      config: member(member(raw, 'configs'), t),
      version: member(member(raw, 'versions'), t),
      n_shot: member(member(raw, 'n-shot'), t),
      task_hash: member(member(raw, 'task_hashes'), t),
    })),
    git_hash: member(raw, 'git_hash'),
    settings: Object.fromEntries(
      ['limit', 'gen_kwargs', 'random_seed', 'numpy_seed', 'torch_seed', 'fewshot_seed', 'bootstrap_iters'].map((k) => [k, member(config, k)]),
    ),
    prompting: Object.fromEntries(['system_instruction_sha', 'chat_template_sha', 'fewshot_as_multiturn'].map((k) => [k, member(raw, k)])),
  };
}

/** The results' tasks and groups that have no samples (in NOTES.md), and the files of the directory not read (`unkept`: on the command line only). */
function noteRunFiles(run: LmEvalRun, tasks: readonly string[], skipped: number, missing: string[], unkept: string[]): void {
  const imported = new Set(tasks);
  const groups = Object.entries(run.results.group_subtasks ?? {}).filter(([, subtasks]) => subtasks.length > 0).map(([g]) => g);
  const groupSet = new Set(groups);
  const leaves = Object.keys(run.results['n-samples'] ?? run.results.results).filter((t) => !groupSet.has(t));
  const without = leaves.filter((t) => !imported.has(t)).length;
  if (without > 0) missing.push(`${plural(without, 'task')} in the results without a samples file: not imported`);
  const presentGroups = groups.filter((g) => Object.hasOwn(run.results.results, g)).length;
  if (presentGroups > 0) missing.push(`${plural(presentGroups, 'group')} in the results (aggregates over subtasks): not tasks; every subtask with samples is imported on its own`);
  if (run.ignored > 0) unkept.push(`${plural(run.ignored, 'other file')} of the directory not read (other runs, files in subfolders, anything but this run's files): not kept`);
  if (skipped > 0) unkept.push(`${plural(skipped, 'hidden entry', 'hidden entries')} of the directory skipped, never read`);
}
