/**
 * Pools the attempts of verified bundles into cohorts (FORMAT.md 7.1): every
 * attempt gets its grading layer, terminal class, board key and cohort key;
 * attempts with one cohort key pool across bundles. Only verified bundles
 * enter; a plan that appears in two different verified bundles is counted in
 * neither and reported as a conflict (never a silent choice).
 */
import type { GradingPin } from '../config/config.ts';
import { subjectKey } from '../verify/context.ts';
import type { Attempt, Grader, LedgerRecord, Plan } from '../schema/index.ts';
import type { BundleEvidence } from '../verify/verify-bundle.ts';
import { gradingLayer, terminalClass, type GraderReason, type TerminalClass } from './grading.ts';
import { boardKeyOf, cohortKeyOf, keyId, type BoardKey, type CohortKey } from './keys.ts';

/** A verified bundle as analysis sees it. */
export interface AnalysisInput {
  bundle_id: string;
  plan_id: string;
  evidence: BundleEvidence;
}

/** An attempt reduced to what the score vector needs. */
export interface PooledAttempt {
  bundle_id: string;
  plan_id: string;
  attempt_id: string;
  task_id: string;
  index: number;
  klass: TerminalClass;
  reason: GraderReason | null;
  wall_seconds: number;
  tokens: Attempt['tokens'];
  retries: number;
  cost: Attempt['cost'];
}

/** A plan contributing to a cohort. */
export interface ContributingPlan {
  plan_id: string;
  bundle_id: string;
  title: string;
  created_at: string;
  attempts_per_task: number;
}

/** A cohort being built: its key, subject facts and attempts. */
export interface CohortPool {
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
export interface Pools {
  cohorts: Map<string, CohortPool>;
  boards: Map<string, BoardKey>;
  /** Ledger records by ledger digest (ledger order), and each ledger's name. */
  ledgers: Map<string, { name: string; records: LedgerRecord[] }>;
  /** Attempts a grading pin left out, per bundle. */
  excludedByPin: { bundle_id: string; attempts: number }[];
  /** Plans present in more than one distinct verified bundle: none of those bundles is counted. */
  conflicts: { plan_id: string; bundle_ids: string[] }[];
}

/** Pools the verified bundles. Inputs may come in any order; the result does not depend on it. */
export function poolAttempts(inputs: readonly AnalysisInput[], pin: GradingPin): Pools {
  const pools: Pools = { cohorts: new Map(), boards: new Map(), ledgers: new Map(), excludedByPin: [], conflicts: [] };
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

function poolBundle(pools: Pools, input: AnalysisInput, pin: GradingPin): void {
  const plan = input.evidence.plan as Plan;
  if (!pools.ledgers.has(plan.ledger.digest)) pools.ledgers.set(plan.ledger.digest, { name: plan.ledger.name, records: input.evidence.ledger });
  const gradeOf = gradingLayer(plan, input.evidence.grades, pin);
  const roles = new Map(plan.subjects.map((s) => [subjectKey(s.model, s.agent), s]));
  // One cohort id per (subject, grader): computing a key digest per attempt would dominate at scale.
  // Keyed by the subject key and the grader object the layer hands out (one per generation), so a
  // lookup builds no string; another object with the same grader finds the same cohort by its id.
  const cohortCache = new Map<string, Map<Grader, CohortPool>>();
  // Boards this plan puts attempts on: every subject of the plan contributes to each of them.
  const touched = new Map<string, BoardKey>();
  let excluded = 0;
  for (const { attempt } of input.evidence.attempts) {
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
    const { klass, reason } = terminalClass(attempt.outcome, grade.verdict);
    pool.attempts.push({
      bundle_id: input.bundle_id,
      plan_id: input.plan_id,
      attempt_id: attempt.attempt_id,
      task_id: attempt.task_id,
      index: attempt.index,
      klass,
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
function joinCohort(pools: Pools, input: AnalysisInput, boardKey: BoardKey, board_id: string, subject: Plan['subjects'][number]): CohortPool {
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
