/**
 * The order in which boards are shown, the same on the site (leaderboard,
 * CSV, sitemap) and in `ledgerboard report`'s text: frozen evidence before
 * imported (FORMAT.md 9: they never rank together), then the board with the
 * newest plan first (the newest `created_at` over its cohorts' plans), then
 * by board id. report.json keeps boards sorted by id, so its bytes never
 * depend on presentation.
 */
import { compareTimestamps } from '../schema/timestamp.ts';
import type { Report, ReportBoard } from './schema.ts';

/** The newest plan `created_at` of each board (over the plans its cohorts pool). */
function newestPlans(report: Report): Map<string, string> {
  const newest = new Map<string, string>();
  for (const cohort of report.cohorts) {
    for (const plan of cohort.plans) {
      const current = newest.get(cohort.board_id);
      if (current === undefined || compareTimestamps(plan.created_at, current) > 0) newest.set(cohort.board_id, plan.created_at);
    }
  }
  return newest;
}

/** The report's boards in display order (a new array; the report is not changed). */
export function boardsInOrder(report: Report): ReportBoard[] {
  const newest = newestPlans(report);
  return [...report.boards].sort((a, b) => {
    const origin = Number(a.key.origin === 'imported') - Number(b.key.origin === 'imported');
    if (origin !== 0) return origin;
    const [na, nb] = [newest.get(a.board_id), newest.get(b.board_id)];
    if (na !== nb) {
      if (na === undefined) return 1;
      if (nb === undefined) return -1;
      const newer = compareTimestamps(nb, na);
      if (newer !== 0) return newer;
    }
    return a.board_id < b.board_id ? -1 : a.board_id > b.board_id ? 1 : 0;
  });
}
