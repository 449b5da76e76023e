/**
 * Compare pages' URLs and limits (src/facts/compare.ts computes their data): what the
 * pages and components import, free of the analysis code compare.ts runs.
 */
import { hexOf } from './format.ts';
import { compareCodeUnits as byString } from '../../json/compare.ts';

/** The cap's numbers, defined where the compare facts are computed (src/facts/compare-limits.ts: no imports). */
export { COMPARE_MAX_COHORTS, COMPARE_NEIGHBOURS } from '../../facts/compare-limits.ts';

/** The two cohort ids in page order: the one that sorts first (byte order) is a. */
export function pageOrder(x: string, y: string): [string, string] {
  return byString(x, y) <= 0 ? [x, y] : [y, x];
}

/**
 * Which of a compare page's two cohorts the page shows first (as A), the
 * reader's order: a candidate before a baseline; between two of the same
 * role, the better-ranked one, which is the one placed earlier in the board's
 * `cohorts` (the report's rank order: the lower `rank`, the competition rank
 * by headline rate, a cohort without a rate last; equal ranks by cohort id
 * byte order), the order of the board table and of the pair table's rows.
 * The URL keeps the cohort id order ({@link pageOrder}). True when `x` reads
 * first.
 */
export function readsFirst(boardCohorts: readonly string[], x: { cohort_id: string; subject: { role: string } }, y: { cohort_id: string; subject: { role: string } }): boolean {
  const xb = x.subject.role === 'baseline';
  const yb = y.subject.role === 'baseline';
  if (xb !== yb) return yb;
  const i = boardCohorts.indexOf(x.cohort_id);
  const j = boardCohorts.indexOf(y.cohort_id);
  if (i === -1 || j === -1) throw new Error(`a compare page of cohorts not on its board: ${x.cohort_id}, ${y.cohort_id}`);
  return i < j;
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

/** The words of a board's resolution (SiteCompareBoard.resolution), one sentence each: before adjustment, then at Holm's first step. */
export function resolutionText(r: { unadjusted: Resolution; holm: Resolution }): string[] {
  const n = r.unadjusted.tasks;
  const tasks = `${n} headline task${n === 1 ? '' : 's'}`;
  if (r.unadjusted.smallest === null) {
    return [`Resolution: with ${tasks}, no pair can reach p < 0.05 even before adjustment (all ${n} one way gives p = 2 / 2^${n} ≥ 0.05): the sign test cannot tell any two cohorts apart on this board.`];
  }
  const [d] = r.unadjusted.smallest;
  const [na, nb] = r.unadjusted.allDiffer!;
  const lines = [`Resolution: with ${tasks}, the smallest difference that can reach p < 0.05 before adjustment is ${d} tasks to 0 (only ${d} tasks differ, all one way); when all ${n} differ, ${na} to ${nb}.`];
  const m = r.holm.factor;
  if (m > 1) {
    lines.push(
      r.holm.smallest === null
        ? `After Holm's adjustment over the board's ${m} pairs no pair can win: even ${n} to 0 gives ${m} × p ≥ 0.05.`
        : `After Holm's adjustment over the board's ${m} pairs, the strongest pair needs ${r.holm.smallest[0]} to 0 (${r.holm.allDiffer![0]} to ${r.holm.allDiffer![1]} when all ${n} differ).`,
    );
  }
  return lines;
}

interface Resolution {
  tasks: number;
  factor: number;
  smallest: [number, number] | null;
  allDiffer: [number, number] | null;
}

/**
 * The cohorts of `cohortId`'s board it has a compare page with, in the
 * board's order, each with the page's path; and how many of the board's
 * other cohorts have none (over the cap).
 */
export function compareLinks(
  boardCohorts: readonly string[],
  boardId: string,
  pages: Readonly<Record<string, unknown>>,
  cohortId: string,
): { links: { id: string; place: number; path: string }[]; without: number } {
  const links: { id: string; place: number; path: string }[] = [];
  let without = 0;
  boardCohorts.forEach((id, i) => {
    if (id === cohortId) return;
    if (Object.hasOwn(pages, compareKey(id, cohortId))) links.push({ id, place: i + 1, path: comparePath(boardId, id, cohortId) });
    else without++;
  });
  return { links, without };
}
