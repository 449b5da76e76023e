/**
 * Maps a read Every Eval Ever input (aggregate + samples sidecar) onto the
 * files of one evidence bundle (FORMAT.md section 9). A pure function of the
 * two files' relative paths and bytes, the options and the tool version: no
 * clock, no locale, no random. docs/importing.md ("Every Eval Ever") is the
 * field-by-field description.
 *
 * One task per sample id; the schema records no repetitions, so one attempt
 * per task. A sample scored by K metrics appears K times in the sidecar (one
 * row per aggregate result): those rows are K scorings of one attempt, and
 * one of them (the metric chosen with --metric) grades it.
 */
import { digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import { compareUtf8 } from '../../json/compare.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import type { Attempt, GradeResult, Grader, LedgerRecord, Plan, Subject } from '../../schema/index.ts';
import { ImportError } from '../errors.ts';
import { artifactWriter, attemptIdOf, boundedString, costFromUsd, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import type { MappedBundle } from '../importer.ts';
import type { EeeAggregateFile, EeeSidecar } from './read.ts';
import type { EeeAggregate, EeeResult, EeeRow } from './schema.ts';
import { eeeTimestamp } from './time.ts';
import { eeePassRule, linkResult, metricKey } from './metric.ts';

export { eeePassRule, linkResult, metricKey };

import { EEE_ORIGIN_FORMAT } from './source-reader.ts';

export { EEE_ORIGIN_FORMAT };

/** Options of an import; each one is part of what the bundle id depends on. */
export interface EeeOptions {
  license: string;
  /** The metric (a row's evaluation_result_id, else its evaluation_name) that grades; the only one when null. */
  metric: string | null;
  /** Pass threshold for a metric not marked binary: score >= it passes (<= when lower_is_better). */
  passThreshold: number | null;
  maxStringBytes: number;
}

type Verdict = 'pass' | 'fail' | 'error';

/** How the graded metric decides: `is_correct` for a binary metric, else the threshold on `score`. */
export type PassRule = { kind: 'is_correct' } | { kind: 'threshold'; threshold: number; lowerIsBetter: boolean; unknownLevel: boolean };

/** The verdict of one row under a rule (docs/importing.md, "What passes"). */
export function rowVerdict(row: Pick<EeeRow, 'evaluation'>, rule: PassRule): Verdict {
  if (rule.kind === 'is_correct') return row.evaluation.is_correct ? 'pass' : 'fail';
  const { score } = row.evaluation;
  if (rule.unknownLevel && score === -1) return 'error';
  return (rule.lowerIsBetter ? score <= rule.threshold : score >= rule.threshold) ? 'pass' : 'fail';
}

/** Compares task ids made from sample ids: integers first in numeric order, then strings in UTF-8 byte order. */
function compareSampleIds(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareUtf8(a, b);
}

function member(object: unknown, key: string): unknown {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return null;
  const value = (object as Record<string, unknown>)[key];
  return value === undefined ? null : value;
}

/** One task: its id, the sample id as recorded, its rows (file order) and the row of the graded metric. */
interface Task {
  id: string;
  sampleId: number | string;
  rows: EeeRow[];
  graded: EeeRow | null;
}

/** The metric that grades: --metric, else the only one in the sidecar; an ImportError listing the candidates otherwise. */
function chooseMetric(rows: readonly EeeRow[], wanted: string | null): { key: string; keys: string[] } {
  const keys = [...new Set(rows.map(metricKey))];
  const list = (): string => `${keys.slice(0, 20).map((k) => JSON.stringify(k.slice(0, 120))).join(', ')}${keys.length > 20 ? ', ...' : ''}`;
  if (wanted !== null) {
    if (!keys.includes(wanted)) throw new ImportError(`--metric ${JSON.stringify(wanted.slice(0, 120))} scores no row of the sidecar; its metrics are ${list()}`);
    return { key: wanted, keys };
  }
  if (keys.length > 1) throw new ImportError(`the sidecar scores its samples with ${keys.length} metrics (${list()}): choose the one that grades with --metric NAME`);
  return { key: keys[0]!, keys };
}

/** The pass rule of the graded metric from its metric_config; an ImportError when a needed threshold is missing. */
function passRule(result: EeeResult, key: string, threshold: number | null): PassRule {
  const config = result.metric_config;
  if (config.score_type === 'binary') return { kind: 'is_correct' };
  if (threshold === null) {
    throw new ImportError(
      `the graded metric ${JSON.stringify(key.slice(0, 120))} is ${config.score_type === undefined ? 'not marked binary (no score_type)' : `score_type "${config.score_type}"`}: give --pass-threshold N (a score >= N passes${config.lower_is_better ? '; this metric is lower_is_better, so a score <= N passes' : ''})`,
    );
  }
  return { kind: 'threshold', threshold, lowerIsBetter: config.lower_is_better, unknownLevel: config.score_type === 'levels' && config.has_unknown_level === true };
}

/** The grader profile: the rule in words, from which the re-run flags are read back. */
export function graderProfile(rule: PassRule): string {
  return rule.kind === 'is_correct' ? 'every-eval-ever is_correct' : `every-eval-ever score ${rule.lowerIsBetter ? '<=' : '>='} ${String(rule.threshold)}`;
}


/** The run's start: evaluation_timestamp, else the graded result's, else retrieved_timestamp (said). */
function runStart(aggregate: EeeAggregate, result: EeeResult, missing: string[]): string {
  const convert = (text: string, what: string): string => {
    const ts = eeeTimestamp(text);
    if (ts === null) throw new ImportError(`${what} ${JSON.stringify(text.slice(0, 60))} is neither Unix epoch seconds nor a timestamp with a UTC offset`);
    return ts;
  };
  if (aggregate.evaluation_timestamp !== undefined) return convert(aggregate.evaluation_timestamp, 'evaluation_timestamp');
  if (result.evaluation_timestamp !== undefined) {
    missing.push("no top-level evaluation_timestamp: the run's start is the graded result's evaluation_timestamp");
    return convert(result.evaluation_timestamp, "the graded result's evaluation_timestamp");
  }
  missing.push("no evaluation_timestamp: the run's start is retrieved_timestamp, when the record was written, not when the evaluation ran");
  return convert(aggregate.retrieved_timestamp, 'retrieved_timestamp');
}

/** Tasks in sample-id order; a sample with the graded metric twice, or two ids of one string, is refused. */
function tasksOf(rows: readonly EeeRow[], key: string, maxStringBytes: number): Task[] {
  const tasks = new Map<string, Task>();
  for (const row of rows) {
    const id = boundedString(String(row.sample_id), maxStringBytes, 'a sample_id');
    let task = tasks.get(id);
    if (task === undefined) {
      task = { id, sampleId: row.sample_id, rows: [], graded: null };
      tasks.set(id, task);
    } else if (task.sampleId !== row.sample_id) {
      throw new ImportError(`two sample ids, ${JSON.stringify(task.sampleId)} and ${JSON.stringify(row.sample_id)}, name one task id ${JSON.stringify(id.slice(0, 120))}`);
    }
    task.rows.push(row);
    if (metricKey(row) === key) {
      if (task.graded !== null) {
        throw new ImportError(
          `sample ${JSON.stringify(id.slice(0, 120))} has two rows for the graded metric: the schema records no repetitions, so a second row cannot be told from a duplicate`,
        );
      }
      task.graded = row;
    }
  }
  return [...tasks.values()].sort((a, b) => compareSampleIds(a.sampleId, b.sampleId));
}

/** The evaluation library (harness and agent): eval_library, else (schema 0.2.0) source_metadata.source_name with version "unknown" (said). */
function evalLibrary(aggregate: EeeAggregate, missing: string[]): { name: string; version: string } {
  if (aggregate.eval_library !== undefined) return aggregate.eval_library;
  const name = aggregate.source_metadata.source_name;
  missing.push(
    name === undefined
      ? 'no eval_library recorded: the harness and agent are named "unknown", version "unknown"'
      : 'no eval_library recorded (schema 0.2.0): the harness and agent are named by source_metadata.source_name, version "unknown"',
  );
  return { name: name ?? 'unknown', version: 'unknown' };
}

/** Counts of what the samples lacked, for NOTES.md. */
interface Counts {
  noTokens: number;
  noTime: number;
  errors: number;
  ungraded: number;
  otherModel: number;
  disagree: number;
  unknownLevel: number;
  usable: number;
}

/** Maps an aggregate and its sidecar to bundle files. */
export function mapEee(agg: EeeAggregateFile, sidecar: EeeSidecar, options: EeeOptions): MappedBundle {
  const { aggregate } = agg;
  const max = options.maxStringBytes;
  const missing: string[] = [];
  const { key, keys } = chooseMetric(sidecar.rows, options.metric);
  boundedString(key, max, 'the graded metric name');
  const link = linkResult(aggregate, key);
  if (link === null) {
    throw new ImportError(
      `the graded metric ${JSON.stringify(key.slice(0, 120))} names no result of the aggregate (by evaluation_result_id or evaluation_name), so its metric_config, and with it what passes, is unknown`,
    );
  }
  const { result } = link;
  const rule = passRule(result, key, options.passThreshold);
  const started = runStart(aggregate, result, missing);
  const tasks = tasksOf(sidecar.rows, key, max);

  // What links the two files.
  const evaluationIds = new Set(sidecar.rows.map((r) => r.evaluation_id));
  if (evaluationIds.size > 1) throw new ImportError(`the sidecar's rows carry ${evaluationIds.size} different evaluation_id values: one sidecar belongs to one evaluation`);
  if (!evaluationIds.has(aggregate.evaluation_id)) {
    missing.push("the sidecar's rows carry another evaluation_id than the aggregate: they are linked by the aggregate's file reference (and its checksum, when recorded) only");
  }
  if (link.only) missing.push("the graded metric's rows name no result of the aggregate: they are linked to the aggregate's only result, whose metric_config decides what passes");
  if (sidecar.plainName) {
    missing.push(
      'the sidecar\'s name as the aggregate references it holds characters a plain path cannot (such as ":" in an ollama model tag): it is read and kept under its plain name, each such character replaced by "_"; the kept aggregate still names it as the source wrote it',
    );
  }
  if (sidecar.noChecksum) missing.push('the aggregate records no checksum of the sidecar: its bytes were not checked against one');
  if (sidecar.noRowCount) missing.push("the aggregate declares no total_rows: the sidecar's row count was not checked");
  if (keys.length > 1) {
    const others = sidecar.rows.filter((r) => metricKey(r) !== key).length;
    missing.push(`${plural(keys.length - 1, 'other metric')} (${plural(others, 'row')}) of the sidecar not graded: one grading generation grades with one metric (see --metric)`);
  }

  const model = boundedString(aggregate.model_info.id, max, 'model_info.id');
  const library = evalLibrary(aggregate, missing);
  const agent = { name: boundedString(library.name, max, 'eval_library.name'), version: boundedString(library.version, max, 'eval_library.version') };
  const subject: Subject = { selector: boundedString(aggregate.model_info.name, max, 'model_info.name'), model, agent, role: 'candidate' };
  const grader: Grader = {
    id: key,
    version: boundedString(aggregate.schema_version, max, 'schema_version'),
    executable: digestCanonical({
      metric: key,
      metric_config: result.metric_config,
      rule: rule.kind,
      pass_threshold: rule.kind === 'threshold' ? rule.threshold : null,
    }),
  };

  const ledger: LedgerRecord[] = tasks.map((t) => {
    const prompt = digestCanonical(t.rows[0]!.input ?? null);
    if (t.rows.some((r) => digestCanonical(r.input ?? null) !== prompt)) {
      throw new ImportError(`sample ${JSON.stringify(t.id.slice(0, 120))} has different inputs in different rows: one task cannot have two prompts`);
    }
    return importedLedgerRecord(t.id, prompt, options.license, started);
  });
  const ledgerBytes = jsonlBytes(ledger);

  const files = new Map<string, Uint8Array>();
  const artifact = artifactWriter(files);
  const counts: Counts = { noTokens: 0, noTime: 0, errors: 0, ungraded: 0, otherModel: 0, disagree: 0, unknownLevel: 0, usable: 0 };
  const attempts: Attempt[] = [];
  const results: GradeResult[] = [];
  tasks.forEach((t, i) => {
    const attemptId = attemptIdOf(i);
    const row = t.graded ?? t.rows[0]!;
    const observed = boundedString(row.model_id, max, 'a row model_id');
    if (observed !== model) counts.otherModel++;
    const errored = typeof row.error === 'string' && row.error !== '';
    if (errored) counts.errors++;
    const durations = [row.performance?.latency_ms, row.performance?.generation_time_ms].filter((d): d is number => typeof d === 'number');
    if (durations.length === 0) counts.noTime++;
    if (!row.token_usage) counts.noTokens++;
    attempts.push({
      attempt_id: attemptId,
      task_id: t.id,
      model,
      agent,
      index: 1,
      observed_model: observed,
      outcome: errored ? 'harness_failure' : 'completed',
      started_at: started,
      ended_at: started,
      wall_seconds: durations.length === 0 ? 0 : Math.max(...durations) / 1000,
      tokens: row.token_usage ? { input: row.token_usage.input_tokens, output: row.token_usage.output_tokens } : null,
      retries: 0,
      cost: costFromUsd(undefined),
      patch: null,
    });
    if (t.graded === null) {
      counts.ungraded++;
      return;
    }
    const verdict = rowVerdict(t.graded, rule);
    if (verdict === 'error') counts.unknownLevel++;
    else if (!errored) counts.usable++;
    if (rule.kind === 'threshold' && verdict !== 'error' && (verdict === 'pass') !== t.graded.evaluation.is_correct) counts.disagree++;
    results.push({
      attempt_id: attemptId,
      verdict,
      input: artifact(t.graded.input ?? null),
      output: artifact({ output: member(t.graded, 'output'), messages: member(t.graded, 'messages') ?? member(t.graded, 'interactions'), answer_attribution: member(t.graded, 'answer_attribution') }),
      receipt: artifact(t.graded),
    });
  });
  noteCounts(missing, counts, tasks.length);

  const plan = planOf(aggregate, result, { started, ledgerBytes, tasks: ledger.length, grader, rule, subject, agent, source: agg.bytes, key });
  files.set(`source/${agg.path}`, agg.bytes);
  files.set(`source/${sidecar.path}`, sidecar.bytes);
  return finishImport({
    files,
    plan,
    ledgerBytes,
    attempts,
    grades: { created_at: started, grader, results },
    notes: {
      heading: 'Imported Every Eval Ever record',
      format: 'eee',
      source: `Every Eval Ever aggregate and its samples sidecar, kept byte for byte under \`source/\` (the aggregate is the first file there)`,
    },
    missing,
    usable: counts.usable,
    summary: { status: 'not recorded', tasks: ledger.length, epochs: 1, scorer: key },
  });
}

/** What the samples lacked or the import filled in, one sentence per kind, with its count. */
function noteCounts(missing: string[], c: Counts, samples: number): void {
  missing.push("no per-sample start or end time in the schema: each attempt starts and ends at the run's start");
  missing.push(`${plural(samples, 'sample')} without a cost (the schema records none per sample): cost unavailable`);
  missing.push('no retries recorded: retries 0');
  missing.push('no seed recorded: plan seed 0');
  if (c.errors > 0) missing.push(`${plural(c.errors, 'sample')} with an error recorded: outcome harness_failure`);
  if (c.ungraded > 0) missing.push(`${plural(c.ungraded, 'sample')} without a row for the graded metric: no grade (fails closed as grader_failure)`);
  if (c.unknownLevel > 0) missing.push(`${plural(c.unknownLevel, 'score')} at the unknown level (-1): verdict error`);
  if (c.disagree > 0) missing.push(`${plural(c.disagree, 'row')} whose is_correct disagrees with the pass threshold: the verdict follows the threshold`);
  if (c.otherModel > 0) missing.push(`${plural(c.otherModel, 'sample')} whose model_id is not model_info.id: those attempts fail IDENTITY_MISMATCH`);
  if (c.noTokens > 0) missing.push(`${plural(c.noTokens, 'sample')} without token_usage: tokens unknown (null)`);
  if (c.noTime > 0) missing.push(`${plural(c.noTime, 'sample')} without latency_ms or generation_time_ms: wall_seconds 0`);
  if (c.noTime < samples) missing.push('wall_seconds is the longer of latency_ms and generation_time_ms where recorded: a lower bound of the sample\'s time');
}

/** The plan with its self id. */
function planOf(
  aggregate: EeeAggregate,
  result: EeeResult,
  parts: { started: string; ledgerBytes: Uint8Array; tasks: number; grader: Grader; rule: PassRule; subject: Subject; agent: Subject['agent']; source: Uint8Array; key: string },
): Plan {
  const args = member(result.generation_config, 'generation_args');
  const sandboxType = member(member(args, 'sandbox'), 'type');
  const dataset = result.source_data?.dataset_name ?? parts.key;
  const organisation = aggregate.source_metadata.source_organization_name;
  const harnessSpec = {
    eval_library: aggregate.eval_library ?? null,
    source_metadata: aggregate.source_metadata,
    evaluation_name: result.evaluation_name,
    source_data: result.source_data ?? null,
    generation_config: result.generation_config ?? null,
  };
  return withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `${dataset} (imported Every Eval Ever record, source: ${organisation})`,
      created_at: parts.started,
      ledger: { name: dataset, digest: digestBytes(parts.ledgerBytes), tasks: parts.tasks },
      environment: {
        tool_policy: digestCanonical({
          agentic_eval_config: member(args, 'agentic_eval_config'),
          sandbox: member(args, 'sandbox'),
          eval_limits: member(args, 'eval_limits'),
        }),
        wiki: [],
        isolation: typeof sandboxType === 'string' && sandboxType !== '' ? `every-eval-ever sandbox: ${sandboxType}` : 'every-eval-ever: no sandbox recorded',
        session_topology: 'single-session',
      },
      harness: { name: parts.agent.name, version: parts.agent.version, commit: digestHex(digestCanonical(harnessSpec)) },
      grader: { profile: graderProfile(parts.rule), ...parts.grader },
      subjects: [parts.subject],
      attempts: 1,
      budget: null,
      access_tier: 'black_box',
      seed: 0,
      origin: importOrigin(EEE_ORIGIN_FORMAT, parts.source),
    } satisfies Plan,
    'plan_id',
  );
}
