/**
 * Leaderboard statistics (src/analysis/stats.ts, docs/formulas.md) against
 * values worked by hand, reference values computed once with python3 (its
 * math.erfc, math.comb, and an independent re-implementation of the PRNG and
 * the bootstrap from docs/formulas.md), and laws checked with fast-check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SeededRandom,
  Z95,
  meanPassAtK,
  median,
  mergeSortedRuns,
  normalCdf,
  pairedBootstrapDelta,
  passAtK,
  twoProportionTest,
  wilson,
  type PairedTask,
} from '../../src/analysis/stats.ts';

fc.configureGlobal({ seed: 20261129 });

/** Tasks from [candidate resolved, graded, baseline resolved, graded] rows. */
function paired(rows: readonly (readonly [number, number, number, number])[]): PairedTask[] {
  return rows.map(([cr, cg, br, bg]) => ({ candidate: { resolved: cr, graded: cg }, baseline: { resolved: br, graded: bg } }));
}

describe('wilson', () => {
  // Count form: (s + z^2/2 -/+ z sqrt(s(n-s)/n + z^2/4)) / (n + z^2), z = 1.959963984540054,
  // z^2 = 3.8414588206941254, n + z^2 = 13.841458820694125 for n = 10.
  it('is null without trials', () => {
    expect(wilson(0, 0)).toBeNull();
  });

  it('0 of 10: [0, z^2 / (10 + z^2)]', () => {
    // centre = z^2/2, spread = z sqrt(z^2/4) = z^2/2: lower 0 (exactly, by convention),
    // upper = z^2 / (10 + z^2) = 3.8414588206941254 / 13.841458820694125 = 0.2775327998628892.
    const [lo, hi] = wilson(0, 10)!;
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(0.2775327998628892, 12);
  });

  it('10 of 10: [10 / (10 + z^2), 1]', () => {
    // centre = 10 + z^2/2, spread = z^2/2: lower = 10 / 13.841458820694125 = 0.7224672001371107.
    const [lo, hi] = wilson(10, 10)!;
    expect(lo).toBeCloseTo(0.7224672001371107, 12);
    expect(hi).toBe(1);
  });

  it('5 of 10: symmetric about 0.5', () => {
    // centre = 5 + z^2/2 = 6.920729410347063; spread = z sqrt(25/10 + z^2/4) = z sqrt(3.4603647051735313)
    // = 1.959963984540054 * 1.860205554548618 = 3.6459358907566504;
    // lower = (6.920729410347063 - 3.6459358907566504) / 13.841458820694125 = 0.23659309051256397,
    // upper = (6.920729410347063 + 3.6459358907566504) / 13.841458820694125 = 0.7634069094874361.
    const [lo, hi] = wilson(5, 10)!;
    expect(lo).toBeCloseTo(0.23659309051256397, 12);
    expect(hi).toBeCloseTo(0.7634069094874361, 12);
    expect(lo + hi).toBeCloseTo(1, 15);
  });

  it('17 of 30 rounds to the FORMAT.md section 8 example: rate 0.5667, wilson [0.39, 0.73]', () => {
    // centre = 17 + z^2/2 = 18.920729410347064; spread = z sqrt(17*13/30 + z^2/4) = z sqrt(8.327031371840198)
    // = 5.6557889028456705; n + z^2 = 33.84145882069413;
    // lower = 13.264940507501393 / 33.84145882069413 = 0.391973070008136, upper = 0.7262251442353348.
    const [lo, hi] = wilson(17, 30)!;
    expect(lo).toBeCloseTo(0.391973070008136, 12);
    expect(hi).toBeCloseTo(0.7262251442353348, 12);
    expect(Number((17 / 30).toFixed(4))).toBe(0.5667);
    expect([Number(lo.toFixed(2)), Number(hi.toFixed(2))]).toEqual([0.39, 0.73]);
  });

  it('defaults z to Z95 and takes another z', () => {
    expect(wilson(17, 30, Z95)).toEqual(wilson(17, 30));
    // z = 1: centre = 17.5, spread = sqrt(221/30 + 1/4) = sqrt(7.616666...) = 2.759830...; / 31.
    const [lo, hi] = wilson(17, 30, 1)!;
    expect(lo).toBeCloseTo((17.5 - Math.sqrt(221 / 30 + 0.25)) / 31, 15);
    expect(hi).toBeCloseTo((17.5 + Math.sqrt(221 / 30 + 0.25)) / 31, 15);
  });

  it('throws RangeError on impossible counts (a bug in the caller)', () => {
    expect(() => wilson(11, 10)).toThrow(RangeError);
    expect(() => wilson(-1, 10)).toThrow(RangeError);
    expect(() => wilson(1.5, 10)).toThrow(RangeError);
    expect(() => wilson(1, 10, 0)).toThrow(RangeError);
  });

  it('law: bounds lie in [0, 1], lo <= hi, and they contain the rate s/n', () => {
    const counts = fc.integer({ min: 1, max: 100_000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n)));
    fc.assert(
      fc.property(counts, ([s, n]) => {
        const [lo, hi] = wilson(s, n)!;
        return 0 <= lo && lo <= s / n && s / n <= hi && hi <= 1;
      }),
      { numRuns: 2000 },
    );
  });
});

describe('passAtK', () => {
  it('n=10 c=3 k=1 is the plain rate 0.3', () => {
    // 1 - (1 - 1/8)(1 - 1/9)(1 - 1/10) = 1 - (7/8)(8/9)(9/10) = 1 - 7/10 = 0.3
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 15);
  });

  it('n=10 c=3 k=5 is 1 - C(7,5)/C(10,5) = 1 - 21/252', () => {
    // product form: (1 - 5/8)(1 - 5/9)(1 - 5/10) = (3/8)(4/9)(1/2) = 12/144 = 1/12 = 21/252
    expect(passAtK(10, 3, 5)).toBeCloseTo(1 - 21 / 252, 15);
    expect(passAtK(10, 3, 5)).toBeCloseTo(0.9166666666666666, 15);
  });

  it('is 0 with no success, 1 with all successes, and 1 at k = n with any success', () => {
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passAtK(5, 0, 5)).toBe(0);
    expect(passAtK(5, 5, 1)).toBe(1);
    expect(passAtK(5, 1, 5)).toBe(1);
    expect(passAtK(1, 1, 1)).toBe(1);
    // n - c < k: the range i = n-c+1..n holds i = k, a factor of exactly 0.
    expect(passAtK(10, 8, 3)).toBe(1);
  });

  it('throws RangeError outside 1 <= k <= n, 0 <= c <= n', () => {
    expect(() => passAtK(5, 0, 0)).toThrow(RangeError);
    expect(() => passAtK(5, 0, 6)).toThrow(RangeError);
    expect(() => passAtK(5, 6, 1)).toThrow(RangeError);
    expect(() => passAtK(5, -1, 1)).toThrow(RangeError);
    expect(() => passAtK(0, 0, 1)).toThrow(RangeError);
    expect(() => passAtK(5, 2, 1.5)).toThrow(RangeError);
  });

  const ncSpace = fc.integer({ min: 1, max: 80 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })));

  it('law: in [0, 1], non-decreasing in k and in c', () => {
    fc.assert(
      fc.property(ncSpace, ([n, c, k]) => {
        const value = passAtK(n, c, k);
        if (!(value >= 0 && value <= 1)) return false;
        if (k < n && passAtK(n, c, k + 1) < value) return false;
        if (c < n && passAtK(n, c + 1, k) < value) return false;
        return true;
      }),
      { numRuns: 2000 },
    );
  });

  it('law: agrees with 1 - C(n-c, k)/C(n, k) in exact integer arithmetic', () => {
    const choose = (n: number, k: number): bigint => {
      if (k > n) return 0n;
      let r = 1n;
      for (let i = 1; i <= k; i++) r = (r * BigInt(n - k + i)) / BigInt(i);
      return r;
    };
    fc.assert(
      fc.property(ncSpace, ([n, c, k]) => {
        const num = choose(n - c, k);
        const den = choose(n, k);
        // num/den to ~1e-15 via a scaled BigInt division.
        const exact = 1 - Number((num * 10n ** 18n) / den) / 1e18;
        return Math.abs(passAtK(n, c, k) - exact) < 1e-12;
      }),
      { numRuns: 1000 },
    );
  });
});

describe('meanPassAtK', () => {
  it('averages per k up to the smallest n, skipping tasks without attempts', () => {
    // Tasks (n, c): (10, 3), (5, 0), (4, 4), (0, 0) skipped; kMax = min(10, 5, 4) = 4.
    // (10,3): k=1 0.3; k=2 1 - C(7,2)/C(10,2) = 1 - 21/45 = 24/45; k=3 1 - 35/120 = 85/120; k=4 1 - 35/210 = 5/6.
    // (5,0): 0 for every k. (4,4): 1 for every k.
    const result = meanPassAtK([
      { n: 10, c: 3 },
      { n: 5, c: 0 },
      { n: 4, c: 4 },
      { n: 0, c: 0 },
    ]);
    expect(result.map((r) => r.k)).toEqual([1, 2, 3, 4]);
    const expected = [(0.3 + 0 + 1) / 3, (24 / 45 + 1) / 3, (85 / 120 + 1) / 3, (5 / 6 + 1) / 3];
    // = 0.43333..., 0.51111..., 0.56944..., 0.61111...
    result.forEach((r, i) => expect(r.value).toBeCloseTo(expected[i]!, 15));
  });

  it('is [] when no task has attempts', () => {
    expect(meanPassAtK([])).toEqual([]);
    expect(meanPassAtK([{ n: 0, c: 0 }])).toEqual([]);
  });

  it('equals passAtK for one task', () => {
    expect(meanPassAtK([{ n: 3, c: 1 }])).toEqual([1, 2, 3].map((k) => ({ k, value: passAtK(3, 1, k) })));
  });

  it('throws RangeError on impossible counts', () => {
    expect(() => meanPassAtK([{ n: 2, c: 3 }])).toThrow(RangeError);
  });
});

describe('median', () => {
  it('takes the middle of an odd count, the mean of the two middles of an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5); // sorted 1 2 3 4: (2 + 3) / 2
    expect(median([7])).toBe(7);
    expect(median([-1, -1, 10, 10])).toBe(4.5);
    expect(median([Number.MAX_VALUE, Number.MAX_VALUE])).toBe(Number.MAX_VALUE);
  });

  it('is null for an empty list and does not mutate its input', () => {
    expect(median([])).toBeNull();
    const input = [3, 1, 2];
    median(input);
    expect(input).toEqual([3, 1, 2]);
  });

  it('sorts numerically, not as strings', () => {
    expect(median([10, 9, 100])).toBe(10);
  });
});

describe('mergeSortedRuns', () => {
  /** What it must equal: the runs concatenated, sorted as a typed array (-0 before +0). */
  const sorted = (runs: readonly Float64Array[]) => Float64Array.from(runs.flatMap((r) => [...r])).sort();
  const bits = (a: Float64Array) => [...a].map((v) => (Object.is(v, -0) ? '-0' : String(v)));
  const walls = fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(0, -0, 1, 2.5));

  it('gives exactly the typed-array sort of the runs (sign of zero included), for sorted runs', () => {
    fc.assert(
      fc.property(fc.array(fc.array(walls, { maxLength: 40 }), { maxLength: 12 }), (lists) => {
        const runs = lists.map((l) => Float64Array.from(l).sort());
        expect(bits(mergeSortedRuns(runs))).toEqual(bits(sorted(runs)));
      }),
      { numRuns: 400 },
    );
  });

  it('sorts after all when a run is not in order, holds NaN, or puts +0 before -0', () => {
    const cases: Float64Array[][] = [
      [Float64Array.of(3, 1), Float64Array.of(2)],
      [Float64Array.of(1, Number.NaN), Float64Array.of(0)],
      [Float64Array.of(0, -0), Float64Array.of(-0, 0)],
    ];
    for (const runs of cases) expect(bits(mergeSortedRuns(runs))).toEqual(bits(sorted(runs)));
    expect(mergeSortedRuns([])).toEqual(new Float64Array(0));
    const one = Float64Array.of(1, 2);
    const merged = mergeSortedRuns([new Float64Array(0), one]);
    expect([...merged]).toEqual([1, 2]);
    expect(merged).not.toBe(one);
  });
});

describe('SeededRandom', () => {
  it('pins the first 5 outputs for seed "ledgerboard" (a change to the generator fails here)', () => {
    // SHA-256("ledgerboard")[0..16] as big-endian a, b, c, counter; 12 outputs discarded.
    // Reproduced by an independent python3 re-implementation of docs/formulas.md.
    const random = new SeededRandom('ledgerboard');
    expect([1, 2, 3, 4, 5].map(() => random.next())).toEqual([1038026488, 1622598758, 1154949499, 2001276669, 1470955416]);
    const empty = new SeededRandom('');
    expect([1, 2, 3].map(() => empty.next())).toEqual([2250066820, 2387350273, 617136561]);
  });

  it('same seed, same sequence; different seed, different sequence', () => {
    const draw = (seed: string) => {
      const r = new SeededRandom(seed);
      return Array.from({ length: 50 }, () => r.next());
    };
    expect(draw('a')).toEqual(draw('a'));
    expect(draw('a')).not.toEqual(draw('b'));
  });

  it('next() is a uint32 and float() is next() / 2^32', () => {
    const a = new SeededRandom('float');
    const b = new SeededRandom('float');
    for (let i = 0; i < 1000; i++) {
      const u = a.next();
      expect(Number.isInteger(u) && u >= 0 && u < 2 ** 32).toBe(true);
      const f = b.float();
      expect(f).toBe(u / 2 ** 32);
      expect(f >= 0 && f < 1).toBe(true);
    }
  });

  it('pins int(10) for seed "ledgerboard"', () => {
    const random = new SeededRandom('ledgerboard');
    expect(Array.from({ length: 10 }, () => random.int(10))).toEqual([8, 8, 9, 9, 6, 7, 7, 2, 1, 3]);
  });

  it('int(n) stays in [0, n), including where rejection is frequent', () => {
    const random = new SeededRandom('range');
    for (const n of [1, 2, 3, 7, 1000, 2 ** 31 + 1, 2 ** 32]) {
      for (let i = 0; i < 200; i++) {
        const x = random.int(n);
        expect(Number.isInteger(x) && x >= 0 && x < n, `int(${n}) gave ${x}`).toBe(true);
      }
    }
    expect(new SeededRandom('one').int(1)).toBe(0);
  });

  it('int(n) is roughly uniform (chi-square, 9 degrees of freedom, below the 0.1% point 27.88)', () => {
    const random = new SeededRandom('uniform');
    const counts = new Array<number>(10).fill(0);
    const draws = 20_000;
    for (let i = 0; i < draws; i++) counts[random.int(10)]!++;
    const expected = draws / 10;
    const chiSquare = counts.reduce((sum, o) => sum + ((o - expected) * (o - expected)) / expected, 0);
    expect(chiSquare).toBeLessThan(27.88);
  });

  it('int(n) rejects n outside the integers 1..2^32', () => {
    const random = new SeededRandom('bad');
    for (const n of [0, -1, 2.5, 2 ** 32 + 1, NaN]) expect(() => random.int(n)).toThrow(RangeError);
  });
});

describe('pairedBootstrapDelta', () => {
  // Five tasks, one attempt per side: candidate resolves tasks 1, 2, 4; baseline resolves 2, 5.
  // delta = 3/5 - 2/5 = 0.2 (0.19999999999999996 in doubles: 0.6 - 0.4).
  const five = paired([
    [1, 1, 0, 1],
    [1, 1, 1, 1],
    [0, 1, 0, 1],
    [1, 1, 0, 1],
    [0, 1, 1, 1],
  ]);

  it('pins a small fixed example (default B = 2000)', () => {
    // m = 2000 kept; lower = s[ceil(2000/40) - 1] = s[49], upper = s[ceil(39*2000/40) - 1] = s[1949].
    expect(pairedBootstrapDelta(five, 'demo')).toEqual({
      delta: 0.6 - 0.4,
      interval: [-0.4, 0.8],
      resamples: 2000,
      skipped: 0,
      seed: 'demo',
    });
    expect(pairedBootstrapDelta(five, 'demo', 50).interval).toEqual([-0.20000000000000007, 0.8]);
  });

  it('pins an example with unequal graded counts', () => {
    // candidate: 11 resolved of 17 graded; baseline: 7 of 15; delta = 11/17 - 7/15 = 0.18039215686274512.
    const tasks = paired([
      [2, 3, 1, 3],
      [3, 3, 3, 3],
      [0, 3, 1, 3],
      [1, 2, 0, 0],
      [3, 3, 0, 3],
      [2, 3, 2, 3],
    ]);
    const result = pairedBootstrapDelta(tasks, 'pinned');
    expect(result.delta).toBeCloseTo(11 / 17 - 7 / 15, 15);
    expect(result).toEqual({
      delta: 0.18039215686274512,
      interval: [-0.14583333333333337, 0.5833333333333334],
      resamples: 2000,
      skipped: 0,
      seed: 'pinned',
    });
  });

  it('identical sides give delta 0 and interval [0, 0]', () => {
    const same = paired([
      [1, 3, 1, 3],
      [0, 2, 0, 2],
      [4, 4, 4, 4],
    ]);
    expect(pairedBootstrapDelta(same, 'x', 500)).toEqual({ delta: 0, interval: [0, 0], resamples: 500, skipped: 0, seed: 'x' });
  });

  it('skips and counts resamples where a side has nothing graded', () => {
    // Task 1 is graded only for the candidate, task 2 only for the baseline: a resample is kept
    // only when it holds both (probability 1/2), and then its statistic is 1/1 - 1/1 = 0.
    const result = pairedBootstrapDelta(paired([[1, 1, 0, 0], [0, 0, 1, 1]]), 's', 100);
    expect(result).toEqual({ delta: 0, interval: [0, 0], resamples: 100, skipped: 47, seed: 's' });
  });

  it('is null without tasks, or when nothing could be graded', () => {
    expect(pairedBootstrapDelta([], 'none')).toEqual({ delta: null, interval: null, resamples: 2000, skipped: 2000, seed: 'none' });
    expect(pairedBootstrapDelta(paired([[0, 0, 0, 0]]), 'none', 10)).toEqual({
      delta: null,
      interval: null,
      resamples: 10,
      skipped: 10,
      seed: 'none',
    });
    expect(pairedBootstrapDelta(five, 'zero', 0)).toEqual({ delta: 0.6 - 0.4, interval: null, resamples: 0, skipped: 0, seed: 'zero' });
  });

  it('is deterministic; another seed may move the interval, never the point estimate', () => {
    expect(pairedBootstrapDelta(five, 'again', 300)).toEqual(pairedBootstrapDelta(five, 'again', 300));
    const seeds = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    const runs = seeds.map((seed) => pairedBootstrapDelta(five, seed, 50));
    expect(new Set(runs.map((r) => r.delta)).size).toBe(1);
    expect(new Set(runs.map((r) => JSON.stringify(r.interval))).size).toBeGreaterThan(1);
  });

  it('throws RangeError on impossible counts or resamples', () => {
    expect(() => pairedBootstrapDelta(paired([[2, 1, 0, 1]]), 'x')).toThrow(RangeError);
    expect(() => pairedBootstrapDelta(five, 'x', -1)).toThrow(RangeError);
    expect(() => pairedBootstrapDelta(five, 'x', 1.5)).toThrow(RangeError);
  });

  it('law: the interval contains the point estimate', () => {
    const side = fc.integer({ min: 0, max: 8 }).chain((graded) => fc.record({ resolved: fc.integer({ min: 0, max: graded }), graded: fc.constant(graded) }));
    fc.assert(
      fc.property(fc.array(fc.record({ candidate: side, baseline: side }), { minLength: 1, maxLength: 8 }), fc.string(), (tasks, seed) => {
        const result = pairedBootstrapDelta(tasks, seed, 400);
        expect(result.resamples - result.skipped).toBeGreaterThanOrEqual(0);
        if (result.delta === null || result.interval === null) return true;
        const [lo, hi] = result.interval;
        return lo <= result.delta && result.delta <= hi;
      }),
      { numRuns: 300 },
    );
  });
});

describe('twoProportionTest', () => {
  it('45/100 vs 30/100', () => {
    // pooled p = 75/200 = 0.375; se = sqrt(0.375 * 0.625 * (1/100 + 1/100)) = sqrt(0.0046875) = 0.06846531968814576;
    // z = (0.45 - 0.30) / se = 0.15 / 0.06846531968814576 = 2.1908902300206647;
    // p = math.erfc(z / sqrt 2) = 0.02845973691631057 (python3).
    const result = twoProportionTest(45, 100, 30, 100)!;
    expect(result.z).toBeCloseTo(2.1908902300206647, 12);
    expect(result.p).toBeCloseTo(0.02845973691631057, 12);
  });

  it('is antisymmetric in z and symmetric in p when the sides swap', () => {
    const ab = twoProportionTest(45, 100, 30, 100)!;
    const ba = twoProportionTest(30, 100, 45, 100)!;
    expect(ba.z).toBe(-ab.z);
    expect(ba.p).toBe(ab.p);
  });

  it('gives p = 1 for equal rates', () => {
    expect(twoProportionTest(3, 10, 6, 20)).toEqual({ z: 0, p: 1 });
  });

  it('is null without trials or without variance', () => {
    expect(twoProportionTest(0, 0, 3, 10)).toBeNull();
    expect(twoProportionTest(3, 10, 0, 0)).toBeNull();
    expect(twoProportionTest(0, 10, 0, 20)).toBeNull(); // pooled 0
    expect(twoProportionTest(10, 10, 20, 20)).toBeNull(); // pooled 1
  });

  it('throws RangeError on impossible counts', () => {
    expect(() => twoProportionTest(11, 10, 3, 10)).toThrow(RangeError);
  });
});

describe('normalCdf', () => {
  it('Phi(0) = 0.5 and Phi(Z95) = 0.975', () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(Z95)).toBeCloseTo(0.975, 9);
    expect(normalCdf(-Z95)).toBeCloseTo(0.025, 9);
  });

  it('matches 0.5 * math.erfc(-x / sqrt 2) from python3 to 1e-14 relative, tails included', () => {
    const reference: [number, number][] = [
      [-30, 4.906713927148764e-198],
      [-10, 7.619853024160593e-24],
      [-5, 2.866515718791946e-7],
      [-3, 0.0013498980316300957],
      [-1, 0.15865525393145707],
      [0.3, 0.6179114221889526],
      [1, 0.8413447460685429],
      [2.5, 0.9937903346742238],
      [5, 0.9999997133484281],
      [8, 0.9999999999999993],
    ];
    for (const [x, phi] of reference) {
      expect(Math.abs(normalCdf(x) - phi) / phi, `Phi(${x})`).toBeLessThan(1e-14);
    }
  });

  it('saturates at 0 and 1 and passes NaN through', () => {
    expect(normalCdf(-40)).toBe(0);
    expect(normalCdf(40)).toBe(1);
    expect(normalCdf(-Infinity)).toBe(0);
    expect(normalCdf(Infinity)).toBe(1);
    expect(normalCdf(NaN)).toBeNaN();
  });

  it('law: symmetry Phi(-x) = 1 - Phi(x), values in [0, 1]', () => {
    fc.assert(
      fc.property(fc.double({ min: -40, max: 40, noNaN: true }), (x) => {
        const up = normalCdf(x);
        const down = normalCdf(-x);
        return up >= 0 && up <= 1 && Math.abs(down - (1 - up)) <= 2e-16;
      }),
      { numRuns: 5000 },
    );
  });
});
