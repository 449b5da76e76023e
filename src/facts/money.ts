/**
 * A bundle's money as its plan page shows it, computed below the site
 * (issue 28): the plan's budget (the report's plan summary, `plan.budget`)
 * and what its attempts spent (the report's `cost`, summed once by the report
 * from the attempt table: report/build-report.ts bundleCost). The dispatches
 * and the floor of the aggregate over them are exact integer arithmetic on
 * the report's plan summary, as the verifier's check (verify/check-plan.ts
 * dispatchesOf) does on the plan.
 *
 * A cohort's money is the report's (`cohorts[].cost`, pooled by the analysis
 * bundle by bundle); nothing here adds to it. What its rows need beside it
 * is here (cohortsMoney): how many of its attempts have a known cost, which
 * tells an amount (a total, or a lower bound) from "unavailable (n)" or "not
 * applicable", and whether the cohort has a place on the cost chart.
 */
import type { Report, ReportCohort } from '../report/schema.ts';

/** A cohort's money facts beside the report's `cost` (see the module comment). */
export interface CohortMoney {
  /**
   * The cohort's attempts whose cost is known, completely or in part: its
   * attempts less those whose cost is unavailable or not applicable. 0: no
   * amount is shown (the pages never show 0 for a cost nobody knows).
   */
  known: number;
}

/** Each cohort's money facts, in report order (the report's `cohorts`). */
export function cohortsMoney(report: Pick<Report, 'cohorts'>): CohortMoney[] {
  return report.cohorts.map(cohortMoney);
}

/** One cohort's money facts (see CohortMoney). */
export function cohortMoney(cohort: Pick<ReportCohort, 'attempts' | 'cost'>): CohortMoney {
  return { known: cohort.attempts - cohort.cost.unavailable - cohort.cost.not_applicable };
}

/** The money arithmetic of a plan, shown on its page: the report's numbers (its bundle's plan.budget and cost). */
export interface SiteMoney {
  currency: string;
  aggregate_micros: number;
  /** tasks x subjects x attempts per task, as an exact integer (it may pass 2^53 - 1). */
  dispatches: string;
  /** floor(aggregate_micros / dispatches), exactly. */
  floor_micros: string;
  per_attempt_micros: number;
  spent_micros: number;
  complete: boolean;
  unavailable: number;
  partial: number;
  not_applicable: number;
}

/** A bundle's money facts: its plan page's money, or null with the sentence the page shows when the report cannot give it. */
export interface BundleMoney {
  money: SiteMoney | null;
  /** Why the money is not shown although the plan has a budget (the page lists it among its problems); null otherwise. */
  problem: string | null;
}

/** Each bundle's money, in report order. */
export function bundlesMoney(report: Pick<Report, 'bundles'>): BundleMoney[] {
  return report.bundles.map(bundleMoney);
}

/** One bundle's money (see the module comment): null without a plan summary or a budget. */
export function bundleMoney(entry: Pick<Report['bundles'][number], 'plan' | 'cost'>): BundleMoney {
  const plan = entry.plan;
  const budget = plan?.budget ?? null;
  if (plan === null || budget === null) return { money: null, problem: null };
  const cost = entry.cost ?? null;
  if (cost === null) return { money: null, problem: 'the money could not be shown (the report holds no cost for this bundle)' };
  const dispatches = BigInt(plan.ledger.tasks) * BigInt(plan.subjects) * BigInt(plan.attempts_per_task);
  return {
    money: {
      currency: budget.currency,
      aggregate_micros: budget.aggregate_micros,
      dispatches: String(dispatches),
      floor_micros: String(BigInt(budget.aggregate_micros) / dispatches),
      per_attempt_micros: budget.per_attempt_micros,
      spent_micros: cost.micros,
      complete: cost.complete,
      unavailable: cost.unavailable,
      partial: cost.partial,
      not_applicable: cost.not_applicable,
    },
    problem: null,
  };
}
