/**
 * Hand-made inputs for the shipped, column-wise analysis (src/analysis), in
 * the shapes the spec tests write them in: PooledAttempt rows become a
 * CohortPool of parts summarised from real attempt tables (one part per
 * bundle, as pooling makes them), and generations become
 * the grading layer as a lookup by attempt id. The spec tests run the same
 * expectations against these and against the object-by-object reference
 * (test/oracle), so both are held to the numbers worked out by hand.
 */
import { bundleColumns } from '../../src/analysis/columns.ts';
import { layerColumns, NO_VERDICT, REASON_CODES, TERMINAL_CLASSES, classCodes, type GraderReason, type TerminalClass } from '../../src/analysis/grading.ts';
import { boardKeyOf, cohortKeyOf } from '../../src/analysis/keys.ts';
import { ledgerPositions, summarizeRows } from '../../src/analysis/cohort-part.ts';
import type { CohortPool, ContributingPlan } from '../../src/analysis/pool.ts';
import { evidenceFromObjects } from '../../src/bundle/evidence.ts';
import type { GradesFile } from '../../src/bundle/lines.ts';
import { OUTCOME_CODES, VERDICT_CODES } from '../../src/bundle/tables.ts';
import type { GradingPin } from '../../src/config/config.ts';
import type { Attempt, Outcome, Plan } from '../../src/schema/index.ts';
import type { LayerGrade } from '../oracle/grading.ts';
import type { PooledAttempt } from '../oracle/pool.ts';
import { PLAN_CREATED_AT, validBundle } from './bundle-builder.ts';

/** An attempt record for a row (subject, times and patch are neutral: the figures never read them). */
export function attemptOf(row: Pick<PooledAttempt, 'attempt_id' | 'task_id' | 'index' | 'terminal' | 'wall_seconds' | 'tokens' | 'retries' | 'cost'>): Attempt {
  return {
    attempt_id: row.attempt_id,
    task_id: row.task_id,
    model: 'acme/model',
    agent: { name: 'loop', version: '1.0.0' },
    index: row.index,
    observed_model: 'acme/model',
    outcome: row.terminal === 'resolved' || row.terminal === 'grader_failure' ? 'completed' : row.terminal,
    started_at: '2026-09-15T00:00:00Z',
    ended_at: '2026-09-15T00:01:00Z',
    wall_seconds: row.wall_seconds,
    tokens: row.tokens,
    retries: row.retries,
    cost: row.cost,
    patch: null,
  };
}

/**
 * The cohort the shipped analysis sees for these rows: one part per bundle
 * (in bundle id order), summarised from its rows in the order given, each
 * with the row's terminal class and reason as pooling would have set them;
 * `ledger` is the task ids in ledger order, `headline` the headline tasks.
 */
export function cohortOf(rows: readonly PooledAttempt[], ledger: readonly string[], headline: readonly string[]): CohortPool {
  const positions = ledgerPositions(ledger, headline);
  const byBundle = new Map<string, PooledAttempt[]>();
  for (const row of rows) byBundle.set(row.bundle_id, [...(byBundle.get(row.bundle_id) ?? []), row]);
  const plans = new Map<string, ContributingPlan>();
  const parts = [...byBundle.keys()].sort().map((bundle_id) => {
    const mine = byBundle.get(bundle_id)!;
    const plan_id = mine[0]!.plan_id;
    const perTask = Math.max(...mine.map((r) => r.index));
    const known = plans.get(plan_id);
    plans.set(plan_id, { plan_id, bundle_id, title: plan_id, created_at: PLAN_CREATED_AT, attempts_per_task: Math.max(perTask, known?.attempts_per_task ?? 0) });
    const evidence = evidenceFromObjects({ attempts: mine.map((r, i) => ({ line: i + 1, attempt: attemptOf(r) })) });
    const columns = bundleColumns(evidence);
    return summarizeRows(
      { bundle_id, plan_id },
      columns,
      Int32Array.from(mine, (_, i) => i),
      Uint8Array.from(mine, (r) => TERMINAL_CLASSES.indexOf(r.terminal)),
      Uint8Array.from(mine, (r) => REASON_CODES.indexOf(r.reason)),
      positions,
    );
  });
  const { plan } = validBundle();
  return {
    cohort_id: 'cohort',
    board_id: 'board',
    key: cohortKeyOf(boardKeyOf(plan, plan.grader), { model: 'acme/model', agent: { name: 'loop', version: '1.0.0' } }),
    roles: new Set(['candidate']),
    selectors: new Set([':cohort']),
    plans,
    parts,
    regrades: [],
    earlier: new Map(),
  };
}

/** The shipped grading layer of these generations over attempts with these ids, as a lookup by attempt id (null: excluded by the pin). */
export function shippedGradingLayer(plan: Plan, generations: readonly GradesFile[], pin: GradingPin, attemptIds: readonly string[]): (attemptId: string) => LayerGrade | null {
  const attempts = attemptIds.map((attempt_id, i) => ({
    line: i + 1,
    attempt: attemptOf({ attempt_id, task_id: 't', index: 1, terminal: 'resolved', wall_seconds: 1, tokens: null, retries: 0, cost: { state: 'unavailable', micros: null } }),
  }));
  const columns = bundleColumns(evidenceFromObjects({ attempts, grades: generations }));
  const layer = layerColumns(plan, columns, pin);
  return (attemptId) => {
    const row = attemptIds.indexOf(attemptId);
    if (row === -1) throw new Error(`${attemptId} is not one of the attempts given`);
    const k = layer.grader[row]!;
    if (k === -1) return null;
    const verdict = layer.verdict[row]!;
    return { grader: layer.graders[k]!, generation: layer.generations[k]?.generation ?? null, verdict: verdict === NO_VERDICT ? null : VERDICT_CODES[verdict]! };
  };
}

/** The shipped terminal class of an outcome and a layer verdict. */
export function shippedTerminalClass(outcome: Outcome, verdict: LayerGrade['verdict']): { terminal: TerminalClass; reason: GraderReason | null } {
  const { terminal, reason } = classCodes(OUTCOME_CODES.indexOf(outcome), verdict === null ? NO_VERDICT : VERDICT_CODES.indexOf(verdict));
  return { terminal: TERMINAL_CLASSES[terminal]!, reason: REASON_CODES[reason]! };
}
