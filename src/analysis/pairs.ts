/**
 * Pairs and rank ranges (FORMAT.md 7.6): every two cohorts on one board
 * compared task by task with an exact two-sided sign test over the headline
 * tasks where both sides are complete (7.4), Holm's step-down adjustment over
 * the board's pairs, a winner where the adjusted p is below 0.05, and each
 * cohort's rank range from the pairs it wins and loses.
 *
 * Everything is exact until the last step: per-task rates are compared by
 * cross-multiplying integer counts (never by dividing), the sign test's tail
 * is summed with BigInt binomial coefficients, and the one division (by 2^n)
 * is rounded once to the nearest double. Holm's products are double
 * arithmetic in the order the format writes them.
 */
import type { ContributingPlan } from './pool.ts';
import type { TaskTally } from './score.ts';
import { sideOf } from './verdicts.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** The significance level of a pair's winner (FORMAT.md 7.6). */
export const PAIR_ALPHA = 0.05;

/** One cohort as the pairs see it. */
export interface PairCohort {
  cohort_id: string;
  tallies: ReadonlyMap<string, TaskTally>;
  plans: ReadonlyMap<string, ContributingPlan>;
}

/** One unordered pair (report `boards[].pairs[]`); `a` sorts before `b`. */
export interface Pair {
  a: string;
  b: string;
  /** Headline tasks complete on both sides. */
  tasks: number;
  /** Of those, tasks where a's rate is higher, and where b's is. */
  a_better: number;
  b_better: number;
  p: number;
  p_holm: number;
  winner: string | null;
}

/**
 * The board's pairs, sorted by (a, b), and each cohort's rank range
 * [1 + cohorts that beat it, N - cohorts it beats].
 */
export function boardPairs(headline: readonly string[], cohorts: readonly PairCohort[]): { pairs: Pair[]; rankRanges: Map<string, [number, number]> } {
  const sorted = [...cohorts].sort((x, y) => byString(x.cohort_id, y.cohort_id));
  // Per cohort, per headline task: [resolved, graded] when the side is complete, else null.
  const sides = sorted.map((c) => headline.map((id) => completeSide(c.tallies.get(id), c.plans)));
  const pairs: Pair[] = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      let tasks = 0;
      let aBetter = 0;
      let bBetter = 0;
      const sa = sides[i]!;
      const sb = sides[j]!;
      for (let t = 0; t < headline.length; t++) {
        const x = sa[t];
        const y = sb[t];
        if (!x || !y) continue;
        tasks++;
        // r_a - r_b = resolved_a / graded_a - resolved_b / graded_b, its sign without dividing.
        const d = x[0] * y[1] - y[0] * x[1];
        if (d > 0) aBetter++;
        else if (d < 0) bBetter++;
      }
      pairs.push({ a: sorted[i]!.cohort_id, b: sorted[j]!.cohort_id, tasks, a_better: aBetter, b_better: bBetter, p: signTestP(aBetter, bBetter), p_holm: 1, winner: null });
    }
  }
  const adjusted = holm(pairs.map((p) => p.p));
  pairs.forEach((pair, k) => {
    pair.p_holm = adjusted[k]!;
    if (pair.p_holm < PAIR_ALPHA && pair.a_better !== pair.b_better) pair.winner = pair.a_better > pair.b_better ? pair.a : pair.b;
  });
  const beats = new Map<string, number>(sorted.map((c) => [c.cohort_id, 0]));
  const beaten = new Map<string, number>(sorted.map((c) => [c.cohort_id, 0]));
  for (const pair of pairs) {
    if (pair.winner === null) continue;
    const loser = pair.winner === pair.a ? pair.b : pair.a;
    beats.set(pair.winner, beats.get(pair.winner)! + 1);
    beaten.set(loser, beaten.get(loser)! + 1);
  }
  const n = sorted.length;
  const rankRanges = new Map<string, [number, number]>(sorted.map((c) => [c.cohort_id, [1 + beaten.get(c.cohort_id)!, n - beats.get(c.cohort_id)!]]));
  return { pairs, rankRanges };
}

/** [resolved, graded] of a side on a task when it is complete (7.4), else null. */
function completeSide(tally: TaskTally | undefined, plans: ReadonlyMap<string, ContributingPlan>): [number, number] | null {
  const side = sideOf(tally, plans);
  return side.outcome === 'incomplete' ? null : [side.resolved, side.attempts];
}

/**
 * The exact two-sided sign test: p = min(1, 2 * sum_{k=0..min(na, nb)} C(n, k) / 2^n)
 * with n = na + nb; 1 when n = 0.
 */
export function signTestP(na: number, nb: number): number {
  const n = na + nb;
  if (n === 0) return 1;
  const low = Math.min(na, nb);
  // The tail sum, exactly: C(n, k) by the multiplicative recurrence.
  let c = 1n;
  let tail = 1n;
  const big = BigInt(n);
  for (let k = 1; k <= low; k++) {
    c = (c * (big - BigInt(k) + 1n)) / BigInt(k);
    tail += c;
  }
  // 2 * tail >= 2^n: p is 1 (it happens exactly when na = nb).
  const doubled = 2n * tail;
  if (doubled >= 1n << big) return 1;
  return dyadicToDouble(doubled, n);
}

/** num / 2^exp rounded once to the nearest double (ties to even), for 0 < num < 2^exp. */
export function dyadicToDouble(num: bigint, exp: number): number {
  const bits = num.toString(2).length;
  // Keep 64 significant bits and a sticky bit for what is dropped: Number() of that rounds as Number() of num would.
  const shift = Math.max(0, bits - 64);
  let top = num >> BigInt(shift);
  if (shift > 0 && (num & ((1n << BigInt(shift)) - 1n)) !== 0n) top |= 1n;
  // Scaling by a power of two is exact while the result stays a normal double (p >= 2^-1022); below that it may round twice.
  let value = Number(top);
  let scale = shift - exp;
  while (scale < -1000) {
    value *= 2 ** -1000;
    scale += 1000;
  }
  return value * 2 ** scale;
}

/**
 * Holm's step-down adjustment: with the p values sorted ascending,
 * adjusted p_(i) = max over j <= i of min(1, (m - j + 1) * p_(j)), returned
 * in the input order. Equal p values get equal adjusted values whatever
 * their order: of two equal values at i < i + 1, the running maximum at i
 * already holds (m - i + 1) * p, more than the (m - i) * p that i + 1 adds.
 */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((_, k) => k).sort((x, y) => ps[x]! - ps[y]! || x - y);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach((k, i) => {
    running = Math.max(running, Math.min(1, (m - i) * ps[k]!));
    out[k] = running;
  });
  return out;
}

/** A board's resolution under the sign test (signTestResolution). */
export interface SignTestResolution {
  /** Headline tasks. */
  tasks: number;
  /** How many comparisons the p value is multiplied by (1: before adjustment; m: Holm's first step over m pairs). */
  factor: number;
  /**
   * The smallest lead that can reach factor * p < alpha: [lead, 0], where
   * only `lead` tasks differ, all one way (a lead of d tasks is strongest
   * with no task the other way). Null when even all n tasks one way cannot.
   */
  smallest: [number, number] | null;
  /** When all n tasks differ: the least lopsided split [n_a, n_b] (n_a > n_b) that reaches factor * p < alpha; null when none does. */
  allDiffer: [number, number] | null;
}

/**
 * The resolution of a board of `tasks` headline tasks: the smallest
 * sign-test difference that could reach `factor * p < alpha` (factor 1:
 * before adjustment; m: Holm's first step, the smallest of m p values), with
 * the same signTestP the pairs use. For a fixed lead d = n_a - n_b, p is
 * smallest with n_b = 0 (each task the other way adds one to both sides and
 * raises p), so the smallest lead is the least d <= tasks with
 * factor * signTestP(d, 0) < alpha; with every task differing, p falls as the
 * split grows more lopsided, so the least n_a is found by bisection.
 */
export function signTestResolution(tasks: number, alpha: number = PAIR_ALPHA, factor = 1): SignTestResolution {
  if (!Number.isSafeInteger(tasks) || tasks < 0) throw new RangeError(`tasks must be a non-negative integer, got ${tasks}`);
  const reaches = (na: number, nb: number): boolean => factor * signTestP(na, nb) < alpha;
  let smallest: [number, number] | null = null;
  if (tasks > 0 && reaches(tasks, 0)) {
    // signTestP(d, 0) = 2 / 2^d falls with d: bisect for the least d that reaches.
    let lo = 1;
    let hi = tasks;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (reaches(mid, 0)) hi = mid;
      else lo = mid + 1;
    }
    smallest = [lo, 0];
  }
  let allDiffer: [number, number] | null = null;
  if (smallest !== null) {
    // n_a from ceil((n + 1) / 2) (a strict majority) to n; p falls as n_a grows.
    let lo = Math.floor(tasks / 2) + 1;
    let hi = tasks;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (reaches(mid, tasks - mid)) hi = mid;
      else lo = mid + 1;
    }
    allDiffer = [lo, tasks - lo];
  }
  return { tasks, factor, smallest, allDiffer };
}
