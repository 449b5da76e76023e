/**
 * The score vector (src/analysis/score.ts) and the baseline's drift
 * (src/analysis/drift.ts) of a column-wise cohort (pool-columns.ts): the
 * same figures, bit for bit.
 *
 * score.ts sums in one fixed order (bundle id, then attempt id) so that no
 * figure depends on the order evidence was read in. Here rows are summed in
 * bundle id order, then row order, which gives the same figures whenever the
 * order cannot matter: counts; wall time, which is summed in ascending order
 * of its values whatever the order (orderFreeSum); and the integer sums
 * (tokens, retries, micros) while every value is an integer >= 0: a sum at
 * most 2^53 - 1 is exact in any order, and one over it is held at 2^53 - 1
 * (score.ts boundTotals) in any order. Were a value not such an integer, the
 * rows would be summed again in attempt id order.
 */
import { TERMINAL_CLASSES, type TerminalClass } from './grading.ts';
import type { LedgerSplits } from './headline.ts';
import type { DriftPoint } from './drift.ts';
import { driftSeries } from './drift.ts';
import type { ColumnPool, Segment } from './pool-columns.ts';
import { REASON_CODES } from './columns.ts';
import { boundTotals, rateFigures, type CohortFigures, type CostFigures, type Replicate, type TaskTally, type TokenFigures } from './score.ts';
import { meanPassAtK } from './stats.ts';
import { COST_STATE_CODES } from '../verify/tables.ts';

const RESOLVED = TERMINAL_CLASSES.indexOf('resolved');
const ERRORED = REASON_CODES.indexOf('errored');
const MISSING = REASON_CODES.indexOf('missing');
const COMPLETE = COST_STATE_CODES.indexOf('complete');
const PARTIAL = COST_STATE_CODES.indexOf('partial');
const UNAVAILABLE = COST_STATE_CODES.indexOf('unavailable');
const NOT_APPLICABLE = COST_STATE_CODES.indexOf('not_applicable');
const ZERO = COST_STATE_CODES.indexOf('zero');

/** Attempts of a cohort. */
export function attemptCount(pool: ColumnPool): number {
  let n = 0;
  for (const s of pool.segments) n += s.rows.length;
  return n;
}

/** Tallies a cohort's attempts per task (as score.ts tallyTasks). */
export function tallyColumns(pool: ColumnPool): Map<string, TaskTally> {
  const tallies = new Map<string, TaskTally>();
  for (const segment of pool.segments) {
    const { rows, klass, reason, plan_id } = segment;
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
      if (klass[j] === RESOLVED) t.resolved++;
      const r = reason[j];
      if (r === MISSING || r === ERRORED) t.ungraded++;
      set.add(attempts.index[row]!);
    }
  }
  return tallies;
}

/** A cohort's figures (as score.ts cohortFigures over the cohort's attempts in sortAttempts order). */
export function cohortFiguresColumns(pool: ColumnPool, splits: LedgerSplits, tallies: ReadonlyMap<string, TaskTally>, currency: string | null): CohortFigures {
  const inRowOrder = figures(pool.segments, splits, tallies, currency);
  if (inRowOrder !== null) return inRowOrder;
  return figures(pool.segments.map(inAttemptIdOrder), splits, tallies, currency, true)!;
}

/** A segment with its rows in attempt id order (code units; a stable sort, as sortAttempts). */
function inAttemptIdOrder(segment: Segment): Segment {
  const attempts = segment.columns.attempts;
  const ids = Array.from(segment.rows, (row) => attempts.attemptId(row));
  const order = Array.from(ids.keys()).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  return {
    ...segment,
    rows: Int32Array.from(order, (j) => segment.rows[j]!),
    klass: Uint8Array.from(order, (j) => segment.klass[j]!),
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
    const { rows, klass, reason } = segment;
    const a = segment.columns.attempts;
    const headline = a.tasks.values.map((id) => splits.splitOf.get(id) === 'headline');
    for (let j = 0; j < rows.length; j++) {
      const row = rows[j]!;
      const k = klass[j]!;
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

/** stats.ts median of values already in ascending order. */
function sortedMedian(sorted: Float64Array): number | null {
  if (sorted.length === 0) return null;
  const mid = sorted.length >> 1;
  const high = sorted[mid]!;
  if (sorted.length % 2 === 1) return high;
  const low = sorted[mid - 1]!;
  const sum = low + high;
  return Number.isFinite(sum) ? sum / 2 : low / 2 + high / 2;
}

/** The baseline's headline rate per plan over time, with drift flags (as drift.ts baselineDrift). */
export function baselineDriftColumns(baseline: ColumnPool, splits: LedgerSplits): DriftPoint[] {
  const perPlan = new Map<string, { resolved: number; graded: number }>();
  for (const segment of baseline.segments) {
    const a = segment.columns.attempts;
    const headline = a.tasks.values.map((id) => splits.splitOf.get(id) === 'headline');
    const t = perPlan.get(segment.plan_id) ?? { resolved: 0, graded: 0 };
    const { rows, klass } = segment;
    for (let j = 0; j < rows.length; j++) {
      if (!headline[a.task[rows[j]!]!]) continue;
      t.graded++;
      if (klass[j] === RESOLVED) t.resolved++;
    }
    perPlan.set(segment.plan_id, t);
  }
  return driftSeries([...baseline.plans.values()], perPlan);
}
