/**
 * Pairs and rank ranges (FORMAT.md 7.6), against hand-computed values: the
 * exact sign test, the one rounding to a double, Holm's step-down (equal p
 * values included), and each branch of a board's pairs: no complete task,
 * all ties, a winner, no winner, incomplete sides left out.
 */
import { describe, expect, it } from 'vitest';
import { boardPairs, dyadicToDouble, holm, signTestP, signTestResolution, type PairCohort } from '../../src/analysis/pairs.ts';
import type { ContributingPlan } from '../../src/analysis/pool.ts';
import type { TaskTally } from '../../src/analysis/score.ts';

const PLAN = 'sha256:' + 'f'.repeat(64);
const plans = (attempts = 1): Map<string, ContributingPlan> =>
  new Map([[PLAN, { plan_id: PLAN, bundle_id: PLAN, title: 't', created_at: '2026-01-01T00:00:00Z', attempts_per_task: attempts }]]);
/** A complete side of `attempts` attempts (slots 0..n-1 filled), `resolved` of them resolved. */
const side = (resolved: number, attempts = 1, ungraded = 0): TaskTally => ({
  attempts,
  resolved,
  ungraded,
  filled: new Map([[PLAN, attempts]]),
});
const id = (c: string) => `sha256:${c.repeat(64)}`;
const cohort = (c: string, tallies: Record<string, TaskTally>, attempts = 1): PairCohort => ({ cohort_id: id(c), tallies: new Map(Object.entries(tallies)), plans: plans(attempts) });

describe('signTestP', () => {
  it('is min(1, 2 * sum_{k <= min} C(n, k) / 2^n), 1 when n = 0', () => {
    expect(signTestP(0, 0)).toBe(1);
    expect(signTestP(5, 0)).toBe(2 / 32);
    expect(signTestP(0, 6)).toBe(2 / 64);
    // n = 12, k <= 2: 1 + 12 + 66 = 79.
    expect(signTestP(10, 2)).toBe(158 / 4096);
    expect(signTestP(2, 10)).toBe(158 / 4096);
    expect(signTestP(3, 3)).toBe(1);
    // n = 3, k <= 1: 2 * 4 / 8 = 1.
    expect(signTestP(2, 1)).toBe(1);
  });

  it('stays exact past 2^1024 (n = 3000): the tail is summed as integers, rounded once', () => {
    const p = signTestP(1600, 1400);
    // Python, exactly: float(Fraction(2 * sum(comb(3000, k) for k in range(1401)), 2**3000)) (float of a Fraction rounds once).
    expect(p).toBe(0.0002785639610392337);
    expect(signTestP(1400, 1600)).toBe(p);
    expect(signTestP(1500, 1500)).toBe(1);
    // 2 / 2^3000 is below the smallest double: 0.
    expect(signTestP(3000, 0)).toBe(0);
  });
});

describe('dyadicToDouble', () => {
  it('rounds num / 2^exp once, to the nearest double, ties to even', () => {
    expect(dyadicToDouble(3n, 2)).toBe(0.75);
    expect(dyadicToDouble(1n, 1074)).toBe(Number.MIN_VALUE);
    // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: to even, 2^53.
    expect(dyadicToDouble(2n ** 53n + 1n, 54)).toBe(0.5);
    // Past the 64 bits kept: a dropped 1 (the sticky bit) moves a tie up.
    expect(dyadicToDouble(((2n ** 53n + 1n) << 20n) | 1n, 74)).toBe((2 ** 53 + 2) / 2 ** 54);
    expect(dyadicToDouble((2n ** 53n + 1n) << 20n, 74)).toBe(0.5);
    // 2 / 2^3000 is 2^-2999: below the smallest double, 0.
    expect(dyadicToDouble(2n, 3000)).toBe(0);
  });
});

describe('holm', () => {
  it('adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j)), in input order', () => {
    expect(holm([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holm([0.5, 0.001])).toEqual([0.5, 0.002]);
    expect(holm([0.6, 0.6])).toEqual([1, 1]);
    expect(holm([])).toEqual([]);
  });

  it('equal p values get equal adjusted values, whatever their order', () => {
    expect(holm([0.02, 0.02, 0.5])).toEqual([0.06, 0.06, 0.5]);
    expect(holm([0.5, 0.02, 0.02])).toEqual([0.5, 0.06, 0.06]);
    expect(holm([0.02, 0.5, 0.02])).toEqual([0.06, 0.5, 0.06]);
  });
});

describe('boardPairs', () => {
  const tasks = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9'];
  // A resolves t1..t7 and t9; B t1..t4 and t9, ungraded on t8 (incomplete there); C none, no attempt on t9.
  const pass = side(1);
  const fail = side(0);
  const A = cohort('a', { t1: pass, t2: pass, t3: pass, t4: pass, t5: pass, t6: pass, t7: pass, t8: fail, t9: pass });
  const B = cohort('b', { t1: pass, t2: pass, t3: pass, t4: pass, t5: fail, t6: fail, t7: fail, t8: side(0, 1, 1), t9: pass });
  const C = cohort('c', { t1: fail, t2: fail, t3: fail, t4: fail, t5: fail, t6: fail, t7: fail, t8: fail });

  it('a winner and no winner: counts over tasks complete on both sides, sign test, Holm, rank ranges', () => {
    const { pairs, rankRanges } = boardPairs(tasks, [C, A, B]);
    expect(pairs).toEqual([
      // t8 left out (B ungraded): 8 tasks, A better on t5..t7. p = 2 / 8; Holm: third of three, max(0.25, 0.25).
      { a: id('a'), b: id('b'), tasks: 8, a_better: 3, b_better: 0, p: 0.25, p_holm: 0.25, winner: null },
      // t9 left out (C has no attempt): 8 tasks, A better on 7, t8 a tie. p = 2 / 128; Holm 3 x 0.015625 = 0.046875 < 0.05.
      { a: id('a'), b: id('c'), tasks: 8, a_better: 7, b_better: 0, p: 0.015625, p_holm: 0.046875, winner: id('a') },
      // t8 and t9 left out: 7 tasks, B better on 4. p = 2 / 16; Holm 2 x 0.125.
      { a: id('b'), b: id('c'), tasks: 7, a_better: 4, b_better: 0, p: 0.125, p_holm: 0.25, winner: null },
    ]);
    expect(Object.fromEntries(rankRanges)).toEqual({ [id('a')]: [1, 2], [id('b')]: [1, 3], [id('c')]: [2, 3] });
  });

  it('no complete task: every pair has 0 tasks, p = 1, no winner; every range is [1, N]', () => {
    const { pairs, rankRanges } = boardPairs(['x'], [cohort('a', {}), cohort('b', { x: side(1) })]);
    expect(pairs).toEqual([{ a: id('a'), b: id('b'), tasks: 0, a_better: 0, b_better: 0, p: 1, p_holm: 1, winner: null }]);
    expect(Object.fromEntries(rankRanges)).toEqual({ [id('a')]: [1, 2], [id('b')]: [1, 2] });
    expect(boardPairs([], [cohort('a', {}), cohort('b', {})]).pairs[0]).toMatchObject({ tasks: 0, p: 1, winner: null });
  });

  it('all ties: tasks counted, none in anyone\'s favour, p = 1', () => {
    const same = { t1: pass, t2: fail, t3: pass };
    const { pairs } = boardPairs(['t1', 't2', 't3'], [cohort('a', same), cohort('b', same)]);
    expect(pairs).toEqual([{ a: id('a'), b: id('b'), tasks: 3, a_better: 0, b_better: 0, p: 1, p_holm: 1, winner: null }]);
  });

  it('rates compared exactly: 1 of 2 beats 1 of 3, 2 of 4 ties 1 of 2', () => {
    const two = cohort('a', { t: side(1, 2) }, 2);
    const { pairs } = boardPairs(['t'], [two, cohort('b', { t: { ...side(1, 3) } }, 2)]);
    expect(pairs[0]).toMatchObject({ tasks: 1, a_better: 1, b_better: 0 });
    const tie = boardPairs(['t'], [cohort('a', { t: side(2, 4) }, 2), cohort('b', { t: side(1, 2) }, 2)]);
    expect(tie.pairs[0]).toMatchObject({ tasks: 1, a_better: 0, b_better: 0 });
  });

  it('an unaccounted slot makes a side incomplete: left out', () => {
    // Two attempts per task in the plan; B filled one slot.
    const { pairs } = boardPairs(['t'], [cohort('a', { t: side(2, 2) }, 2), cohort('b', { t: side(0, 1) }, 2)]);
    expect(pairs[0]).toMatchObject({ tasks: 0, p: 1 });
  });

  it('one cohort: no pair, range [1, 1]; a winner needs a_better != b_better and p_holm < 0.05', () => {
    const one = boardPairs(tasks, [A]);
    expect(one.pairs).toEqual([]);
    expect(one.rankRanges.get(id('a'))).toEqual([1, 1]);
    // 6 of 6 on one pair alone: p = 2 / 64 = 0.03125 < 0.05, a winner; 5 of 5: 0.0625, none.
    const six = Object.fromEntries(['1', '2', '3', '4', '5', '6'].map((t) => [t, pass]));
    const none = Object.fromEntries(['1', '2', '3', '4', '5', '6'].map((t) => [t, fail]));
    expect(boardPairs(Object.keys(six), [cohort('a', none), cohort('b', six)]).pairs[0]).toMatchObject({ b_better: 6, p: 0.03125, p_holm: 0.03125, winner: id('b') });
    const five = Object.keys(six).slice(0, 5);
    expect(boardPairs(five, [cohort('a', none), cohort('b', six)]).pairs[0]).toMatchObject({ b_better: 5, p: 0.0625, winner: null });
  });
});

describe('signTestResolution (the board resolution, hand-computed by the exact binomial)', () => {
  it('before adjustment: impossible with 5 tasks or fewer, 6-0 from 6 tasks; the split needed when every task differs', () => {
    // n = 5: all five one way gives p = 2 / 2^5 = 0.0625 >= 0.05.
    for (const n of [0, 1, 5]) expect(signTestResolution(n)).toEqual({ tasks: n, factor: 1, smallest: null, allDiffer: null });
    // n = 6: 6-0 gives 2 / 64 = 0.03125.
    expect(signTestResolution(6)).toEqual({ tasks: 6, factor: 1, smallest: [6, 0], allDiffer: [6, 0] });
    // n = 7: 6-1 gives 2 (1 + 7) / 128 = 0.125, 7-0 gives 2 / 128.
    expect(signTestResolution(7)).toEqual({ tasks: 7, factor: 1, smallest: [6, 0], allDiffer: [7, 0] });
    // n = 9: 8-1 gives 2 (1 + 9) / 512 = 0.0391; 7-2 gives 2 (1 + 9 + 36) / 512 = 0.1797.
    expect(signTestResolution(9).allDiffer).toEqual([8, 1]);
    // n = 12: 10-2 gives 2 (1 + 12 + 66) / 4096 = 0.0386; 9-3 gives 2 (79 + 220) / 4096 = 0.146.
    expect(signTestResolution(12).allDiffer).toEqual([10, 2]);
    // n = 17 (the demo): 13-4 gives 2 (1 + 17 + 136 + 680 + 2380) / 2^17 = 6428 / 131072 = 0.0490; 12-5 adds 6188: 0.1435.
    expect(signTestResolution(17)).toEqual({ tasks: 17, factor: 1, smallest: [6, 0], allDiffer: [13, 4] });
  });

  it("at Holm's first step over m pairs (m p < 0.05)", () => {
    // m = 6: 7-0 gives 6 * 2 / 128 = 0.094, 8-0 gives 6 * 2 / 256 = 0.047; all 17 differ: 14-3 gives 6 * 1668 / 131072 = 0.076, 15-2 gives 6 * 308 / 131072 = 0.014.
    expect(signTestResolution(17, 0.05, 6)).toEqual({ tasks: 17, factor: 6, smallest: [8, 0], allDiffer: [15, 2] });
    // m = 15: 9-0 gives 15 * 2 / 512 = 0.059, 10-0 gives 15 * 2 / 1024 = 0.029; 15-2 gives 15 * 308 / 131072 = 0.035.
    expect(signTestResolution(17, 0.05, 15)).toEqual({ tasks: 17, factor: 15, smallest: [10, 0], allDiffer: [15, 2] });
    expect(signTestResolution(9, 0.05, 15).smallest).toBeNull();
  });

  it('agrees with an exhaustive search over every split of up to n tasks', () => {
    for (const factor of [1, 3, 10]) {
      for (let n = 0; n <= 40; n++) {
        let best: number | null = null;
        for (let na = 0; na <= n; na++) for (let nb = 0; na + nb <= n; nb++) if (factor * signTestP(na, nb) < 0.05 && (best === null || Math.abs(na - nb) < best)) best = Math.abs(na - nb);
        let split: number | null = null;
        for (let na = n; na > n / 2; na--) if (factor * signTestP(na, n - na) < 0.05) split = na;
        const r = signTestResolution(n, 0.05, factor);
        expect(r.smallest?.[0] ?? null).toBe(best);
        expect(r.allDiffer?.[0] ?? null).toBe(split);
      }
    }
  });
});
