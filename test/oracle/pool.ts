/**
 * The reference form of pooling (src/analysis/pool.ts), for tests only: the
 * same rules (FORMAT.md 7.1) written object by object, one PooledAttempt per
 * attempt, built from the evidence's attempts as objects. Property tests
 * (test/analysis/columns.test.ts) hold the shipped analysis to the same
 * figures.
 */
import type { GradingPin } from '../../src/config/config.ts';
import { subjectKey } from '../../src/bundle/subject.ts';
import type { Attempt, Grader, LedgerRecord, Plan } from '../../src/schema/index.ts';
import type { AnalysisInput, ContributingPlan } from '../../src/analysis/pool.ts';
import type { GraderReason, TerminalClass } from '../../src/analysis/grading.ts';
import { boardKeyOf, cohortKeyOf, keyId, type BoardKey, type CohortKey } from '../../src/analysis/keys.ts';
import { gradingLayer, terminalClass } from './grading.ts';

/** An attempt reduced to what the score vector needs. */
export interface PooledAttempt {
  bundle_id: string;
  plan_id: string;
  attempt_id: string;
  task_id: string;
  index: number;
  terminal: TerminalClass;
  reason: GraderReason | null;
  wall_seconds: number;
  tokens: Attempt['tokens'];
  retries: number;
  cost: Attempt['cost'];
}

/** A cohort being built: its key, subject facts and attempts. */
export interface ObjectCohortPool {
  cohort_id: string;
  board_id: string;
  key: CohortKey;
  /** Roles the contributing plans give this subject. */
  roles: Set<'candidate' | 'baseline'>;
  selectors: Set<string>;
  plans: Map<string, ContributingPlan>;
  attempts: PooledAttempt[];
}

/** What pooling produced. */
export interface ObjectPools {
  cohorts: Map<string, ObjectCohortPool>;
  boards: Map<string, BoardKey>;
  /** Ledger records by ledger digest (ledger order), and each ledger's name. */
  ledgers: Map<string, { name: string; records: readonly LedgerRecord[] }>;
  /** Attempts a grading pin left out, per bundle. */
  excludedByPin: { bundle_id: string; attempts: number }[];
  /** Plans present in more than one distinct verified bundle: none of those bundles is counted. */
  conflicts: { plan_id: string; bundle_ids: string[] }[];
}

/** Pools the verified bundles. Inputs may come in any order; the result does not depend on it. */
export function poolAttemptObjects(inputs: readonly AnalysisInput[], pin: GradingPin): ObjectPools {
  const pools: ObjectPools = { cohorts: new Map(), boards: new Map(), ledgers: new Map(), excludedByPin: [], conflicts: [] };
  const byPlan = new Map<string, Map<string, AnalysisInput>>();
  for (const input of inputs) {
    const same = byPlan.get(input.plan_id) ?? new Map<string, AnalysisInput>();
    same.set(input.bundle_id, input);
    byPlan.set(input.plan_id, same);
  }
  const counted: AnalysisInput[] = [];
  for (const [plan_id, bundles] of byPlan) {
    if (bundles.size === 1) counted.push(...bundles.values());
    else pools.conflicts.push({ plan_id, bundle_ids: [...bundles.keys()].sort() });
  }
  pools.conflicts.sort((a, b) => (a.plan_id < b.plan_id ? -1 : a.plan_id > b.plan_id ? 1 : 0));
  counted.sort((a, b) => (a.bundle_id < b.bundle_id ? -1 : a.bundle_id > b.bundle_id ? 1 : 0));
  for (const input of counted) poolBundle(pools, input, pin);
  return pools;
}

function poolBundle(pools: ObjectPools, input: AnalysisInput, pin: GradingPin): void {
  const plan = input.evidence.plan as Plan;
  if (!pools.ledgers.has(plan.ledger.digest)) pools.ledgers.set(plan.ledger.digest, { name: plan.ledger.name, records: input.evidence.ledger });
  const gradeOf = gradingLayer(plan, input.evidence.grades.map((g) => g.file()), pin);
  const roles = new Map(plan.subjects.map((s) => [subjectKey(s.model, s.agent), s]));
  // One cohort id per (subject, grader): computing a key digest per attempt would dominate at scale.
  // Keyed by the subject key and the grader object the layer hands out (one per generation), so a
  // lookup builds no string; another object with the same grader finds the same cohort by its id.
  const cohortCache = new Map<string, Map<Grader, ObjectCohortPool>>();
  // Boards this plan puts attempts on: every subject of the plan contributes to each of them.
  const touched = new Map<string, BoardKey>();
  let excluded = 0;
  for (const { attempt } of input.evidence.attempts.lines()) {
    const grade = gradeOf(attempt.attempt_id);
    if (grade === null) {
      excluded++;
      continue;
    }
    const subject = subjectKey(attempt.model, attempt.agent);
    let bySubject = cohortCache.get(subject);
    if (!bySubject) {
      bySubject = new Map();
      cohortCache.set(subject, bySubject);
    }
    let pool = bySubject.get(grade.grader);
    if (!pool) {
      const boardKey = boardKeyOf(plan, grade.grader);
      const board_id = keyId(boardKey);
      touched.set(board_id, boardKey);
      pool = joinCohort(pools, input, boardKey, board_id, roles.get(subject)!);
      bySubject.set(grade.grader, pool);
    }
    const { terminal, reason } = terminalClass(attempt.outcome, grade.verdict);
    pool.attempts.push({
      bundle_id: input.bundle_id,
      plan_id: input.plan_id,
      attempt_id: attempt.attempt_id,
      task_id: attempt.task_id,
      index: attempt.index,
      terminal,
      reason,
      wall_seconds: attempt.wall_seconds,
      tokens: attempt.tokens,
      retries: attempt.retries,
      cost: attempt.cost,
    });
  }
  if (excluded > 0) pools.excludedByPin.push({ bundle_id: input.bundle_id, attempts: excluded });
  // A subject of the plan with no attempt on a board the plan uses still contributes that plan there,
  // so its empty slots make its tasks incomplete (FORMAT.md 7.4; a missing decision is never a pass).
  for (const [board_id, boardKey] of touched) {
    for (const subject of plan.subjects) joinCohort(pools, input, boardKey, board_id, subject);
  }
}

/** The cohort of a plan subject on a board (created when new), with the plan recorded as contributing. */
function joinCohort(pools: ObjectPools, input: AnalysisInput, boardKey: BoardKey, board_id: string, subject: Plan['subjects'][number]): ObjectCohortPool {
  const plan = input.evidence.plan as Plan;
  pools.boards.set(board_id, boardKey);
  const key = cohortKeyOf(boardKey, { model: subject.model, agent: subject.agent });
  const cohort_id = keyId(key);
  let pool = pools.cohorts.get(cohort_id);
  if (!pool) {
    pool = { cohort_id, board_id, key, roles: new Set(), selectors: new Set(), plans: new Map(), attempts: [] };
    pools.cohorts.set(cohort_id, pool);
  }
  pool.roles.add(subject.role);
  pool.selectors.add(subject.selector);
  pool.plans.set(input.plan_id, {
    plan_id: input.plan_id,
    bundle_id: input.bundle_id,
    title: plan.title,
    created_at: plan.created_at,
    attempts_per_task: plan.attempts,
  });
  return pool;
}
