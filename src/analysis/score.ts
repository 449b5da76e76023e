/**
 * The score vector of a cohort (FORMAT.md section 7.2): pass rates with
 * Wilson intervals per split, terminal classes, tokens, wall time, retries,
 * cost with its completeness, pass@k and replicate spread. Pure arithmetic
 * over the cohort's segments of rows (pool.ts), and no figure depends on the
 * order evidence was read in.
 *
 * Rows are summed in bundle id order, then row order. That gives the figures
 * of any other order: counts; wall time, which is summed in ascending order
 * of its values (orderFreeSum); and the integer sums (tokens, retries,
 * micros) while every value is an integer >= 0: a sum at most 2^53 - 1 is
 * exact in any order, and one over it is held at 2^53 - 1 (boundTotals) in
 * any order. Were a value not such an integer, the rows would be summed
 * again in attempt id order. test/oracle/score.ts computes the same figures
 * attempt object by attempt object, in (bundle id, attempt id) order.
 */
import { COST_STATE_CODES } from '../bundle/tables.ts';
import { REASON_CODES, TERMINAL_CLASSES, type TerminalClass } from './grading.ts';
import type { LedgerSplits } from './headline.ts';
import type { CohortPool, Segment } from './pool.ts';
import { meanPassAtK, sortedMedian, wilson } from './stats.ts';

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
  /** Slot indices filled, per contributing plan. */
  indices: Map<string, Set<number>>;
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

const RESOLVED = TERMINAL_CLASSES.indexOf('resolved');
const ERRORED = REASON_CODES.indexOf('errored');
const MISSING = REASON_CODES.indexOf('missing');
const COMPLETE = COST_STATE_CODES.indexOf('complete');
const PARTIAL = COST_STATE_CODES.indexOf('partial');
const UNAVAILABLE = COST_STATE_CODES.indexOf('unavailable');
const NOT_APPLICABLE = COST_STATE_CODES.indexOf('not_applicable');
const ZERO = COST_STATE_CODES.indexOf('zero');

/** Attempts of a cohort. */
export function attemptCount(pool: CohortPool): number {
  let n = 0;
  for (const s of pool.segments) n += s.rows.length;
  return n;
}

/** Tallies a cohort's attempts per task (all splits). */
export function tallyTasks(pool: CohortPool): Map<string, TaskTally> {
  const tallies = new Map<string, TaskTally>();
  for (const segment of pool.segments) {
    const { rows, terminal, reason, plan_id } = segment;
    const attempts = segment.columns.attempts;
    const taskNames = attempts.tasks.values;
    const local: (TaskTally | undefined)[] = new Array(taskNames.length);
    const sets: (Set<number> | undefined)[] = new Array(taskNames.length);
    for (let j = 0; j < rows.length; j++) {
      const row = rows[j]!;
      const task = attempts.task[row]!;
      let t = local[task];
      let set = sets[task];
      if (t === undefined || set === undefined) {
        const id = taskNames[task]!;
        t = tallies.get(id);
        if (!t) {
          t = { attempts: 0, resolved: 0, ungraded: 0, indices: new Map() };
          tallies.set(id, t);
        }
        set = t.indices.get(plan_id);
        if (!set) {
          set = new Set();
          t.indices.set(plan_id, set);
        }
        local[task] = t;
        sets[task] = set;
      }
      t.attempts++;
      if (terminal[j] === RESOLVED) t.resolved++;
      const r = reason[j];
      if (r === MISSING || r === ERRORED) t.ungraded++;
      set.add(attempts.index[row]!);
    }
  }
  return tallies;
}

/** A cohort's figures, summed in bundle id then row order, or in bundle id then attempt id order where that could differ (see the module comment). */
export function cohortFigures(pool: CohortPool, splits: LedgerSplits, tallies: ReadonlyMap<string, TaskTally>, currency: string | null): CohortFigures {
  const inRowOrder = figures(pool.segments, splits, tallies, currency);
  if (inRowOrder !== null) return inRowOrder;
  return figures(pool.segments.map(inAttemptIdOrder), splits, tallies, currency, true)!;
}

/** A segment with its rows in attempt id order (code units; a stable sort). */
function inAttemptIdOrder(segment: Segment): Segment {
  const attempts = segment.columns.attempts;
  const ids = Array.from(segment.rows, (row) => attempts.attemptId(row));
  const order = Array.from(ids.keys()).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  return {
    ...segment,
    rows: Int32Array.from(order, (j) => segment.rows[j]!),
    terminal: Uint8Array.from(order, (j) => segment.terminal[j]!),
    reason: Uint8Array.from(order, (j) => segment.reason[j]!),
  };
}

/** The figures with rows in the given order; null when an integer sum may depend on that order (unless `anyway`). */
function figures(segments: readonly Segment[], splits: LedgerSplits, tallies: ReadonlyMap<string, TaskTally>, currency: string | null, anyway = false): CohortFigures | null {
  const classes = Object.fromEntries(TERMINAL_CLASSES.map((c) => [c, 0])) as Record<TerminalClass, number>;
  const classCounts = new Float64Array(TERMINAL_CLASSES.length);
  const reasonCounts = new Float64Array(REASON_CODES.length);
  const tokens: TokenFigures = { input: 0, output: 0, total: 0, complete: true, unknown: 0 };
  const cost: CostFigures = { currency, micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0, zero: 0 };
  let total = 0;
  for (const s of segments) total += s.rows.length;
  const walls = new Float64Array(total);
  let w = 0;
  let retries = 0;
  // Every value added to the integer sums is an integer >= 0 (then a final sum <= 2^53 - 1 is exact in any order).
  let integral = true;
  const replicateMap = new Map<number, Replicate>();
  for (const segment of segments) {
    const { rows, terminal, reason } = segment;
    const a = segment.columns.attempts;
    const headline = a.tasks.values.map((id) => splits.splitOf.get(id) === 'headline');
    for (let j = 0; j < rows.length; j++) {
      const row = rows[j]!;
      const k = terminal[j]!;
      classCounts[k]!++;
      reasonCounts[reason[j]!]!++;
      const input = a.tokensInput[row]!;
      if (Number.isNaN(input)) tokens.unknown++;
      else {
        const output = a.tokensOutput[row]!;
        tokens.input += input;
        tokens.output += output;
        if (!(input >= 0 && output >= 0 && input % 1 === 0 && output % 1 === 0)) integral = false;
      }
      walls[w++] = a.wallSeconds[row]!;
      const r = a.retries[row]!;
      retries += r;
      if (!(r >= 0 && r % 1 === 0)) integral = false;
      const state = a.costState[row]!;
      if (state === COMPLETE || state === PARTIAL) {
        if (state === PARTIAL) cost.partial++;
        const m = a.costMicros[row]!;
        if (!Number.isNaN(m)) {
          cost.micros += m;
          if (!(m >= 0 && m % 1 === 0)) integral = false;
        }
      } else if (state === UNAVAILABLE) cost.unavailable++;
      else if (state === NOT_APPLICABLE) cost.not_applicable++;
      else if (state === ZERO) cost.zero++;
      if (headline[a.task[row]!]) {
        const index = a.index[row]!;
        let rep = replicateMap.get(index);
        if (!rep) {
          rep = { index, resolved: 0, graded: 0, rate: null };
          replicateMap.set(index, rep);
        }
        rep.graded++;
        if (k === RESOLVED) rep.resolved++;
      }
    }
  }
  // Integer sums of values >= 0 are exact up to 2^53 - 1 in any order, and over it in every order when over it
  // in one: boundTotals then holds them at 2^53 - 1 whatever the order, so only non-integer values need the fixed order.
  if (!anyway && !integral) return null;
  TERMINAL_CLASSES.forEach((c, i) => (classes[c] = classCounts[i]!));
  const reasons = { failed: reasonCounts[1]!, errored: reasonCounts[2]!, missing: reasonCounts[3]! };
  tokens.total = tokens.input + tokens.output;
  tokens.complete = tokens.unknown === 0;
  cost.complete = cost.unavailable === 0 && cost.partial === 0;
  // As orderFreeSum: ascending order of the values (a typed array sorts numerically), then median over that order.
  walls.sort();
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

