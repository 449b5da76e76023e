/** RFC 3339 UTC timestamps (FORMAT.md section 1): validity and comparison as instants. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareTimestamps, isValidTimestamp } from '../../src/schema/timestamp.ts';

fc.configureGlobal({ seed: 20261129 });

describe('isValidTimestamp', () => {
  const valid = [
    '2026-09-14T12:00:00Z',
    '2024-02-29T00:00:00Z', // leap year
    '2000-02-29T23:59:59Z', // divisible by 400
    '0000-02-29T00:00:00Z', // year 0 is a leap year (proleptic Gregorian)
    '0004-02-29T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '2026-01-31T00:00:00Z',
    '2026-04-30T00:00:00Z',
    '2026-09-14T12:00:00.5Z',
    '2026-09-14T12:00:00.000000000000000000001Z',
  ];
  for (const t of valid) {
    it(`accepts ${t}`, () => {
      expect(isValidTimestamp(t)).toBe(true);
    });
  }

  const invalid = [
    '2023-02-29T00:00:00Z', // not a leap year
    '1900-02-29T00:00:00Z', // divisible by 100, not by 400
    '2100-02-29T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z', // month 13
    '2026-00-10T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T23:59:61Z',
    '2026-09-14t12:00:00Z', // lower-case t
    '2026-09-14T12:00:00z', // lower-case z
    '2026-09-14 12:00:00Z',
    '2026-09-14T12:00:00+00:00', // offsets
    '2026-09-14T12:00:00-05:00',
    '2026-09-14T12:00:00.000+01:00',
    '2026-09-14T12:00:00', // no zone
    '2026-09-14T12:00Z', // no seconds
    '2026-09-14T12:00:00.Z', // empty fraction
    '2026-09-14T12:00:00,5Z',
    '26-09-14T12:00:00Z',
    '+2026-09-14T12:00:00Z',
    '2026-9-14T12:00:00Z',
    '２０２６-09-14T12:00:00Z', // non-ASCII digits
    '2026-09-14T12:00:00Z\n',
    ' 2026-09-14T12:00:00Z',
    '',
  ];
  for (const t of invalid) {
    it(`rejects ${JSON.stringify(t)}`, () => {
      expect(isValidTimestamp(t)).toBe(false);
    });
  }
});

describe('compareTimestamps', () => {
  const cases: [string, string, number][] = [
    ['2026-09-14T12:00:00.5Z', '2026-09-14T12:00:00.50Z', 0],
    ['2026-09-14T12:00:00Z', '2026-09-14T12:00:00.000Z', 0],
    ['2026-09-14T12:00:00.05Z', '2026-09-14T12:00:00.5Z', -1],
    ['2026-09-14T12:00:00.5Z', '2026-09-14T12:00:00.05Z', 1],
    ['2026-09-14T12:00:00.999999999999Z', '2026-09-14T12:00:01Z', -1],
    ['2026-09-14T12:00:00.1000000000000000000001Z', '2026-09-14T12:00:00.1Z', 1], // no rounding to milliseconds
    ['2026-09-14T12:00:00.0001Z', '2026-09-14T12:00:00Z', 1],
    ['2026-09-14T23:59:59Z', '2026-09-15T00:00:00Z', -1],
    ['2026-12-31T23:59:59Z', '2027-01-01T00:00:00Z', -1],
    ['2024-02-29T00:00:00Z', '2024-03-01T00:00:00Z', -1],
    ['1969-12-31T23:59:59Z', '1970-01-01T00:00:00Z', -1],
    ['0099-12-31T00:00:00Z', '0100-01-01T00:00:00Z', -1], // two-digit years are years, not 19xx
    ['0050-01-01T00:00:00Z', '1950-01-01T00:00:00Z', -1],
    ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', -1],
  ];
  for (const [a, b, sign] of cases) {
    it(`${a} ${sign < 0 ? '<' : sign > 0 ? '>' : '='} ${b}`, () => {
      expect(Math.sign(compareTimestamps(a, b))).toBe(sign);
      expect(Math.sign(compareTimestamps(b, a))).toBe(sign === 0 ? 0 : -sign);
    });
  }

  it('throws on an invalid timestamp (a bug, not evidence)', () => {
    expect(() => compareTimestamps('2026-02-30T00:00:00Z', '2026-01-01T00:00:00Z')).toThrow();
    expect(() => compareTimestamps('2026-01-01T00:00:00Z', 'yesterday')).toThrow();
  });

  it('agrees with Date for millisecond timestamps from 1970 on', () => {
    const ms = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });
    fc.assert(
      fc.property(ms, ms, (x, y) => {
        const a = new Date(x).toISOString();
        const b = new Date(y).toISOString();
        expect(Math.sign(compareTimestamps(a, b))).toBe(Math.sign(x - y));
      }),
      { numRuns: 1000 },
    );
  });

  it('trailing zeros of a fraction never change the instant', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,12}$/), fc.integer({ min: 1, max: 20 }), (digits, zeros) => {
        const a = `2026-09-14T12:00:00.${digits}Z`;
        const b = `2026-09-14T12:00:00.${digits}${'0'.repeat(zeros)}Z`;
        expect(compareTimestamps(a, b)).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
