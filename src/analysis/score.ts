/**
 * The score vector of a cohort (FORMAT.md section 7.2): pass rates with
 * Wilson intervals per split, terminal classes, tokens, wall time, retries,
 * cost with its completeness, pass@k and replicate spread. Pure arithmetic
 * over the cohort's parts (cohort-part.ts: each contributing bundle's rows,
 * summarised), and no figure depends on the order evidence was read in:
 * counts add; the integer sums (tokens, retries, micros) are of integers
 * >= 0, exact in any order up to 2^53 - 1 and held at 2^53 - 1 over it
 * (boundTotals) in any order; wall time is summed in ascending order of its
 * values over the whole cohort (orderFreeSum). test/oracle/score.ts computes
 * the same figures attempt object by attempt object, in (bundle id, attempt
 * id) order.
 */
import { REASON_CODES, TERMINAL_CLASSES, type TerminalClass } from './grading.ts';
import type { LedgerSplits } from './headline.ts';
import type { CohortPool } from './pool.ts';
import { meanPassAtK, mergeSortedRuns, sortedMedian, wilson } from './stats.ts';

/** Resolved of graded attempts on a set of tasks, with the rate and its Wilson 95% interval. */
export interface RateFigures {
  /** Tasks in the split (of the ledger), whether attempted or not. */
  tasks: number;
  /** Tasks of the split with at least one attempt of this cohort. */
  attempted_tasks: number;
  resolved: number;
  /** Every attempt on the split's tasks (each has a terminal class; a missing grade fails closed). */
  graded: number;
  rate: number | null;
  wilson: [number, number] | null;
}

/** Token use: a sum when every attempt reported tokens, else a lower bound with the count of unknowns. */
export interface TokenFigures {
  input: number;
  output: number;
  total: number;
  complete: boolean;
  unknown: number;
}

/** Cost: complete only when every attempt is complete, zero or not_applicable; otherwise a lower bound. */
export interface CostFigures {
  currency: string | null;
  micros: number;
  complete: boolean;
  unavailable: number;
  partial: number;
  not_applicable: number;
  zero: number;
}

/** One replicate (attempt index) on the headline tasks. */
export interface Replicate {
  index: number;
  resolved: number;
  graded: number;
  rate: number | null;
}

/** Everything the score vector holds except comparisons with the baseline. */
export interface CohortFigures {
  attempts: number;
  headline: RateFigures;
  watch_list: RateFigures;
  public: RateFigures;
  terminal_classes: Record<TerminalClass, number>;
  grader_failure_reasons: { failed: number; errored: number; missing: number };
  tokens: TokenFigures;
  wall_seconds: { sum: number; median: number | null };
  retries: number;
  cost: CostFigures;
  pass_at_k: { k: number; value: number }[];
  replicates: { per_index: Replicate[]; spread: number | null; flipped_tasks: string[] };
  /** The totals held at their bound (see {@link boundTotals}); absent when none is. */
  bounded?: BoundedTotal[];
}

/** The totals of a cohort that may reach the bound of exact representation, in the order they are listed. */
export const BOUNDED_TOTALS = ['tokens.input', 'tokens.output', 'tokens.total', 'wall_seconds.sum', 'retries', 'cost.micros'] as const;
/** A total that may be held at its bound. */
export type BoundedTotal = (typeof BOUNDED_TOTALS)[number];

/**
 * Holds a cohort's totals to numbers a report carries exactly. Every bundle's
 * own totals are within 2^53 - 1 and finite (the verifier's `totals` step
 * makes any other bundle LIMIT_EXCEEDED), but a cohort pools several bundles,
 * and their sum may not be: an integer sum over 2^53 - 1 is then held at
 * 2^53 - 1, a wall time sum that overflowed at the largest finite double,
 * and the total is named in `bounded`: the true total is at least the value
 * shown. Tokens or cost held so are also `complete: false` (a lower bound,
 * as with unknowns). Whether an integer sum of values >= 0 goes over
 * 2^53 - 1 does not depend on the order of the sum, so neither does the
 * result. Changes `figures` in place.
 */
export function boundTotals(figures: CohortFigures): void {
  const max = Number.MAX_SAFE_INTEGER;
  const bounded: BoundedTotal[] = [];
  const { tokens, cost } = figures;
  if (tokens.input > max) {
    tokens.input = max;
    bounded.push('tokens.input');
  }
  if (tokens.output > max) {
    tokens.output = max;
    bounded.push('tokens.output');
  }
  if (bounded.length > 0 || tokens.total > max) {
    tokens.total = Math.min(tokens.total, max);
    bounded.push('tokens.total');
    tokens.complete = false;
  }
  if (!Number.isFinite(figures.wall_seconds.sum)) {
    figures.wall_seconds.sum = Number.MAX_VALUE;
    bounded.push('wall_seconds.sum');
  }
  if (figures.retries > max) {
    figures.retries = max;
    bounded.push('retries');
  }
  if (cost.micros > max) {
    cost.micros = max;
    cost.complete = false;
    bounded.push('cost.micros');
  }
  if (bounded.length > 0) figures.bounded = bounded;
}

/** Per task and side: how the cohort's attempts there ended. */
export interface TaskTally {
  attempts: number;
  resolved: number;
  /** Completed attempts whose grade is missing or errored (they make the side incomplete). */
  ungraded: number;
  /** Distinct slot indices filled, per contributing plan (what an unaccounted slot is judged by). */
  filled: Map<string, number>;
}

/** Rate figures over one split's tasks. */
export function rateFigures(taskIds: readonly string[], tallies: ReadonlyMap<string, TaskTally>): RateFigures {
  let resolved = 0;
  let graded = 0;
  let attempted = 0;
  for (const id of taskIds) {
    const t = tallies.get(id);
    if (!t) continue;
    attempted++;
    resolved += t.resolved;
    graded += t.attempts;
  }
  return {
    tasks: taskIds.length,
    attempted_tasks: attempted,
    resolved,
    graded,
    rate: graded === 0 ? null : resolved / graded,
    wilson: wilson(resolved, graded),
  };
}

/**
 * A floating-point sum that does not depend on the order of the values:
 * they are added in ascending order (the same multiset always gives the same
 * bits, whichever bundle or line they came from). Sorts its argument.
 */
export function orderFreeSum(values: number[]): number {
  // A typed array sorts numbers natively, far faster than a comparator (hundreds of thousands per cohort).
  // Only -0 and 0 may come out in another relative order than with (a, b) => a - b, and that changes no sum.
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) {
    const v = sorted[i]!;
    values[i] = v;
    sum += v;
  }
  return sum;
}

/** Attempts of a cohort. */
export function attemptCount(pool: CohortPool): number {
  let n = 0;
  for (const part of pool.parts) n += part.attempts;
  return n;
}

/**
 * Tallies a cohort's attempts per task (all splits), tasks in order of their
 * first attempt (parts in bundle id order); `ledger` is the task ids of the
 * cohort's ledger in ledger order (the parts place tasks by position on it).
 */
export function tallyTasks(pool: CohortPool, ledger: readonly string[]): Map<string, TaskTally> {
  const byPosition: (TaskTally | undefined)[] = new Array(ledger.length);
  const order: number[] = [];
  for (const { plan_id, tasks } of pool.parts) {
    const { positions } = tasks;
    for (let i = 0; i < positions.length; i++) {
      const at = positions[i]!;
      let t = byPosition[at];
      if (t === undefined) {
        t = byPosition[at] = { attempts: 0, resolved: 0, ungraded: 0, filled: new Map() };
        order.push(at);
      }
      t.attempts += tasks.attempts[i]!;
      t.resolved += tasks.resolved[i]!;
      t.ungraded += tasks.ungraded[i]!;
      // A plan is one bundle, and a bundle one part of the cohort: its count is whole here.
      t.filled.set(plan_id, tasks.filled[i]!);
    }
  }
  return new Map(order.map((at) => [ledger[at]!, byPosition[at]!]));
}

/**
 * A cohort's figures from its parts (see the module comment). Every token
 * count, retry count and micros value is an integer >= 0 (the attempt
 * schema's Count); a part that says otherwise is a bug upstream, and
 * throws rather than give a sum that would depend on order.
 */
export function cohortFigures(pool: CohortPool, splits: LedgerSplits, tallies: ReadonlyMap<string, TaskTally>, currency: string | null): CohortFigures {
  const classCounts = new Array<number>(TERMINAL_CLASSES.length).fill(0);
  const reasonCounts = new Array<number>(REASON_CODES.length).fill(0);
  const tokens: TokenFigures = { input: 0, output: 0, total: 0, complete: true, unknown: 0 };
  const cost: CostFigures = { currency, micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0, zero: 0 };
  let retries = 0;
  const total = attemptCount(pool);
  const replicateMap = new Map<number, Replicate>();
  for (const part of pool.parts) {
    if (!part.integral) throw new Error(`internal: bundle ${part.bundle_id} has a token, retry or micros value that is not an integer >= 0`);
    part.classes.forEach((n, i) => (classCounts[i]! += n));
    part.reasons.forEach((n, i) => (reasonCounts[i]! += n));
    tokens.input += part.tokens.input;
    tokens.output += part.tokens.output;
    tokens.unknown += part.tokens.unknown;
    retries += part.retries;
    cost.micros += part.cost.micros;
    cost.partial += part.cost.partial;
    cost.unavailable += part.cost.unavailable;
    cost.not_applicable += part.cost.not_applicable;
    cost.zero += part.cost.zero;
    for (const r of part.replicates) {
      let rep = replicateMap.get(r.index);
      if (!rep) replicateMap.set(r.index, (rep = { index: r.index, resolved: 0, graded: 0, rate: null }));
      rep.resolved += r.resolved;
      rep.graded += r.graded;
    }
  }
  const classes = Object.fromEntries(TERMINAL_CLASSES.map((c, i) => [c, classCounts[i]!])) as Record<TerminalClass, number>;
  const reasons = { failed: reasonCounts[1]!, errored: reasonCounts[2]!, missing: reasonCounts[3]! };
  tokens.total = tokens.input + tokens.output;
  tokens.complete = tokens.unknown === 0;
  cost.complete = cost.unavailable === 0 && cost.partial === 0;
  // As orderFreeSum: ascending order of the values (a typed array's sort order; each part's walls are a sorted run), then median over that order.
  const walls = mergeSortedRuns(pool.parts.map((p) => p.walls));
  if (walls.length !== total) throw new Error(`internal: ${walls.length} wall times for ${total} attempts`);
  let wallSum = 0;
  for (let i = 0; i < walls.length; i++) wallSum += walls[i]!;
  const perIndex = [...replicateMap.values()].sort((x, y) => x.index - y.index);
  for (const r of perIndex) r.rate = r.graded === 0 ? null : r.resolved / r.graded;
  const rates = perIndex.map((r) => r.rate).filter((r): r is number => r !== null);
  const headlineTasks = splits.headline.map((id) => tallies.get(id)).filter((t): t is TaskTally => t !== undefined);
  const result: CohortFigures = {
    attempts: total,
    headline: rateFigures(splits.headline, tallies),
    watch_list: rateFigures(splits.watch_list, tallies),
    public: rateFigures(splits.public, tallies),
    terminal_classes: classes,
    grader_failure_reasons: reasons,
    tokens,
    wall_seconds: { sum: wallSum, median: sortedMedian(walls) },
    retries,
    cost,
    pass_at_k: meanPassAtK(headlineTasks.map((t) => ({ n: t.attempts, c: t.resolved }))),
    replicates: {
      per_index: perIndex,
      spread: rates.length === 0 ? null : Math.max(...rates) - Math.min(...rates),
      flipped_tasks: splits.headline.filter((id) => {
        const t = tallies.get(id);
        return t !== undefined && t.resolved > 0 && t.resolved < t.attempts;
      }),
    },
  };
  boundTotals(result);
  return result;
}
