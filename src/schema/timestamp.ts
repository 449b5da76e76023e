/**
 * RFC 3339 UTC timestamps (FORMAT.md section 1), compared as instants.
 * Fractions of any length compare exactly (no rounding to milliseconds).
 */

/** The accepted lexical form: upper-case T and Z, optional fraction. */
export const TIMESTAMP_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

interface Instant {
  seconds: number;
  fraction: string;
}

function toInstant(timestamp: string): Instant | null {
  const m = TIMESTAMP_PATTERN.exec(timestamp);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  // A leap second (:60) is the instant just before the next minute starts; fold it onto :59.999...
  const fraction = second === 60 ? '9'.repeat(30) : (m[7] ?? '').replace(/0+$/, '');
  const seconds = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59)) / 1000;
  return { seconds, fraction };
}

/** True when the string has the lexical form and names a real date and time. */
export function isValidTimestamp(timestamp: string): boolean {
  return toInstant(timestamp) !== null;
}

/** Compares two valid timestamps as instants: negative, zero or positive. Invalid ones throw (a bug). */
export function compareTimestamps(a: string, b: string): number {
  const x = toInstant(a);
  const y = toInstant(b);
  if (x === null || y === null) throw new TypeError(`not a valid timestamp: ${x === null ? a : b}`);
  if (x.seconds !== y.seconds) return x.seconds < y.seconds ? -1 : 1;
  const width = Math.max(x.fraction.length, y.fraction.length);
  const fx = x.fraction.padEnd(width, '0');
  const fy = y.fraction.padEnd(width, '0');
  return fx < fy ? -1 : fx > fy ? 1 : 0;
}
