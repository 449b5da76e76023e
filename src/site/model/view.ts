/**
 * How pages read the site model (model.ts): lookups into its plain data
 * (indexes into the report, never a copy of it) and absolute URLs. Pure, and
 * free of anything but types, so a page, a component or a layout imports it
 * beside the model it gets from `virtual:ledgerboard/site-model`.
 */
import type { ReportBoard, ReportCohort } from '../../report/schema.ts';
import type { SiteBundle, SiteModel } from './model-types.ts';
import type { CohortMoney } from '../../facts/money.ts';

/** An absolute URL on the site for a path starting with "/". */
export function absolute(model: Pick<SiteModel, 'siteUrl'>, path: string): string {
  return new URL(path.replace(/^\//, ''), model.siteUrl).href;
}

/** The boards in display order (src/report/board-order.ts). */
export function boardsOf(model: Pick<SiteModel, 'report' | 'boardOrder'>): ReportBoard[] {
  return model.boardOrder.map((i) => model.report.boards[i]!);
}

/** The cohort of the report with this id; throws for an id the report does not hold (a bug). */
export function cohortOf(model: Pick<SiteModel, 'report' | 'cohortIndex'>, id: string): ReportCohort {
  const cohort = hasCohort(model, id) ? model.report.cohorts[model.cohortIndex[id]!] : undefined;
  if (cohort === undefined) throw new Error(`no cohort ${id} in the report`);
  return cohort;
}

/** The money facts (src/facts/money.ts) of the report's cohort with this id; throws for an id the report does not hold (a bug). */
export function cohortMoneyOf(model: Pick<SiteModel, 'cohortMoney' | 'cohortIndex'>, id: string): CohortMoney {
  const money = hasCohort(model, id) ? model.cohortMoney[model.cohortIndex[id]!] : undefined;
  if (money === undefined) throw new Error(`no money facts for cohort ${id}`);
  return money;
}

/** True when the report holds a cohort with this id. */
export function hasCohort(model: Pick<SiteModel, 'cohortIndex'>, id: string): boolean {
  return Object.hasOwn(model.cohortIndex, id);
}

const maps = new WeakMap<readonly ReportCohort[], Map<string, ReportCohort>>();

/** A report's cohorts by id (what BoardTable and the charts look rows up in), made once per list. */
export function cohortMap(cohorts: readonly ReportCohort[]): ReadonlyMap<string, ReportCohort> {
  let map = maps.get(cohorts);
  if (map === undefined) {
    map = new Map(cohorts.map((c) => [c.cohort_id, c]));
    maps.set(cohorts, map);
  }
  return map;
}

/** A bundle's entry in report.bundles: its findings, its plan summary, its money. */
export function entryOf(model: Pick<SiteModel, 'report'>, bundle: Pick<SiteBundle, 'report'>): SiteModel['report']['bundles'][number] {
  return model.report.bundles[bundle.report]!;
}

/** The bundle a plan page shows, by plan hex (SiteModel.plans), or undefined. */
export function planBundle(model: Pick<SiteModel, 'plans' | 'bundles'>, hex: string): SiteBundle | undefined {
  return Object.hasOwn(model.plans, hex) ? model.bundles[model.plans[hex]!] : undefined;
}
