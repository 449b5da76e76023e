/**
 * Maps a read SWE-bench run onto the files of one evidence bundle (FORMAT.md
 * section 9). A pure function of the run's files (relative paths and bytes),
 * the license and the tool version: no clock, no locale, no random.
 * docs/importing.md ("SWE-bench") describes every field.
 *
 * Issue 15: an empty patch is not "unresolved" (model_failure, the model
 * produced nothing), a missing report is an error (harness_failure, not
 * graded), a PASS_TO_PASS failure is a regression (in the receipt, counted in
 * NOTES.md).
 */
import { compareUtf8 } from '../../json/compare.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import { digestBytes, digestCanonical, digestHex } from '../../json/canonical.ts';
import type { Attempt, GradeResult, Grader, LedgerRecord, Outcome, Plan, Subject } from '../../schema/index.ts';
import { artifactWriter, attemptIdOf, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import { ImportError } from '../errors.ts';
import type { MappedBundle } from '../importer.ts';
import type { Aggregate, ReportFile, SweRun } from './read-run.ts';
import type { Prediction } from './schema.ts';

import { SWEBENCH_ORIGIN_FORMAT } from './source-reader.ts';

export { SWEBENCH_ORIGIN_FORMAT };

/** The run's start is never recorded in SWE-bench files: this fixed instant stands for "unknown" (docs/importing.md). */
export const UNKNOWN_START = '1970-01-01T00:00:00Z';

/** What decides pass/fail: its digest is the grader's executable. */
export const PASS_RULE = {
  rule: 'swe-bench report.json',
  pass: 'resolved is true',
  fail: 'resolved is false (patch applied or not)',
  empty_patch: 'outcome model_failure, not graded',
  missing_report: 'outcome harness_failure, not graded',
  regression: 'PASS_TO_PASS failure noted in the receipt',
} as const;

export const SWEBENCH_GRADER: Grader = { id: 'swe-bench-report', version: '1', executable: digestCanonical(PASS_RULE) };

/**
 * The pass rule of an experiments submission graded (for at least one
 * instance) by its own `results/results.json`: the submission's results
 * file, weaker evidence than a per-instance report (an id in a list, no test
 * results). A per-instance report, where present, still grades its instance.
 */
export const RESULTS_PASS_RULE = {
  rule: 'swe-bench report.json, else the submission\'s results/results.json',
  pass: 'report.json resolved is true; without a report.json, the instance is in results.json resolved',
  fail: 'report.json resolved is false; without a report.json, the instance is in no list of results.json (or only in no_generation with a patch)',
  empty_patch: 'outcome model_failure, not graded',
  no_logs: 'without a report.json, in results.json no_logs: outcome harness_failure, not graded',
  evidence: 'results.json is the submission\'s own results file: weaker than a per-instance report',
} as const;

export const SWEBENCH_RESULTS_GRADER: Grader = { id: 'swe-bench-results-json', version: '1', executable: digestCanonical(RESULTS_PASS_RULE) };

/** The grader profile of each grader id (what the grade rests on). */
export const GRADER_PROFILES: Readonly<Record<string, string>> = { 'swe-bench-report': 'swe-bench-harness', 'swe-bench-results-json': 'swe-bench-submission-results-json' };

type Verdict = 'pass' | 'fail';

/** The id lists of the aggregate, whichever kind it is. */
interface Lists {
  kind: Aggregate['kind'];
  submitted: Set<string> | null;
  resolved: Set<string>;
  unresolved: Set<string> | null;
  empty: Set<string> | null;
  error: Set<string> | null;
  /** Experiments results.json: every id it lists in any list (null for a run report). */
  listed: Set<string> | null;
  /** Experiments results.json: ids listed more than once within one list. */
  repeated: number;
  /** Experiments results.json: ids in `resolved` and in `no_generation` or `no_logs`. */
  contradictory: number;
}

function listsOf(aggregate: Aggregate | null): Lists | null {
  if (aggregate === null) return null;
  const set = (ids: readonly string[] | undefined) => (ids === undefined ? null : new Set(ids));
  if (aggregate.kind === 'run-report') {
    const r = aggregate.report;
    return { kind: 'run-report', submitted: set(r.submitted_ids), resolved: new Set(r.resolved_ids), unresolved: set(r.unresolved_ids), empty: set(r.empty_patch_ids), error: set(r.error_ids), listed: null, repeated: 0, contradictory: 0 };
  }
  // results.json has no submitted list: it lists resolved, no_generation, no_logs (...); an unresolved instance is in none.
  const r = aggregate.results;
  const ids = (key: string) => (Array.isArray(r[key]) ? (r[key] as unknown[]).filter((x): x is string => typeof x === 'string') : undefined);
  const listed = new Set<string>();
  let repeated = 0;
  for (const value of Object.values(r)) {
    if (!Array.isArray(value)) continue;
    const once = new Set<string>();
    for (const id of value) {
      if (typeof id !== 'string') continue;
      if (once.has(id)) repeated++;
      once.add(id);
      listed.add(id);
    }
  }
  const resolved = new Set(r.resolved);
  const empty = set(ids('no_generation'));
  const error = set(ids('no_logs'));
  let contradictory = 0;
  for (const id of resolved) if (empty?.has(id) || error?.has(id)) contradictory++;
  return { kind: 'experiments-results', submitted: null, resolved, unresolved: null, empty, error, listed, repeated, contradictory };
}

/** True when a prediction carries no patch: null, empty or only whitespace. */
export function isEmptyPatch(patch: string | null): boolean {
  return patch === null || patch.trim() === '';
}

/**
 * The subject: the predictions' one model_name_or_path; without predictions,
 * an experiments submission's metadata.yaml (the system's name, its one
 * model), else the harness's log folder name of the reports (all the same).
 */
function subjectOf(run: SweRun, missing: string[]): { selector: string; model: string; agent: { name: string; version: string } } {
  const unknownAgent = { name: 'unknown', version: 'unknown' };
  if (run.predictions !== null) {
    const models = [...new Set(run.predictions.lines.map((p) => p.model_name_or_path))].sort(compareUtf8);
    if (models.length > 1) throw new ImportError(`the predictions name ${models.length} models (model_name_or_path): one run evaluates one model; split the file by model`);
    return { selector: models[0]!, model: models[0]!, agent: unknownAgent };
  }
  if (run.metadata !== null) {
    const { name, models } = run.metadata;
    const model = models.length === 1 ? models[0]! : name;
    missing.push(
      `no predictions file: no patches (each attempt's patch is null); the subject is read from metadata.yaml: selector and agent the system's name (info.name), model ${models.length === 1 ? 'its one tags.model' : `the system's name (tags.model names ${plural(models.length, 'model')})`}`,
    );
    return { selector: name, model, agent: { name, version: 'unknown' } };
  }
  return { selector: '', model: modelOfReports(run, missing), agent: unknownAgent };
}

/** Without predictions or metadata.yaml: the harness's log folder name of the reports (all the same). */
function modelOfReports(run: SweRun, missing: string[]): string {
  const folders = new Set<string>();
  for (const r of run.reports.values()) {
    const m = /(?:^|\/)run_evaluation\/[^/]+\/([^/]+)\/[^/]+\/report\.json$/.exec(r.path);
    folders.add(m ? m[1]! : '');
  }
  const [only] = folders;
  if (folders.size !== 1 || only === undefined || only === '') {
    throw new ImportError(
      'the directory holds no predictions file, no metadata.yaml, and its reports are not in the harness layout logs/run_evaluation/<run_id>/<model>/<instance_id>/report.json: the model is not recorded',
    );
  }
  missing.push("no predictions file: no patches (each attempt's patch is null); the model is the harness's log folder name (it writes \"/\" in a model name as \"__\")");
  return only;
}

/** How many of each kind of fact the run lacked or contradicted; each a NOTES.md line. */
interface Counts {
  empty: number;
  missingReport: number;
  errorListed: number;
  notApplied: number;
  regressions: number;
  reportWithoutPrediction: number;
  resolvedListedNoReport: number;
  resolvedListedReportSaysNot: number;
  unresolvedListedReportSaysResolved: number;
  resolvedNotListed: number;
  emptyListedHasPatch: number;
  emptyNotListed: number;
  errorListedHasReport: number;
  predictionNotSubmitted: number;
  submittedNoPrediction: number;
  /** Attempts graded by results.json (no report.json), and of them the passes. */
  byResults: number;
  byResultsPass: number;
  noLogs: number;
  listedNoPrediction: number;
  usable: number;
}

/** Maps a run to bundle files. Throws ImportError when it cannot be mapped honestly. */
export function mapSweRun(run: SweRun, license: string): MappedBundle {
  const missing: string[] = [];
  const who = subjectOf(run, missing);
  const model = who.model;
  const lists = listsOf(run.aggregate);
  // An experiments submission is graded by its own results.json where no report.json is here.
  const byResults = lists?.kind === 'experiments-results';
  const predictions = new Map<string, Prediction>((run.predictions?.lines ?? []).map((p) => [p.instance_id, p]));

  // One task per instance id: predicted, reported, or (without predictions) submitted per the aggregate.
  const ids = new Set<string>([...predictions.keys(), ...run.reports.keys()]);
  if (run.predictions === null && lists !== null) for (const id of [...(lists.submitted ?? []), ...lists.resolved, ...(lists.listed ?? [])]) ids.add(id);
  const tasks = [...ids].sort(compareUtf8);

  const ledger: LedgerRecord[] = tasks.map((id) => importedLedgerRecord(id, digestCanonical({ instance_id: id }), license, UNKNOWN_START));
  const ledgerBytes = jsonlBytes(ledger);
  const agent = who.agent;
  const subject: Subject = { selector: who.selector === '' ? model : who.selector, model, agent, role: 'candidate' };

  const files = new Map<string, Uint8Array>();
  const artifact = artifactWriter(files);
  const c: Counts = {
    empty: 0, missingReport: 0, errorListed: 0, notApplied: 0, regressions: 0, reportWithoutPrediction: 0,
    resolvedListedNoReport: 0, resolvedListedReportSaysNot: 0, unresolvedListedReportSaysResolved: 0, resolvedNotListed: 0,
    emptyListedHasPatch: 0, emptyNotListed: 0, errorListedHasReport: 0, predictionNotSubmitted: 0, submittedNoPrediction: 0,
    byResults: 0, byResultsPass: 0, noLogs: 0, listedNoPrediction: 0, usable: 0,
  };
  const attempts: Attempt[] = [];
  const results: GradeResult[] = [];
  tasks.forEach((id, i) => {
    const attemptId = attemptIdOf(i);
    const prediction = predictions.get(id);
    const report = run.reports.get(id);
    crossCheck(id, prediction, report, lists, run.predictions !== null, c);
    let patch: string | null = null;
    if (prediction !== undefined && !isEmptyPatch(prediction.model_patch)) {
      const bytes = Buffer.from(prediction.model_patch!, 'utf8');
      patch = digestBytes(bytes);
      files.set(`artifacts/${digestHex(patch)}.patch`, bytes);
    }
    const empty = prediction !== undefined ? isEmptyPatch(prediction.model_patch) : report === undefined && (lists?.empty?.has(id) ?? false);
    let outcome: Outcome;
    if (empty) {
      outcome = 'model_failure';
      c.empty++;
      c.usable++;
    } else if (report !== undefined) {
      outcome = 'completed';
      const verdict: Verdict = report.report.resolved ? 'pass' : 'fail';
      c.usable++;
      if (!report.report.patch_successfully_applied) c.notApplied++;
      const p2pFailures = report.report.tests_status?.PASS_TO_PASS?.failure ?? [];
      if (p2pFailures.length > 0) c.regressions++;
      results.push({
        attempt_id: attemptId,
        verdict,
        input: patch ?? artifact({ instance_id: id, model_patch: prediction?.model_patch ?? null }),
        output: artifact(report.report.tests_status ?? null),
        receipt: artifact({ instance_id: id, report: report.report, regression: p2pFailures.length > 0, pass_to_pass_failures: p2pFailures.length }),
      });
    } else if (byResults && lists.error?.has(id) === true && !lists.resolved.has(id)) {
      // results.json: no evaluation log for it (no_logs): not graded, as without a report.
      outcome = 'harness_failure';
      c.noLogs++;
    } else if (byResults) {
      outcome = 'completed';
      const listedResolved = lists.resolved.has(id);
      c.byResults++;
      c.usable++;
      if (listedResolved) c.byResultsPass++;
      results.push({
        attempt_id: attemptId,
        verdict: listedResolved ? 'pass' : 'fail',
        input: patch ?? artifact({ instance_id: id, model_patch: prediction?.model_patch ?? null }),
        output: artifact({ instance_id: id, in_results_json_resolved: listedResolved }),
        receipt: artifact({ instance_id: id, graded_by: 'results/results.json', in_resolved: listedResolved, report: null }),
      });
    } else {
      outcome = 'harness_failure';
      c.missingReport++;
      if (lists?.error?.has(id)) c.errorListed++;
    }
    attempts.push({
      attempt_id: attemptId,
      task_id: id,
      model,
      agent,
      index: 1,
      observed_model: model,
      outcome,
      started_at: UNKNOWN_START,
      ended_at: UNKNOWN_START,
      wall_seconds: 0,
      tokens: null,
      retries: 0,
      cost: { state: 'unavailable', micros: null },
      patch,
    });
  });
  noteAggregate(run, lists, c, missing, tasks.length);
  noteCounts(c, tasks.length, missing, run.metadata !== null);
  const grader = c.byResults > 0 ? SWEBENCH_RESULTS_GRADER : SWEBENCH_GRADER;

  const mainFile = run.predictions ?? run.aggregate ?? [...run.reports.values()][0]!;
  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `${model} (imported SWE-bench run)`,
      created_at: UNKNOWN_START,
      ledger: { name: 'swe-bench', digest: digestBytes(ledgerBytes), tasks: ledger.length },
      environment: {
        tool_policy: digestCanonical({ tool_policy: 'not recorded by SWE-bench' }),
        wiki: [],
        isolation: 'swebench harness: not recorded',
        session_topology: 'single-session',
      },
      harness: {
        name: 'swebench',
        version: 'unknown',
        // The run's identity: the digests of the files that define it, so two runs never pool by coincidence.
        commit: digestHex(
          digestCanonical({
            format: SWEBENCH_ORIGIN_FORMAT,
            predictions: run.predictions ? digestBytes(run.predictions.bytes) : null,
            aggregate: run.aggregate ? digestBytes(run.aggregate.bytes) : null,
            ...(run.metadata ? { metadata: digestBytes(run.metadata.bytes) } : {}),
          }),
        ),
      },
      grader: { profile: GRADER_PROFILES[grader.id]!, ...grader },
      subjects: [subject],
      attempts: 1,
      budget: null,
      access_tier: 'black_box',
      seed: 0,
      origin: importOrigin(SWEBENCH_ORIGIN_FORMAT, mainFile.bytes),
    } satisfies Plan,
    'plan_id',
  );

  if (run.predictions) files.set(`source/${run.predictions.path}`, run.predictions.bytes);
  if (run.aggregate) files.set(`source/${run.aggregate.path}`, run.aggregate.bytes);
  for (const r of run.reports.values()) files.set(`source/${r.path}`, r.bytes);
  if (run.metadata) files.set(`source/${run.metadata.path}`, run.metadata.bytes);
  const mainPath = `source/${mainFile.path}`;
  return finishImport({
    files,
    plan,
    ledgerBytes,
    attempts,
    grades: { created_at: UNKNOWN_START, grader, results },
    notes: {
      heading: 'Imported SWE-bench run',
      format: 'swe-bench',
      source: `SWE-bench run directory: its predictions, run report and per-instance reports kept byte for byte under \`source/\` (the main file, whose digest is \`origin.source\`, is \`${mainPath}\`)`,
    },
    missing,
    usable: c.usable,
    summary: { status: runStatus(run.aggregate), tasks: tasks.length, epochs: 1, scorer: grader.id },
  });
}

function runStatus(aggregate: Aggregate | null): string {
  if (aggregate === null) return 'not recorded';
  if (aggregate.kind === 'run-report') {
    const r = aggregate.report;
    return `run report: ${r.resolved_instances} resolved of ${r.submitted_instances ?? r.total_instances ?? 'unknown'} submitted`;
  }
  return `results.json: ${aggregate.results.resolved.length} resolved`;
}

/** Tallies what the aggregate and the per-instance evidence say differently about one instance. */
function crossCheck(id: string, prediction: Prediction | undefined, report: ReportFile | undefined, lists: Lists | null, hasPredictions: boolean, c: Counts): void {
  if (hasPredictions && prediction === undefined && report !== undefined) c.reportWithoutPrediction++;
  if (lists === null) return;
  const resolvedByReport = report?.report.resolved === true;
  if (lists.resolved.has(id)) {
    // (results.json grades an instance without a report: not a gap.)
    if (report === undefined) {
      if (lists.kind === 'run-report') c.resolvedListedNoReport++;
    }
    else if (!resolvedByReport) c.resolvedListedReportSaysNot++;
  } else if (resolvedByReport) c.resolvedNotListed++;
  if (lists.unresolved?.has(id) && resolvedByReport) c.unresolvedListedReportSaysResolved++;
  if (prediction !== undefined && lists.empty !== null) {
    const empty = isEmptyPatch(prediction.model_patch);
    if (lists.empty.has(id) && !empty) c.emptyListedHasPatch++;
    if (!lists.empty.has(id) && empty) c.emptyNotListed++;
  }
  if (lists.error?.has(id) && report !== undefined && lists.kind === 'run-report') c.errorListedHasReport++;
  if (hasPredictions && lists.submitted !== null) {
    if (prediction !== undefined && !lists.submitted.has(id)) c.predictionNotSubmitted++;
    if (prediction === undefined && lists.submitted.has(id)) c.submittedNoPrediction++;
  }
}

/** Instances results.json lists that the predictions do not hold (not imported as tasks). */
function countListedNoPrediction(run: SweRun, lists: Lists | null, c: Counts): void {
  if (run.predictions === null || lists === null || lists.listed === null) return;
  const predicted = new Set(run.predictions.lines.map((p) => p.instance_id));
  for (const id of lists.listed) if (!predicted.has(id) && !run.reports.has(id)) c.listedNoPrediction++;
}

/** The aggregate's own counts against its own lists, and instances it lists that no file here backs. */
function noteAggregate(run: SweRun, lists: Lists | null, c: Counts, missing: string[], tasks: number): void {
  if (run.aggregate === null) {
    missing.push('no run report or results.json: the per-instance reports are not cross-checked against an aggregate');
    return;
  }
  if (run.aggregate.kind === 'run-report') {
    const r = run.aggregate.report;
    const pairs: [string, number | undefined, readonly string[] | undefined][] = [
      ['resolved_instances', r.resolved_instances, r.resolved_ids],
      ['unresolved_instances', r.unresolved_instances, r.unresolved_ids],
      ['submitted_instances', r.submitted_instances, r.submitted_ids],
      ['completed_instances', r.completed_instances, r.completed_ids],
      ['empty_patch_instances', r.empty_patch_instances, r.empty_patch_ids],
      ['error_instances', r.error_instances, r.error_ids],
    ];
    const off = pairs.filter(([, n, list]) => n !== undefined && list !== undefined && n !== list.length).length;
    if (off > 0) missing.push(`the run report contradicts itself: ${plural(off, 'count')} (such as resolved_instances) differ from the length of the matching id list`);
  }
  countListedNoPrediction(run, lists, c);
  if (lists !== null && lists.kind === 'experiments-results') {
    if (c.byResults > 0) {
      missing.push(
        `${plural(c.byResults, 'attempt')} graded by the submission's own results/results.json (no report.json here): pass when in its resolved list (${c.byResultsPass}), else fail; an id in a list is weaker evidence than a per-instance report (no test results)`,
      );
    }
    if (run.predictions === null) {
      // (Without reports too the import is refused before this: read-run.ts, resultsOnlyRefusal.)
      const reported = run.reports.size;
      missing.push(
        `without a predictions file the tasks, the rate's denominator, are the ${plural(tasks, 'instance')} with a report.json here or listed in results.json (${reported} with a report.json, ${tasks - reported} listed without one); results.json has no submitted list and does not list the instances it did not resolve, so an instance of the split with neither (not evaluated, or its report not kept) is not imported: the source's own rate divides by the whole split instead`,
      );
    }
    if (lists.repeated > 0) missing.push(`results.json names ${plural(lists.repeated, 'instance id')} again within one list: each is one task (the source's own count of a list counts every repeat)`);
    if (lists.contradictory > 0) missing.push(`${plural(lists.contradictory, 'instance')} in results.json's resolved list ${lists.contradictory === 1 ? 'is' : 'are'} also in its no_generation or no_logs list: graded by the report.json when present, else by the resolved list (pass)`);
  }
  // Each line in the singular for one instance and in the plural for more ("1 instance ... has", "2 instances ... have").
  const say = (n: number, one: string, more: string) => {
    if (n > 0) missing.push(`${plural(n, 'instance')} ${n === 1 ? one : more}`);
  };
  say(c.resolvedListedNoReport, 'listed as resolved by the aggregate has no report.json here: not graded (harness_failure), not counted as resolved', 'listed as resolved by the aggregate have no report.json here: not graded (harness_failure), not counted as resolved');
  say(c.resolvedListedReportSaysNot, 'listed as resolved by the aggregate is not resolved in its report.json: graded by the report.json (fail)', 'listed as resolved by the aggregate are not resolved in their report.json: graded by the report.json (fail)');
  say(c.unresolvedListedReportSaysResolved, 'listed as unresolved by the aggregate is resolved in its report.json: graded by the report.json (pass)', 'listed as unresolved by the aggregate are resolved in their report.json: graded by the report.json (pass)');
  say(c.resolvedNotListed, 'resolved in its report.json is not in the aggregate\'s resolved list: graded by the report.json (pass)', 'resolved in their report.json are not in the aggregate\'s resolved list: graded by the report.json (pass)');
  say(c.emptyListedHasPatch, 'listed as an empty patch by the aggregate has a non-empty patch in the predictions', 'listed as empty patches by the aggregate have a non-empty patch in the predictions');
  say(c.emptyNotListed, 'with an empty patch in the predictions is not in the aggregate\'s empty-patch list', 'with an empty patch in the predictions are not in the aggregate\'s empty-patch list');
  say(c.errorListedHasReport, 'listed as an error by the run report has a report.json: graded by the report.json', 'listed as errors by the run report have a report.json: graded by the report.json');
  say(c.predictionNotSubmitted, 'in the predictions is not in the run report\'s submitted list', 'in the predictions are not in the run report\'s submitted list');
  say(c.submittedNoPrediction, 'in the run report\'s submitted list has no prediction here: not imported as a task', 'in the run report\'s submitted list have no prediction here: not imported as tasks');
  say(c.listedNoPrediction, 'listed in results.json has no prediction and no report.json here: not imported as a task', 'listed in results.json have no prediction and no report.json here: not imported as tasks');
}

function noteCounts(c: Counts, tasks: number, missing: string[], readMetadata: boolean): void {
  missing.push("the run's start is not recorded in SWE-bench files: plan, ledger, attempt and grade times are the fixed value 1970-01-01T00:00:00Z (unknown), and wall_seconds is 0");
  missing.push(`no tokens or cost are recorded per instance: tokens unknown (null) and cost unavailable for ${plural(tasks, 'attempt')}`);
  missing.push('no problem statements are in the run directory: each task\'s prompt_sha256 is the digest of {"instance_id": <id>}; repo and base_sha are null');
  missing.push('the agent and the harness version are not recorded (model_name_or_path names the whole system): agent "unknown" version "unknown", harness version "unknown"; observed_model is the planned model');
  missing.push('no seed recorded: plan seed 0');
  if (c.empty > 0) missing.push(`${plural(c.empty, 'instance')} with an empty patch: outcome model_failure (the model produced nothing), not graded and not "unresolved"`);
  if (c.missingReport > 0) missing.push(`${plural(c.missingReport, 'instance')} without a report.json and without an empty patch: outcome harness_failure (a missing report is an error), not graded${c.errorListed > 0 ? `; ${c.errorListed} of them listed as errors by the aggregate` : ''}`);
  if (c.notApplied > 0) missing.push(`${plural(c.notApplied, 'patch', 'patches')} that did not apply: graded fail, as the harness counts them`);
  if (c.regressions > 0) missing.push(`${plural(c.regressions, 'graded attempt')} broke a PASS_TO_PASS test (a regression): noted in the receipt`);
  if (c.noLogs > 0) missing.push(`${plural(c.noLogs, 'instance')} without a report.json in results.json's no_logs list: outcome harness_failure (not evaluated), not graded`);
  if (c.reportWithoutPrediction > 0) missing.push(`${plural(c.reportWithoutPrediction, 'report.json', 'report.json files')} for instances without a prediction here: imported with patch null`);
  missing.push(
    readMetadata
      ? 'files of the submission other than results.json, the per-instance reports and metadata.yaml (test logs, eval scripts, patch files, trajectories, other JSON) are not read into the mapping and not kept'
      : 'files of the run directory other than the predictions, the run report and the per-instance reports (test logs, eval scripts, patch files, metadata, other JSON) are not read into the mapping and not kept',
  );
}
