/**
 * Compare pages' URLs and limits (compare.ts builds their data): what the
 * pages and components import, free of the analysis code compare.ts runs.
 */
import { hexOf } from './format.ts';

/** Beyond the cap, each cohort's pages go to this many nearest neighbours by rank (the nearer above first on a tie of distance). */
export const COMPARE_NEIGHBOURS = 5;
/** The default of the config's compare_max_cohorts. */
export const COMPARE_MAX_COHORTS = 50;

const byString = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** The two cohort ids in page order: the one that sorts first (byte order) is a. */
export function pageOrder(x: string, y: string): [string, string] {
  return byString(x, y) <= 0 ? [x, y] : [y, x];
}

/** The path of a compare page (a before b in cohort id order; the arguments in either order). */
export function comparePath(boardId: string, x: string, y: string): string {
  const [a, b] = pageOrder(x, y);
  return `/boards/${hexOf(boardId)}/compare/${hexOf(a)}/${hexOf(b)}/`;
}

/** The key of a compare page in SiteCompareBoard.pages: "<a-hex>/<b-hex>". */
export function compareKey(x: string, y: string): string {
  const [a, b] = pageOrder(x, y);
  return `${hexOf(a)}/${hexOf(b)}`;
}
