/**
 * Totals the report held at their bound (cohort `bounded`, see
 * docs/analysis.md) read as lower bounds on pages, and a wall time of
 * astronomical size reads as an order of magnitude, never as a clock.
 */
import { describe, expect, it } from 'vitest';
import { duration, retriesText, wallText } from '../../src/site/views/format.ts';

describe('bounded totals on pages', () => {
  it('prefix ">= " only to the totals the report held at their bound', () => {
    expect(wallText({ wall_seconds: { sum: 3725, median: 1 } })).toBe('1h 02m');
    expect(wallText({ wall_seconds: { sum: Number.MAX_VALUE, median: 1 }, bounded: ['wall_seconds.sum'] })).toBe('>= 4.99e+304h');
    expect(retriesText({ retries: 12345 })).toBe('12,345');
    expect(retriesText({ retries: Number.MAX_SAFE_INTEGER, bounded: ['retries'] })).toBe('>= 9,007,199,254,740,991');
    expect(retriesText({ retries: 3, bounded: ['wall_seconds.sum'] })).toBe('3');
  });

  it('reads a wall time past a million hours as an order of magnitude', () => {
    expect(duration(59.94)).toBe('59.9s');
    expect(duration(3600e6 - 1)).toBe('999999h 59m');
    expect(duration(3600e6)).toBe('1.00e+6h');
    expect(duration(null)).toBe('-');
  });
});
