/**
 * Money in currency units (src/site/views/format.ts): micros are integers, so the
 * amount is cut to cents by integer arithmetic, never through a binary
 * fraction; lower bounds read ">=", unknown cost never reads 0.
 */
import { describe, expect, it } from 'vitest';
import type { ReportCohort } from '../../src/report/schema.ts';
import { amount, budgetText, exactAmount, exactUnits, moneyText, units } from '../../src/site/views/format.ts';
import { cohortMoney } from '../../src/facts/money.ts';

const MAX = Number.MAX_SAFE_INTEGER; // 9,007,199,254,740,991 micros

function cost(spec: Partial<ReportCohort['cost']>): ReportCohort['cost'] {
  return { currency: 'USD', micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0, zero: 0, ...spec };
}

describe('units: micros to 2 decimals, exactly', () => {
  it('zero, small values and whole units', () => {
    expect(units(0)).toBe('0.00');
    expect(units(1)).toBe('0.00');
    expect(units(4_999)).toBe('0.00');
    expect(units(5_000)).toBe('0.01');
    expect(units(10_000)).toBe('0.01');
    expect(units(20_000_000)).toBe('20.00');
    expect(units(138_888)).toBe('0.14');
  });
  it('half a cent rounds up where a binary fraction would not (1.005 is 1.00499999... as a double)', () => {
    expect((1_005_000 / 1e6).toFixed(2)).toBe('1.00');
    expect(units(1_005_000)).toBe('1.01');
    expect(units(1_004_999)).toBe('1.00');
    expect(units(2_675_000)).toBe('2.68');
  });
  it("'down' never rounds up: a lower bound stays one", () => {
    expect(units(2_138_930, 'down')).toBe('2.13');
    expect(units(2_138_930)).toBe('2.14');
    expect(units(9_999, 'down')).toBe('0.00');
    expect(units(1_000_000, 'down')).toBe('1.00');
  });
  it('the largest exact total, and past it, digit for digit', () => {
    expect(units(MAX)).toBe('9007199254.74');
    expect(units(MAX, 'down')).toBe('9007199254.74');
    expect(units(MAX - 740_991 + 995_000)).toBe('9007199255.00');
    expect(units(123_456_789_012_345)).toBe('123456789.01');
    expect(units(999_999_999_995_000)).toBe('1000000000.00');
  });
  it('negative values keep their sign; -0.00 never appears', () => {
    expect(units(-6_000)).toBe('-0.01');
    expect(units(-4_000)).toBe('0.00');
    expect(units(-1_250_000)).toBe('-1.25');
  });
  it('amount: the currency first, or none', () => {
    expect(amount(140_000, 'USD')).toBe('USD 0.14');
    expect(amount(140_000, null)).toBe('0.14');
    expect(amount(2_138_930, 'EUR', 'down')).toBe('EUR 2.13');
  });
});

describe('budgetText: a declared budget in currency units', () => {
  it('per attempt (with its exact micros when not whole cents), in all, the timeout', () => {
    expect(budgetText({ currency: 'USD', per_attempt_micros: 138_888, aggregate_micros: 20_000_000 })).toBe('USD 0.14 per attempt (138,888 micros), USD 20.00 in all');
    expect(budgetText({ currency: 'USD', per_attempt_micros: 140_000, timeout_seconds: 600 })).toBe('USD 0.14 per attempt, 600 s timeout');
    expect(budgetText({ currency: 'EUR', per_attempt_micros: 0, aggregate_micros: 0, timeout_seconds: 1_800 })).toBe('EUR 0.00 per attempt, EUR 0.00 in all, 1,800 s timeout');
    expect(budgetText({ currency: 'USD', per_attempt_micros: MAX, aggregate_micros: MAX })).toBe('USD 9007199254.74 per attempt (9,007,199,254,740,991 micros), USD 9007199254.74 in all');
  });
  it('never shows micros as the amount', () => {
    expect(budgetText({ currency: 'USD', per_attempt_micros: 138_888 })).not.toMatch(/^USD, /);
  });
});

describe('moneyText: a cohort cost', () => {
  // The second argument is the cohort's attempts with a known cost, as the site facts hold it (src/facts/money.ts
  // cohortMoney: its attempts less those unavailable or not applicable); the text never counts attempts itself.
  const text = (c: ReportCohort['cost'], attempts: number): string => moneyText(c, cohortMoney({ attempts, cost: c }).known);
  it('complete, zero, lower bounds, unavailable and not applicable', () => {
    expect(text(cost({ micros: 20_000_000 }), 10)).toBe('USD 20.00');
    expect(text(cost({ micros: 0, zero: 10 }), 10)).toBe('USD 0.00');
    expect(text(cost({ micros: 2_138_930, complete: false, partial: 10 }), 72)).toBe('>= USD 2.13 (10 partial)');
    expect(text(cost({ micros: 648_051, complete: false, unavailable: 3, partial: 2 }), 72)).toBe('>= USD 0.64 (3 unavailable, 2 partial)');
    expect(text(cost({ micros: MAX, complete: false }), 72)).toBe('>= USD 9007199254.74');
    expect(text(cost({ micros: 0, complete: false, unavailable: 72 }), 72)).toBe('unavailable (72)');
    expect(text(cost({ micros: 0, not_applicable: 72 }), 72)).toBe('not applicable');
  });
  it('reads the known count it is given: no known attempt shows no amount, whatever the total', () => {
    expect(moneyText(cost({ micros: 5_000_000, complete: false, unavailable: 4 }), 0)).toBe('unavailable (4)');
    expect(moneyText(cost({ micros: 5_000_000, complete: false, unavailable: 4 }), 1)).toBe('>= USD 5.00 (4 unavailable)');
  });
});

describe('exact amounts (a budget share, where rounding would hide the comparison)', () => {
  it('keeps two decimals and as many more as the micros need, never rounding', () => {
    expect(exactUnits(40_000_000)).toBe('40.00');
    expect(exactUnits(140_000)).toBe('0.14');
    expect(exactUnits(138_888)).toBe('0.138888');
    expect(exactUnits(1)).toBe('0.000001');
    expect(exactUnits(0)).toBe('0.00');
    expect(exactUnits(-1_500_000)).toBe('-1.50');
    expect(exactUnits(-5)).toBe('-0.000005');
  });

  it('is exact past 2^53 (strings and bigints) where a float is not', () => {
    expect(exactUnits(Number.MAX_SAFE_INTEGER)).toBe('9007199254.740991');
    expect(exactUnits('123456789012345678901')).toBe('123456789012345.678901');
    expect(exactUnits(10n ** 30n + 1n)).toBe('1000000000000000000000000.000001');
    expect((Number.MAX_SAFE_INTEGER / 1e6).toFixed(6)).not.toBe('9007199254.740991');
    expect(exactAmount(138_888, 'EUR')).toBe('EUR 0.138888');
    expect(exactAmount(140_000, null)).toBe('0.14');
  });
});
