/**
 * The reference form of the score vector (src/analysis/score.ts), for tests
 * only: attempt object by attempt object, summed in one fixed order (bundle
 * id, then attempt id).
 */
import { boundTotals, orderFreeSum, rateFigures, type CohortFigures, type CostFigures, type Replicate, type TaskTally, type TokenFigures } from '../../src/analysis/score.ts';
import { TERMINAL_CLASSES, type TerminalClass } from '../../src/analysis/grading.ts';
import type { LedgerSplits } from '../../src/analysis/headline.ts';
import { meanPassAtK, median } from '../../src/analysis/stats.ts';
import type { PooledAttempt } from './pool.ts';

/** Orders attempts by bundle id, then attempt id (code-unit order): the one order all sums use. */
export function sortAttempts(attempts: PooledAttempt[]): PooledAttempt[] {
  return attempts.sort((a, b) =>
    a.bundle_id < b.bundle_id ? -1 : a.bundle_id > b.bundle_id ? 1 : a.attempt_id < b.attempt_id ? -1 : a.attempt_id > b.attempt_id ? 1 : 0,
  );
}

/** Tallies attempts per task (all splits). */
export function tallyTasks(attempts: readonly PooledAttempt[]): Map<string, TaskTally> {
  const tallies = new Map<string, TaskTally>();
  // The distinct slot indices of each (task, plan).
  const slots = new Map<string, Set<number>>();
  for (const a of attempts) {
    let t = tallies.get(a.task_id);
    if (!t) {
      t = { attempts: 0, resolved: 0, ungraded: 0, filled: new Map() };
      tallies.set(a.task_id, t);
    }
    t.attempts++;
    if (a.terminal === 'resolved') t.resolved++;
    if (a.reason === 'missing' || a.reason === 'errored') t.ungraded++;
    let set = slots.get(`${a.task_id}\0${a.plan_id}`);
    if (!set) {
      set = new Set();
      slots.set(`${a.task_id}\0${a.plan_id}`, set);
    }
    set.add(a.index);
    t.filled.set(a.plan_id, set.size);
  }
  return tallies;
}

/** Computes a cohort's figures. `attempts` must already be in {@link sortAttempts} order. */
export function cohortFigures(
  attempts: readonly PooledAttempt[],
  splits: LedgerSplits,
  tallies: ReadonlyMap<string, TaskTally>,
  currency: string | null,
): CohortFigures {
  const classes = Object.fromEntries(TERMINAL_CLASSES.map((c) => [c, 0])) as Record<TerminalClass, number>;
  const reasons = { failed: 0, errored: 0, missing: 0 };
  const tokens: TokenFigures = { input: 0, output: 0, total: 0, complete: true, unknown: 0 };
  const cost: CostFigures = { currency, micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0, zero: 0 };
  const walls: number[] = [];
  let retries = 0;
  const replicateMap = new Map<number, Replicate>();
  for (const a of attempts) {
    classes[a.terminal]++;
    if (a.reason) reasons[a.reason]++;
    if (a.tokens === null) tokens.unknown++;
    else {
      tokens.input += a.tokens.input;
      tokens.output += a.tokens.output;
    }
    walls.push(a.wall_seconds);
    retries += a.retries;
    switch (a.cost.state) {
      case 'complete':
        cost.micros += a.cost.micros ?? 0;
        break;
      case 'partial':
        cost.partial++;
        cost.micros += a.cost.micros ?? 0;
        break;
      case 'unavailable':
        cost.unavailable++;
        break;
      case 'not_applicable':
        cost.not_applicable++;
        break;
      case 'zero':
        cost.zero++;
        break;
    }
    if (splits.splitOf.get(a.task_id) === 'headline') {
      let r = replicateMap.get(a.index);
      if (!r) {
        r = { index: a.index, resolved: 0, graded: 0, rate: null };
        replicateMap.set(a.index, r);
      }
      r.graded++;
      if (a.terminal === 'resolved') r.resolved++;
    }
  }
  tokens.total = tokens.input + tokens.output;
  tokens.complete = tokens.unknown === 0;
  cost.complete = cost.unavailable === 0 && cost.partial === 0;
  const perIndex = [...replicateMap.values()].sort((a, b) => a.index - b.index);
  for (const r of perIndex) r.rate = r.graded === 0 ? null : r.resolved / r.graded;
  const rates = perIndex.map((r) => r.rate).filter((r): r is number => r !== null);
  const headlineTasks = splits.headline.map((id) => tallies.get(id)).filter((t): t is TaskTally => t !== undefined);
  const figures: CohortFigures = {
    attempts: attempts.length,
    headline: rateFigures(splits.headline, tallies),
    watch_list: rateFigures(splits.watch_list, tallies),
    public: rateFigures(splits.public, tallies),
    terminal_classes: classes,
    grader_failure_reasons: reasons,
    tokens,
    wall_seconds: { sum: orderFreeSum(walls), median: median(walls) },
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
  boundTotals(figures);
  return figures;
}

