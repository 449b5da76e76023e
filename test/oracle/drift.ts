/** The reference form of the baseline's drift (src/analysis/drift.ts), for tests only: attempt object by attempt object. */
import { driftSeries, type DriftPoint } from '../../src/analysis/drift.ts';
import type { LedgerSplits } from '../../src/analysis/headline.ts';
import type { ObjectCohortPool } from './pool.ts';

/** The baseline's rate per plan over time, with drift flags. */
export function baselineDrift(baseline: ObjectCohortPool, splits: LedgerSplits): DriftPoint[] {
  const perPlan = new Map<string, { resolved: number; graded: number }>();
  for (const a of baseline.attempts) {
    if (splits.splitOf.get(a.task_id) !== 'headline') continue;
    const t = perPlan.get(a.plan_id) ?? { resolved: 0, graded: 0 };
    t.graded++;
    if (a.terminal === 'resolved') t.resolved++;
    perPlan.set(a.plan_id, t);
  }
  return driftSeries([...baseline.plans.values()], perPlan);
}

