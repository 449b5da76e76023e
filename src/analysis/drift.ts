/**
 * Laboratory drift (FORMAT.md section 7.5): the baseline's headline rate per
 * contributing plan, in created_at order, with a two-proportion z-test
 * between consecutive plans. A move with p < 0.05 is flagged as drift: the
 * same subject on the same board should not change between plans.
 */
import { compareTimestamps } from '../schema/timestamp.ts';
import type { CohortPool } from './pool.ts';
import { twoProportionTest } from './stats.ts';

/** The baseline's headline figures in one plan, and the test against the plan before it. */
export interface DriftPoint {
  plan_id: string;
  created_at: string;
  resolved: number;
  graded: number;
  rate: number | null;
  /** Against the previous plan; null for the first plan or when the test is undefined. */
  versus_previous: { z: number; p: number; drift: boolean } | null;
}

/** Significance level of the drift flag. */
export const DRIFT_ALPHA = 0.05;

/** The baseline's headline rate per plan over time, with drift flags. */
export function baselineDrift(baseline: CohortPool): DriftPoint[] {
  const perPlan = new Map<string, { resolved: number; graded: number }>();
  for (const part of baseline.parts) {
    const t = perPlan.get(part.plan_id) ?? { resolved: 0, graded: 0 };
    t.resolved += part.headline.resolved;
    t.graded += part.headline.graded;
    perPlan.set(part.plan_id, t);
  }
  return driftSeries([...baseline.plans.values()], perPlan);
}

/**
 * The baseline's rate per plan in freeze order (created_at, then plan id),
 * each point tested against the one before (two-proportion z-test).
 */
export function driftSeries(
  planList: readonly { plan_id: string; created_at: string }[],
  perPlan: ReadonlyMap<string, { resolved: number; graded: number }>,
): DriftPoint[] {
  const plans = [...planList].sort(
    (a, b) => compareTimestamps(a.created_at, b.created_at) || (a.plan_id < b.plan_id ? -1 : a.plan_id > b.plan_id ? 1 : 0),
  );
  const points: DriftPoint[] = [];
  for (const plan of plans) {
    const t = perPlan.get(plan.plan_id) ?? { resolved: 0, graded: 0 };
    const previous = points.at(-1);
    let versus: DriftPoint['versus_previous'] = null;
    if (previous) {
      const test = twoProportionTest(previous.resolved, previous.graded, t.resolved, t.graded);
      if (test) versus = { z: test.z, p: test.p, drift: test.p < DRIFT_ALPHA };
    }
    points.push({
      plan_id: plan.plan_id,
      created_at: plan.created_at,
      resolved: t.resolved,
      graded: t.graded,
      rate: t.graded === 0 ? null : t.resolved / t.graded,
      versus_previous: versus,
    });
  }
  return points;
}
