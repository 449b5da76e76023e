/** compareTimes (src/bundle/times.ts) gives the sign compareValidTimestamps gives, on random valid timestamps. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareValidTimestamps, isValidTimestamp } from '../../src/schema/timestamp.ts';
import { compareTimes } from '../../src/bundle/times.ts';

const pad = (n: number, w: number) => String(n).padStart(w, '0');
/** Valid timestamps close together (so prefixes often tie), leap seconds and fractions of any length included. */
const timestamp = fc
  .record({
    year: fc.constantFrom(1999, 2026, 2027),
    month: fc.constantFrom(1, 2, 12),
    day: fc.constantFrom(1, 28, 31),
    hour: fc.constantFrom(0, 23),
    minute: fc.constantFrom(0, 59),
    second: fc.constantFrom(0, 59, 60),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,12}$/), { nil: undefined }),
  })
  .map(({ year, month, day, hour, minute, second, fraction }) => `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction === undefined ? '' : `.${fraction}`}Z`)
  .filter(isValidTimestamp);

describe('compareTimes', () => {
  it('has the sign of compareValidTimestamps', () => {
    fc.assert(
      fc.property(timestamp, timestamp, (a, b) => {
        expect(Math.sign(compareTimes(a, b))).toBe(Math.sign(compareValidTimestamps(a, b)));
      }),
      { seed: 20261130, numRuns: 5000 },
    );
  });
});
