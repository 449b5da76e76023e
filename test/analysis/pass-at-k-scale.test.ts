/**
 * pass@k at scale (issue 25, high 2): 1,031 attempts on one task made the
 * product form overflow (its factors for i < k are below -1) and the report
 * exit 3 with "NaN is not allowed". The product now starts only where every
 * factor lies in (0, 1) and stops once 1 - product can only be 1; these tests
 * hold it to the full product's bits, to exact values, and to a bounded time
 * at 10^5 attempts per task (pass@k is computed for every k = 1..n).
 */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { meanPassAtK, passAtK } from '../../src/analysis/stats.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { Report } from '../../src/report/schema.ts';
import { BASE, CAND, gridInput } from '../helpers/report-fixtures.ts';

/** The product form as it was written before issue 25: every factor, in ascending i, from 1. */
function fullProduct(n: number, c: number, k: number): number {
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

describe('passAtK past 1,030 attempts', () => {
  it('is exactly 1 when n - c < k, where the full product is NaN (Infinity times the factor 0)', () => {
    expect(Number.isNaN(fullProduct(1031, 1031, 1031))).toBe(true);
    expect(passAtK(1031, 1031, 1031)).toBe(1);
    expect(passAtK(100_000, 100_000, 100_000)).toBe(1);
    expect(passAtK(100_000, 1, 100_000)).toBe(1);
    expect(passAtK(100_000, 60_000, 50_000)).toBe(1);
  });

  it('gives the full product bit for bit wherever that is finite (every n <= 120, and sampled rows at 2,000 and 10^5)', () => {
    let compared = 0;
    const differing: string[] = [];
    for (let n = 1; n <= 120; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) {
          const full = fullProduct(n, c, k);
          if (!Number.isFinite(full)) continue;
          if (!Object.is(passAtK(n, c, k), full)) differing.push(`${n}/${c}/${k}`);
          compared++;
        }
      }
    }
    expect(differing).toEqual([]);
    expect(compared).toBeGreaterThan(290_000);
    for (const [n, c] of [[2_000, 1], [2_000, 700], [2_000, 1_999], [100_000, 3], [100_000, 4_000], [100_000, 50_000], [100_000, 99_000]] as const) {
      for (const k of [1, 2, 3, 7, 50, 333, 1_000, Math.floor((n - c) / 2), n - c].filter((k) => k >= 1 && k <= n - c)) {
        expect(Object.is(passAtK(n, c, k), fullProduct(n, c, k))).toBe(true);
      }
    }
  });

  it('at 10^5 attempts per task: every k = 1..10^5, finite, in [0, 1], non-decreasing, exact at k = 1, within seconds', () => {
    const n = 100_000;
    const tasks = [0, 1, 10, 1_000, 10_000, 50_000, 90_000, 99_999, 100_000].map((c) => ({ n, c }));
    const started = performance.now();
    const rows = meanPassAtK(tasks);
    const seconds = (performance.now() - started) / 1000;
    expect(rows).toHaveLength(n);
    let previous = -1;
    for (const { k, value } of rows) {
      if (!(Number.isFinite(value) && value >= 0 && value <= 1 && value >= previous)) throw new Error(`pass@${k} = ${value} after ${previous}`);
      previous = value;
    }
    // pass@1 of a task is c / n (up to rounding); pass@n is 1 for every task with a success, 0 for c = 0.
    const exact1 = tasks.reduce((sum, t) => sum + t.c / n, 0) / tasks.length;
    expect(Math.abs(rows[0]!.value - exact1)).toBeLessThan(1e-12);
    expect(rows[n - 1]!.value).toBe(8 / 9);
    // About 1 s on one core; the full product took minutes for c = n / 2 alone (n c multiplications per row).
    expect(seconds).toBeLessThan(30);
  }, 60_000);
});

describe('a report with 1,031 attempts on one task', () => {
  it('builds, fits its schema and canonicalises (it threw "NaN is not allowed")', () => {
    const attempts = 1031;
    const input = gridInput({ tasks: [{ id: 't1' }], grid: { [CAND]: ['P'.repeat(attempts)], [BASE]: ['F'.repeat(attempts - 1) + 'P'] } });
    const report = buildReport([input], Config.parse({}));
    expect(Report.safeParse(report).success).toBe(true);
    expect(() => canonicalJson(report)).not.toThrow();
    const cohorts = report.cohorts;
    expect(cohorts).toHaveLength(2);
    for (const cohort of cohorts) {
      const passAtK = cohort.pass_at_k;
      expect(passAtK).toHaveLength(attempts);
      // Both cohorts have a success on the one task: pass@n = 1.
      expect(passAtK[attempts - 1]).toEqual({ k: attempts, value: 1 });
    }
  });
});
