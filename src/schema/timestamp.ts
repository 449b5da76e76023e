/**
 * RFC 3339 UTC timestamps (FORMAT.md section 1), compared as instants.
 * Fractions of any length compare exactly (no rounding to milliseconds).
 * Parsed with plain arithmetic (no Date, no regex captures): attempts carry
 * two timestamps each and are checked by the million.
 */

/** The accepted lexical form: upper-case T and Z, optional fraction. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

interface Instant {
  /** Seconds since 1970-01-01T00:00:00Z (a leap second :60 folds onto :59). */
  seconds: number;
  /** Fraction digits without trailing zeros ('' for none); a leap second sorts after every :59 fraction. */
  fraction: string;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function digits(s: string, start: number, count: number): number {
  let n = 0;
  for (let i = start; i < start + count; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
}

/** Days from 1970-01-01 to a civil date (proleptic Gregorian; Howard Hinnant's algorithm). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * TIMESTAMP_PATTERN.test(s), character by character (no regex call: this runs
 * several times per attempt); test/schema/timestamp.test.ts checks that the
 * two agree.
 */
export function hasTimestampForm(s: string): boolean {
  const n = s.length;
  if (n < 20 || s.charCodeAt(n - 1) !== 90 /* Z */) return false;
  for (let i = 0; i < 19; i++) {
    const c = s.charCodeAt(i);
    const want = i === 4 || i === 7 ? 45 /* - */ : i === 10 ? 84 /* T */ : i === 13 || i === 16 ? 58 /* : */ : -1;
    if (want === -1 ? c < 48 || c > 57 : c !== want) return false;
  }
  if (n === 20) return true;
  // A fraction: '.', then at least one digit, up to the final Z.
  if (s.charCodeAt(19) !== 46 || n < 22) return false;
  for (let i = 20; i < n - 1; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Seconds since 1970-01-01T00:00:00Z of a timestamp with the lexical form that names a real date and time (a leap second :60 folds onto :59); NaN otherwise. */
function secondsOf(timestamp: string): number {
  if (!hasTimestampForm(timestamp)) return NaN;
  const year = digits(timestamp, 0, 4);
  const month = digits(timestamp, 5, 2);
  const day = digits(timestamp, 8, 2);
  const hour = digits(timestamp, 11, 2);
  const minute = digits(timestamp, 14, 2);
  const second = digits(timestamp, 17, 2);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return NaN;
  // A leap second is only ever 23:59:60 UTC (RFC 3339 section 5.7).
  if (second === 60 && (hour !== 23 || minute !== 59)) return NaN;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const maxDay = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > maxDay) return NaN;
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + Math.min(second, 59);
}

function toInstant(timestamp: string): Instant | null {
  const seconds = secondsOf(timestamp);
  if (Number.isNaN(seconds)) return null;
  let fraction = timestamp.length > 20 ? timestamp.slice(20, -1) : '';
  if (fraction.endsWith('0')) fraction = fraction.replace(/0+$/, '');
  // A leap second sorts after every :59 fraction (up to 40 digits), and by its own fraction among leap seconds.
  if (digits(timestamp, 17, 2) === 60) fraction = '9'.repeat(40) + fraction;
  return { seconds, fraction };
}

/** True when the string has the lexical form and names a real date and time. */
export function isValidTimestamp(timestamp: string): boolean {
  return !Number.isNaN(secondsOf(timestamp));
}

/** Compares two valid timestamps as instants: negative, zero or positive. Invalid ones throw (a bug). */
export function compareTimestamps(a: string, b: string): number {
  if (a === b) return 0;
  // Two valid timestamps of one length (the usual case: both without a fraction, or with as many digits)
  // are in instant order exactly when in character order: every field is fixed-width decimal, most
  // significant first, and the only :60 is 23:59:60, which sorts after :59 and before the next day.
  if (a.length === b.length && isValidTimestamp(a) && isValidTimestamp(b)) return a < b ? -1 : 1;
  return compareDifferentTimestamps(a, b);
}

/**
 * {@link compareTimestamps} for two timestamps the caller knows are valid
 * (both passed the Timestamp schema): the same answer, without checking
 * them again. The verifier compares each attempt's times several times.
 */
export function compareValidTimestamps(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === b.length) return a < b ? -1 : 1;
  return compareDifferentTimestamps(a, b);
}

/** Two different timestamps, checked: the instants, then the fractions. */
function compareDifferentTimestamps(a: string, b: string): number {
  const sa = secondsOf(a);
  const sb = secondsOf(b);
  if (Number.isNaN(sa) || Number.isNaN(sb)) throw new TypeError(`not a valid timestamp: ${Number.isNaN(sa) ? a : b}`);
  if (sa !== sb) return sa < sb ? -1 : 1;
  // The same second. Without a leap second the fractions decide, digit by digit (a missing digit is 0).
  if (digits(a, 17, 2) !== 60 && digits(b, 17, 2) !== 60) {
    const width = Math.max(a.length, b.length) - 21;
    for (let i = 0; i < width; i++) {
      const da = 20 + i < a.length - 1 ? a.charCodeAt(20 + i) : 48;
      const db = 20 + i < b.length - 1 ? b.charCodeAt(20 + i) : 48;
      if (da !== db) return da < db ? -1 : 1;
    }
    return 0;
  }
  const x = toInstant(a)!;
  const y = toInstant(b)!;
  const width = Math.max(x.fraction.length, y.fraction.length);
  const fx = x.fraction.padEnd(width, '0');
  const fy = y.fraction.padEnd(width, '0');
  return fx < fy ? -1 : fx > fy ? 1 : 0;
}
