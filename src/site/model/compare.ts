/**
 * Compare pages and the pair matrix (issue 14, FORMAT.md 7.6) as the site
 * holds them: per board, the compare facts computed below the site
 * (src/facts/compare.ts: the pairs with a page under the cap, each side's
 * per-task sides and wins, the paired bootstrap delta, the sign test's
 * resolution), keyed by page (`/boards/<board-hex>/compare/<a-hex>/<b-hex>/`,
 * a before b in cohort id order), with the pair matrix drawn beside them.
 * Nothing is computed here but the chart and the keys.
 */
import type { ReportBoard, ReportCohort } from '../../report/schema.ts';
import type { SignTestResolution } from '../../analysis/pairs.ts';
import type { CompareBoardFacts, SiteComparePage, SiteTaskSide } from '../../facts/compare.ts';
import { pairChart } from '../charts/chart-pairs.ts';
import type { Chart } from '../charts/charts.ts';
import { compareKey } from '../views/compare-paths.ts';

export type { SiteComparePage, SiteTaskSide } from '../../facts/compare.ts';

/** A board's pairs as the site shows them. */
export interface SiteCompareBoard {
  /** compare_max_cohorts in force. */
  cap: number;
  /** Every pair has a page (the board has at most `cap` cohorts). */
  full: boolean;
  /** Pairs on the board, with a page, and without. */
  pairs: number;
  /** The pair matrix (chart-pairs.ts): null for a board of fewer than two cohorts. */
  chart: Chart | null;
  /** The resolution before adjustment, and at Holm's first step over the board's pairs. */
  resolution: { unadjusted: SignTestResolution; holm: SignTestResolution };
  /** Per cohort id, its side on each headline task (headline order), or null when the report holds none. */
  sides: Record<string, SiteTaskSide[] | null>;
  /** The compare pages, by "<a-hex>/<b-hex>", in pair order. */
  pages: Record<string, SiteComparePage>;
}

/** Every board's compare data, by board id, from its facts (one per board of the report, or the build stops: a bug). */
export function siteCompare(boards: readonly ReportBoard[], cohorts: ReadonlyMap<string, ReportCohort>, facts: Readonly<Record<string, CompareBoardFacts>>): Record<string, SiteCompareBoard> {
  return Object.fromEntries(
    boards.map((board) => {
      const f = Object.hasOwn(facts, board.board_id) ? facts[board.board_id]! : null;
      if (f === null) throw new Error(`the site facts hold no compare facts for board ${board.board_id}`);
      const pages: Record<string, SiteComparePage> = {};
      for (const page of f.pages) pages[compareKey(page.a, page.b)] = page;
      const entry: SiteCompareBoard = { chart: pairChart(board, cohorts), cap: f.cap, full: f.full, pairs: f.pairs, resolution: f.resolution, sides: f.sides, pages };
      return [board.board_id, entry];
    }),
  );
}
