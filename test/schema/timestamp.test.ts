/** RFC 3339 UTC timestamps (FORMAT.md section 1): validity and comparison as instants. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareTimestamps, compareValidTimestamps, hasTimestampForm, isValidTimestamp, TIMESTAMP_PATTERN } from '../../src/schema/timestamp.ts';

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

/** compareTimestamps as it was before its fast paths (parse both into seconds and a padded fraction), the reference. */
function referenceCompare(a: string, b: string): number {
  const instant = (t: string) => {
    const d = (start: number, count: number) => Number(t.slice(start, start + count));
    const [year, month, day, hour, minute, second] = [d(0, 4), d(5, 2), d(8, 2), d(11, 2), d(14, 2), d(17, 2)];
    const y = month <= 2 ? year - 1 : year;
    const era = Math.floor(y / 400);
    const yoe = y - era * 400;
    const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
    const days = era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
    let fraction = t.length > 20 ? t.slice(20, -1).replace(/0+$/, '') : '';
    if (second === 60) fraction = '9'.repeat(40) + fraction;
    return { seconds: days * 86400 + hour * 3600 + minute * 60 + Math.min(second, 59), fraction };
  };
  if (a === b) return 0;
  const x = instant(a);
  const y = instant(b);
  if (x.seconds !== y.seconds) return x.seconds < y.seconds ? -1 : 1;
  const width = Math.max(x.fraction.length, y.fraction.length);
  const fx = x.fraction.padEnd(width, '0');
  const fy = y.fraction.padEnd(width, '0');
  return fx < fy ? -1 : fx > fy ? 1 : 0;
}

describe('the fast paths of timestamps', () => {
  const digit = fc.constantFrom(...'0123456789');
  const near = fc.oneof(
    fc.constantFrom('2026-09-14T12:00:00Z', '2026-09-14T23:59:60Z', '2026-09-14T23:59:59.999Z', '2026-09-15T00:00:00Z', '2024-02-29T00:00:00.5Z', '0000-01-01T00:00:00Z'),
    fc.string({ unit: fc.constantFrom(...'0123456789-:TZ.tz '), minLength: 18, maxLength: 26 }),
  );

  it('hasTimestampForm agrees with TIMESTAMP_PATTERN', () => {
    fc.assert(
      fc.property(near, fc.nat(), digit, (s, at, d) => {
        const edited = s.length === 0 ? s : s.slice(0, at % s.length) + d + s.slice((at % s.length) + 1);
        for (const t of [s, edited]) expect(hasTimestampForm(t), t).toBe(TIMESTAMP_PATTERN.test(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('compareTimestamps agrees with the reference, with and without fractions and leap seconds', () => {
    const part = (min: number, max: number) => fc.integer({ min, max }).map((n) => String(n).padStart(2, '0'));
    const stamp = fc
      .tuple(
        fc.constantFrom('2026', '2025', '0001'),
        fc.constantFrom('01', '09', '12'),
        part(1, 28),
        fc.constantFrom('00', '12', '23'),
        fc.constantFrom('00', '30', '59'),
        fc.constantFrom('00', '01', '59', '60'),
        fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,6}$/), fc.constantFrom('.0', '.50', '.5', '.999999999999999999999999999999999999999999')),
      )
      .map(([y, mo, d, h, mi, s, f]) => (s === '60' ? `${y}-${mo}-${d}T23:59:60${f}Z` : `${y}-${mo}-${d}T${h}:${mi}:${s}${f}Z`));
    fc.assert(
      fc.property(stamp, stamp, (a, b) => {
        expect(isValidTimestamp(a) && isValidTimestamp(b)).toBe(true);
        expect(Math.sign(compareTimestamps(a, b)), `${a} vs ${b}`).toBe(Math.sign(referenceCompare(a, b)));
        expect(Math.sign(compareValidTimestamps(a, b)), `${a} vs ${b}`).toBe(Math.sign(referenceCompare(a, b)));
      }),
      { numRuns: 5000 },
    );
  });
});
