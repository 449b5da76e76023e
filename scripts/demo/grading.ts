/**
 * Grading generations for a simulated plan. Every attempt gets a result in
 * each generation (a non-completed attempt is a "fail" with nothing to grade),
 * except the deliberately missing ones. Test logs depend only on the task and
 * the verdict, so identical logs are stored once.
 */
import { prettyJson } from '../../src/evidence/seal.ts';
import type { GradeResult, Grader, Grades, Outcome } from '../../src/schema/index.ts';
import type { ArtifactStore } from './artifacts.ts';
import { Rng } from './random.ts';
import type { SimAttempt } from './simulate.ts';
import type { GradingSpec } from './spec.ts';
import { headlineTaskIds, TASKS, type TaskSpec } from './tasks.ts';
import { ledgerRecord } from './ledger.ts';
import { isoSeconds } from './time.ts';

type Verdict = GradeResult['verdict'];

const HEADLINE = headlineTaskIds(TASKS.map(ledgerRecord));

/** The verdict each generation gives, or null for a missing result. */
export type VerdictRule = (sim: SimAttempt) => Verdict | null;

/** The honest verdict: pass when the output resolves the task. */
export function trueVerdict(sim: SimAttempt): Verdict {
  return sim.resolved ? 'pass' : 'fail';
}

/** Generation 1's verdicts for a plan: honest, except the errors, false failures and missing results its spec asks for. */
export function firstGenerationRule(spec: GradingSpec, seed: number, sims: readonly SimAttempt[]): VerdictRule {
  const missing = new Set((spec.missing ?? []).map((m) => JSON.stringify([m.subject, m.task, m.index])));
  const erroredRepos = new Set(spec.erroredRepos ?? []);
  const candidates = sims.filter((s) => s.resolved && !(s.task.kind === 'repair' && erroredRepos.has(s.task.repo)));
  const falseFailures = new Set(new Rng('false-failures', seed).shuffle(candidates).slice(0, spec.falseFailures ?? 0).map((s) => s.attempt.attempt_id));
  return (sim) => {
    if (sim.attempt.outcome !== 'completed') return 'fail';
    if (missing.has(JSON.stringify([sim.subjectIndex, sim.task.id, sim.attempt.index]))) return null;
    if (sim.task.kind === 'repair' && erroredRepos.has(sim.task.repo)) return 'error';
    if (!HEADLINE.has(sim.task.id) && new Rng('grade-error', seed, sim.attempt.attempt_id).chance(spec.errorRate)) return 'error';
    if (falseFailures.has(sim.attempt.attempt_id)) return 'fail';
    return trueVerdict(sim);
  };
}

/** Builds one generation: its receipt, its logs and its results (in attempt order). */
export function buildGeneration(options: {
  planId: string;
  generation: number;
  grader: Grader;
  createdAtDeci: number;
  sims: readonly SimAttempt[];
  rule: VerdictRule;
  errorReason: string;
  store: ArtifactStore;
}): Grades {
  const { sims, rule, store, grader } = options;
  const verdicts = sims.map((sim) => ({ sim, verdict: rule(sim) }));
  const graded = verdicts.filter((v) => v.verdict !== null);
  const receipt = store.put(
    'receipts',
    'json',
    prettyJson({
      schema: 'yylo.grader-receipt.v1',
      plan_id: options.planId,
      generation: options.generation,
      grader,
      host: 'grader-02.example.com',
      results: graded.length,
      finished_at: isoSeconds(options.createdAtDeci),
    }),
  );
  const results: GradeResult[] = graded.map(({ sim, verdict }) => ({
    attempt_id: sim.attempt.attempt_id,
    verdict: verdict!,
    input: sim.graderInput,
    output: store.put('grader', 'txt', graderLog(sim, verdict!, options.errorReason)),
    receipt,
  }));
  return { schema: 'ledgerboard.grades.v1', generation: options.generation, created_at: isoSeconds(options.createdAtDeci), grader, results };
}

/** The grader's log for one result: a function of the task and verdict only (or of the outcome, when nothing ran). */
function graderLog(sim: SimAttempt, verdict: Verdict, errorReason: string): string {
  if (sim.attempt.outcome !== 'completed') return nothingToGrade(sim.attempt.outcome);
  const task = sim.task;
  if (verdict === 'error') {
    return `oracle: could not prepare the test environment for ${task.id}\nreason: ${errorReason}\nexit status: 3\n`;
  }
  if (task.kind === 'question') {
    return `oracle: ${task.id} (question-answer)\ncompared the answer with the reference, case- and space-insensitively\nverdict: ${verdict}\n`;
  }
  return pytestLog(task, verdict === 'pass');
}

function nothingToGrade(outcome: Outcome): string {
  return `oracle: no candidate output to grade\nthe attempt ended with outcome ${outcome}\nverdict: fail\n`;
}

const RULE = '='.repeat(29);

function pytestLog(task: TaskSpec & { kind: 'repair' }, passed: boolean): string {
  const repoName = task.repo.slice(task.repo.lastIndexOf('/') + 1).replace(/\.git$/, '');
  const seconds = (new Rng('pytest-seconds', task.id).int(12, 240) / 100).toFixed(2);
  const head = [`${RULE} test session starts ${RULE}`, 'platform linux -- Python 3.12.6, pytest-8.3.3, pluggy-1.5.0', `rootdir: /work/${repoName}`, 'collected 1 item', ''];
  if (passed) return [...head, `${task.test} PASSED [100%]`, '', `${RULE} 1 passed in ${seconds}s ${RULE}`, ''].join('\n');
  return [
    ...head,
    `${task.test} FAILED [100%]`,
    '',
    `${'='.repeat(35)} FAILURES ${'='.repeat(35)}`,
    `>       ${task.assertion}`,
    'E       AssertionError',
    '',
    `FAILED ${task.test} - AssertionError`,
    `${RULE} 1 failed in ${seconds}s ${RULE}`,
    '',
  ].join('\n');
}
