/** Money in currency units from integer micros, exactly (issue 13, item 8): src/site/money.ts. */
import { describe, expect, it } from 'vitest';
import { budgetText, money, unitsOf } from '../../src/site/money.ts';

describe('money in currency units', () => {
  it('keeps two decimals and as many more as the micros need, never rounding', () => {
    expect(unitsOf(40_000_000)).toBe('40.00');
    expect(unitsOf(140_000)).toBe('0.14');
    expect(unitsOf(138_888)).toBe('0.138888');
    expect(unitsOf(1)).toBe('0.000001');
    expect(unitsOf(0)).toBe('0.00');
    expect(unitsOf(1_500_000)).toBe('1.50');
    expect(unitsOf(-1_500_000)).toBe('-1.50');
    expect(unitsOf(-5)).toBe('-0.000005');
  });

  it('is exact past 2^53 (strings and bigints) where a float is not', () => {
    expect(unitsOf(Number.MAX_SAFE_INTEGER)).toBe('9007199254.740991');
    expect(unitsOf('123456789012345678901')).toBe('123456789012345.678901');
    expect(unitsOf(10n ** 30n + 1n)).toBe('1000000000000000000000000.000001');
    expect((Number.MAX_SAFE_INTEGER / 1e6).toFixed(6)).not.toBe('9007199254.740991');
  });

  it('writes the currency code first, and a budget as the issue asks', () => {
    expect(money(140_000, 'USD')).toBe('USD 0.14');
    expect(money(140_000, null)).toBe('0.14');
    expect(budgetText({ currency: 'USD', per_attempt_micros: 140_000, aggregate_micros: 20_000_000 })).toBe('USD 0.14 per attempt, USD 20.00 in all');
    expect(budgetText({ currency: 'EUR', per_attempt_micros: 138_888, aggregate_micros: 40_000_000 })).toBe('EUR 0.138888 per attempt, EUR 40.00 in all');
  });
});
