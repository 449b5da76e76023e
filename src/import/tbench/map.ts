/**
 * Maps a read Terminal-Bench run (either layout, normalised by normalize.ts)
 * onto the files of one evidence bundle (FORMAT.md section 9). A pure
 * function of the input's relative paths and bytes, the options and the tool
 * version. docs/importing.md ("Terminal-Bench") describes every field.
 */
import { compareUtf8 } from '../../json/compare.ts';
import { jsonlBytes, withSelfId } from '../../evidence/manifest.ts';
import { digestBytes } from '../../json/canonical.ts';
import type { Attempt, GradeResult, Plan, Subject } from '../../schema/index.ts';
import { artifactWriter, attemptIdOf, costFromUsd, finishImport, importedLedgerRecord, importOrigin, plural } from '../common.ts';
import { ImportError } from '../errors.ts';
import type { MappedBundle } from '../importer.ts';
import type { ImportInput } from '../input-shape.ts';
import type { ImportLimits } from '../limits.ts';
import { secondsBetween } from '../time.ts';
import { normalizeHarbor, normalizeTb1, type Run, type TbenchOptions, type Trial } from './normalize.ts';
import { orderTrials } from './order.ts';
import { LOG_FILE_BYTES, LOG_TOTAL_BYTES, MAIN_FILE, readRun, type TbenchRun } from './read.ts';

export { orderTrials };

import { TBENCH_ORIGIN_FORMAT } from './source-reader.ts';

export { TBENCH_ORIGIN_FORMAT };

/** Maps a Terminal-Bench input (a TB1 run directory or a Harbor job directory) to bundle files. */
export function mapTbenchInput(input: ImportInput, options: TbenchOptions, limits: ImportLimits): MappedBundle {
  const read = readRun(input, limits);
  const run = read.layout === 'tb1' ? normalizeTb1(read, limits.maxStringBytes) : normalizeHarbor(read, options, limits.maxStringBytes);
  return mapRun(input, read, run, options);
}

/** How many of the trials the bundle cannot carry as the source had them. */
interface Counts {
  zeroTokens: number;
  noTokens: number;
  noCost: number;
  noTime: number;
  notGraded: number;
  verifierFailed: number;
  unknownKind: number;
  timeouts: number;
  otherOutcomes: number;
  /** Trials resolved although the source records a failure, by the failure's words (NOTES.md order: first seen). */
  resolvedDespite: Map<string, number>;
  usable: number;
}

function mapRun(input: ImportInput, read: TbenchRun, run: Run, options: TbenchOptions): MappedBundle {
  const missing = [...run.missing];
  if (read.nonFinite > 0) missing.push(`${plural(read.nonFinite, 'non-finite number')} (NaN or Infinity) read as null`);
  const { byTask, tasks, ordered } = orderTrials(run.trials);
  const most = Math.max(...tasks.map((t) => byTask.get(t)!.length));
  const attemptsPerTask = Math.max(most, run.configuredAttempts ?? 1);
  if (run.configuredAttempts === null) missing.push(`no attempts per task recorded (n_attempts): attempts per task = ${attemptsPerTask}, the most trials of one task`);
  else if (most > run.configuredAttempts) missing.push(`a task has ${most} trials although ${run.configuredAttempts} attempts were configured: attempts per task = ${attemptsPerTask}`);
  const empty = tasks.length * attemptsPerTask - run.trials.length;
  if (empty > 0) missing.push(`${plural(empty, 'slot')} (task x attempt) without a trial: left unaccounted`);
  missing.push('no seed recorded: plan seed 0');

  const ledger = tasks.map((task) => importedLedgerRecord(task, byTask.get(task)![0]!.prompt, options.license, run.created));
  const ledgerBytes = jsonlBytes(ledger);
  const subject: Subject = { selector: run.selector, model: run.model, agent: run.agent, role: 'candidate' };
  const files = new Map<string, Uint8Array>();
  const artifact = artifactWriter(files);
  const counts: Counts = { zeroTokens: 0, noTokens: 0, noCost: 0, noTime: 0, notGraded: 0, verifierFailed: 0, unknownKind: 0, timeouts: 0, otherOutcomes: 0, resolvedDespite: new Map(), usable: 0 };
  const attempts: Attempt[] = [];
  const results: GradeResult[] = [];
  ordered.forEach(({ trial, index }, i) => {
    const attemptId = attemptIdOf(i);
    attempts.push(attemptOf(trial, attemptId, index, run, counts));
    if (trial.outcome === 'timeout' || trial.outcome === 'model_failure') counts.usable++;
    else if (trial.outcome === 'completed' && trial.verdict !== 'error') counts.usable++;
    if (trial.verdict === 'error') counts.notGraded++;
    results.push({ attempt_id: attemptId, verdict: trial.verdict, input: artifact(trial.gradeInput), output: artifact(trial.gradeOutput), receipt: artifact(trial.receipt) });
  });
  noteCounts(missing, counts, run);
  const unread = input.files.size - read.read.length;
  // Said on the command line only: NOTES.md must follow from the kept files alone (a re-import from them has no other file).
  const unkept: string[] = [];
  const over = read.logs.over;
  if (over > 0) {
    unkept.push(
      `${plural(over, 'log file')} (${run.layout === 'tb1' ? 'commands.txt, panes' : 'agent/trajectory.json, verifier/test-stdout.txt'}) past the kept-log bounds (${LOG_FILE_BYTES / 1024 / 1024} MiB each, ${LOG_TOTAL_BYTES / 1024 / 1024} MiB together): not kept in the bundle, so no transcript from ${over === 1 ? 'it' : 'them'}`,
    );
  }
  if (unread > over) {
    unkept.push(`${plural(unread - over, 'other file')} of the input (recordings, session logs, other agent and verifier files) not read: not kept in the bundle`);
  }
  if (input.skipped.length > 0) unkept.push(`${plural(input.skipped.length, 'hidden entry', 'hidden entries')} of the input skipped, never read`);

  const mainBytes = input.files.get(MAIN_FILE[run.layout])!;
  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: run.title,
      created_at: run.created,
      ledger: { name: run.ledgerName, digest: digestBytes(ledgerBytes), tasks: ledger.length },
      environment: { tool_policy: run.toolPolicy, wiki: [], isolation: run.isolation, session_topology: 'single-session' },
      harness: run.harness,
      grader: run.grader,
      subjects: [subject],
      attempts: attemptsPerTask,
      budget: null,
      access_tier: 'black_box',
      seed: 0,
      origin: importOrigin(TBENCH_ORIGIN_FORMAT, mainBytes),
    } satisfies Plan,
    'plan_id',
  );
  const { profile: _profile, ...grader } = run.grader;
  for (const path of read.read) files.set(`source/${path}`, input.files.get(path)!);
  const layoutWords = run.layout === 'tb1' ? 'Terminal-Bench 1 run directory' : 'Harbor job directory (Terminal-Bench 2)';
  const main = MAIN_FILE[run.layout];
  return finishImport({
    files,
    plan,
    ledgerBytes,
    attempts,
    grades: { created_at: run.completed ?? run.created, grader, results },
    notes: {
      heading: `Imported ${layoutWords}`,
      format: 'terminal-bench',
      source: `${layoutWords} whose files the import read, kept byte for byte under \`source/\` at their relative paths; the run's own \`${main}\` (\`source/${main}\`) is the main file`,
    },
    missing,
    unkept,
    usable: counts.usable,
    summary: { status: run.status, tasks: ledger.length, epochs: attemptsPerTask, scorer: run.grader.id },
  });
}

function attemptOf(t: Trial, attemptId: string, index: number, run: Run, counts: Counts): Attempt {
  const startedAt = t.startedAt ?? t.endedAt ?? run.created;
  const endedAt = t.endedAt ?? startedAt;
  let wall = 0;
  if (t.startedAt !== null && t.endedAt !== null) {
    const seconds = secondsBetween(t.startedAt, t.endedAt);
    if (seconds < 0) throw new ImportError(`the trial ${JSON.stringify(t.trialName.slice(0, 200))} ended before it started`);
    wall = Math.round(seconds * 1e6) / 1e6;
  } else counts.noTime++;
  if (t.zeroTokens) counts.zeroTokens++;
  else if (t.tokens === null) counts.noTokens++;
  const cost = costFromUsd(t.costUsd);
  if (cost.state === 'unavailable') counts.noCost++;
  if (t.verifierFailed) counts.verifierFailed++;
  if (t.unknownKind) counts.unknownKind++;
  if (t.resolvedDespite !== null) counts.resolvedDespite.set(t.resolvedDespite, (counts.resolvedDespite.get(t.resolvedDespite) ?? 0) + 1);
  if (t.outcome === 'timeout') counts.timeouts++;
  else if (t.outcome !== 'completed') counts.otherOutcomes++;
  return {
    attempt_id: attemptId,
    task_id: t.taskId,
    model: run.model,
    agent: run.agent,
    index,
    observed_model: t.model,
    outcome: t.outcome,
    started_at: startedAt,
    ended_at: endedAt,
    wall_seconds: wall,
    tokens: t.tokens,
    retries: 0,
    cost,
    patch: null,
  };
}

/** What the trials lacked or the import could not carry, one sentence per kind, with its count. */
function noteCounts(missing: string[], c: Counts, run: Run): void {
  const tb1 = run.layout === 'tb1';
  const by = tb1 ? 'as Terminal-Bench does' : "as Harbor's mean does";
  for (const [words, n] of [...c.resolvedDespite].sort(([a], [b]) => compareUtf8(a, b))) {
    const timeout = words === 'failure_mode agent_timeout' || words === 'exception AgentTimeoutError';
    missing.push(timeout ? `${plural(n, 'trial')} resolved after the agent's timeout: counted resolved, ${by}` : `${plural(n, 'trial')} resolved despite ${words}: counted resolved (outcome completed), ${by}`);
  }
  if (c.timeouts > 0) missing.push(`${plural(c.timeouts, 'trial')} halted by the agent timeout: outcome timeout`);
  if (c.otherOutcomes > 0) {
    missing.push(`${plural(c.otherOutcomes, 'trial')} ended by an agent, model, environment or harness error (${tb1 ? 'failure_mode' : 'exception_info'}): outcome model_failure, environment_failure, cancelled or harness_failure`);
  }
  if (c.unknownKind > 0) missing.push(`${plural(c.unknownKind, 'trial')} with a ${tb1 ? 'failure mode' : 'exception type'} the importer does not know: outcome harness_failure`);
  if (c.verifierFailed > 0) missing.push(`${plural(c.verifierFailed, 'trial')} whose tests did not finish or could not be read: not graded (verdict error)`);
  if (c.notGraded > c.verifierFailed) missing.push(`${plural(c.notGraded - c.verifierFailed, 'trial')} without a ${tb1 ? 'resolution (is_resolved null)' : 'reward'}: not graded (verdict error)`);
  if (c.zeroTokens > 0) missing.push(`${plural(c.zeroTokens, 'trial')} with 0 input and 0 output tokens (not measured): tokens unknown (null)`);
  if (c.noTokens > 0) missing.push(`${plural(c.noTokens, 'trial')} without input and output token counts: tokens unknown (null)`);
  if (c.noCost > 0) missing.push(tb1 ? `a Terminal-Bench 1 run records no cost: ${plural(c.noCost, 'trial')} with cost unavailable` : `${plural(c.noCost, 'trial')} without cost_usd: cost unavailable`);
  if (c.noTime > 0) missing.push(`${plural(c.noTime, 'trial')} without a start and an end time: wall_seconds 0`);
  missing.push(tb1 ? 'retries are not recorded: retries 0' : 'retries are not recorded per trial: retries 0; cache token counts are not carried');
}
