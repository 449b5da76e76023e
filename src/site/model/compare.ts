/**
 * Compare pages and the pair matrix (issue 14, FORMAT.md 7.6) as the site
 * holds them: per board, the compare facts computed below the site
 * (src/facts/compare.ts: the pairs with a page under the cap, each side's
 * per-task sides and wins, the paired bootstrap delta, the sign test's
 * resolution), keyed by page (`/boards/<board-hex>/compare/<a-hex>/<b-hex>/`,
 * a before b in cohort id order), with the pair matrix drawn beside them.
 * Nothing is computed here but the chart, the keys and the reader's order
 * ({@link compareView}: the facts turned to the order the page reads in).
 */
import type { ReportBoard, ReportCohort } from '../../report/schema.ts';
import type { SignTestResolution } from '../../analysis/pairs.ts';
import type { CompareBoardFacts, SiteComparePage, SiteTaskSide } from '../../facts/compare.ts';
import { pairChart } from '../charts/chart-pairs.ts';
import type { Chart } from '../charts/charts.ts';
import { compareKey, readsFirst } from '../views/compare-paths.ts';

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

/**
 * A compare page in the order it reads (compare-paths.ts readsFirst: a
 * candidate before a baseline, else the better-ranked first), the facts'
 * numbers turned to that order: `first` is the page's A, `second` its B.
 * When A is the pair's `b` (the URL's second cohort), the win counts and
 * task lists swap and the delta is negated (rate -r, interval [-hi, -lo]);
 * nothing is recomputed, so every figure is the facts' or its negation, and
 * its sign agrees with the board's pair table and the cohort's own delta
 * against its baseline (candidate - baseline).
 */
export interface CompareView {
  /** The page's A and B (cohort ids). */
  first: string;
  second: string;
  /** True when A is the pair's `b` (the order of the URL is flipped on the page). */
  flipped: boolean;
  /** Tasks complete on both sides where A has the higher rate, and B; ties. */
  firstBetter: number;
  secondBetter: number;
  tasks: number;
  /** Indexes into the headline tasks A wins and B wins (null without per-task sides). */
  firstWins: number[] | null;
  secondWins: number[] | null;
  /** A's and B's side on each headline task (null without per-task sides). */
  firstSides: SiteTaskSide[] | null;
  secondSides: SiteTaskSide[] | null;
  /** The paired bootstrap delta A - B (the facts' a - b, negated when flipped), null without per-task sides. */
  delta: SiteComparePage['delta'];
}

/** Negation that never writes -0 (a flipped delta of 0 reads "+0.0", as the cohort's own). */
const negate = (x: number): number => (x === 0 ? 0 : -x);

/** The page's figures in its reading order (see {@link CompareView}). */
export function compareView(board: Pick<ReportBoard, 'cohorts' | 'pairs'>, a: ReportCohort, b: ReportCohort, page: SiteComparePage, sides: Readonly<Record<string, SiteTaskSide[] | null>>): CompareView {
  const pair = board.pairs![page.pair]!;
  if (pair.a !== page.a || pair.b !== page.b || a.cohort_id !== page.a || b.cohort_id !== page.b) throw new Error(`compare page ${page.a} ${page.b} is not its pair's`);
  const flipped = !readsFirst(board.cohorts, a, b);
  const sa = sides[page.a] ?? null;
  const sb = sides[page.b] ?? null;
  const d = page.delta;
  const delta: SiteComparePage['delta'] =
    d === null || !flipped ? d : { ...d, rate: d.rate === null ? null : negate(d.rate), interval: d.interval === null ? null : [negate(d.interval[1]), negate(d.interval[0])] };
  return flipped
    ? { first: page.b, second: page.a, flipped, firstBetter: pair.b_better, secondBetter: pair.a_better, tasks: pair.tasks, firstWins: page.b_wins, secondWins: page.a_wins, firstSides: sb, secondSides: sa, delta }
    : { first: page.a, second: page.b, flipped, firstBetter: pair.a_better, secondBetter: pair.b_better, tasks: pair.tasks, firstWins: page.a_wins, secondWins: page.b_wins, firstSides: sa, secondSides: sb, delta };
}
