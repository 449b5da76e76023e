/**
 * What changed between reports, as the site lists them (issue 14, item 4):
 * each retained report against the retained report before it (evidence
 * date, then id: history/retained-reports.ts), and the current report,
 * when it is not retained, against the newest retained one. Only reports
 * that parse and whose id re-derives are compared or compared against.
 * Pure: computed from the model's reports at render time.
 */
import { diffReports, diffSummary, type ReportDiff } from '../../history/report-diff.ts';
import type { SiteModel } from './model-types.ts';

export interface ReportChanges {
  /** The hex of the report compared against; null for the first report or one not compared. */
  previous: string | null;
  diff: ReportDiff | null;
  /** The one-line summary ("2 cohorts added, 1 moved (new plan)") or why there is none. */
  summary: string;
}

export const FIRST = 'the first retained report: nothing before it to compare with';
export const UNCHECKED = 'not compared: this retained file does not check';

type Changes = { retained: Map<string, ReportChanges>; current: ReportChanges };
/** Pages ask once each; the list is computed once per model (keyed on its retained list and current id). */
const cache = new WeakMap<object, { reportId: string; changes: Changes }>();

/** The changes of every retained report (by hex) and of the current report. */
export function reportChanges(model: Pick<SiteModel, 'retained' | 'report'>): { retained: ReadonlyMap<string, ReportChanges>; current: ReportChanges } {
  const hit = cache.get(model.retained);
  if (hit !== undefined && hit.reportId === model.report.report_id) return hit.changes;
  const changes = compute(model);
  cache.set(model.retained, { reportId: model.report.report_id, changes });
  return changes;
}

function compute(model: Pick<SiteModel, 'retained' | 'report'>): Changes {
  const retained = new Map<string, ReportChanges>();
  let previous: { hex: string; report: NonNullable<SiteModel['retained'][number]['report']> } | null = null;
  for (const r of model.retained) {
    if (r.report === null || r.problems.length > 0) {
      retained.set(r.hex, { previous: null, diff: null, summary: UNCHECKED });
      continue;
    }
    retained.set(r.hex, changesSince(previous, r.report));
    previous = { hex: r.hex, report: r.report };
  }
  const currentHex = model.report.report_id.slice('sha256:'.length);
  const current = retained.get(currentHex) ?? (previous === null ? { previous: null, diff: null, summary: 'no retained report before it to compare with' } : changesSince(previous, model.report));
  return { retained, current };
}

function changesSince(previous: { hex: string; report: SiteModel['report'] } | null, report: SiteModel['report']): ReportChanges {
  if (previous === null) return { previous: null, diff: null, summary: FIRST };
  const diff = diffReports(previous.report, report);
  return { previous: previous.hex, diff, summary: diffSummary(diff) };
}
