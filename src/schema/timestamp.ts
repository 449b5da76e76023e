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

function toInstant(timestamp: string): Instant | null {
  if (!TIMESTAMP_PATTERN.test(timestamp)) return null;
  const year = digits(timestamp, 0, 4);
  const month = digits(timestamp, 5, 2);
  const day = digits(timestamp, 8, 2);
  const hour = digits(timestamp, 11, 2);
  const minute = digits(timestamp, 14, 2);
  const second = digits(timestamp, 17, 2);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  // A leap second is only ever 23:59:60 UTC (RFC 3339 section 5.7).
  if (second === 60 && (hour !== 23 || minute !== 59)) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const maxDay = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > maxDay) return null;
  let fraction = timestamp.length > 20 ? timestamp.slice(20, -1) : '';
  if (fraction.endsWith('0')) fraction = fraction.replace(/0+$/, '');
  // A leap second sorts after every :59 fraction (up to 40 digits), and by its own fraction among leap seconds.
  if (second === 60) fraction = '9'.repeat(40) + fraction;
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + Math.min(second, 59);
  return { seconds, fraction };
}

/** True when the string has the lexical form and names a real date and time. */
export function isValidTimestamp(timestamp: string): boolean {
  return toInstant(timestamp) !== null;
}

/** Compares two valid timestamps as instants: negative, zero or positive. Invalid ones throw (a bug). */
export function compareTimestamps(a: string, b: string): number {
  if (a === b) return 0;
  const x = toInstant(a);
  const y = toInstant(b);
  if (x === null || y === null) throw new TypeError(`not a valid timestamp: ${x === null ? a : b}`);
  if (x.seconds !== y.seconds) return x.seconds < y.seconds ? -1 : 1;
  const width = Math.max(x.fraction.length, y.fraction.length);
  const fx = x.fraction.padEnd(width, '0');
  const fy = y.fraction.padEnd(width, '0');
  return fx < fy ? -1 : fx > fy ? 1 : 0;
}
