/**
 * Timestamps in other harnesses' output (Inspect, Terminal-Bench, Every Eval
 * Ever) are Python `isoformat()` with a UTC offset
 * (`2025-05-12T20:27:36-04:00`, `2026-05-06T18:00:11.526663+00:00`). The
 * evidence format wants RFC 3339 UTC with `Z`. The conversion is plain
 * arithmetic on the fields (no clock, no locale, no time zone database); the
 * fraction digits are kept exactly as written. A timestamp without an offset
 * names no instant and is refused rather than guessed.
 */
import { isValidTimestamp } from '../schema/timestamp.ts';

const PATTERN = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|z|[+-]\d{2}:?\d{2})$/;

/** The RFC 3339 UTC form of an offset timestamp, or null when it is not one (or names no real instant). */
export function toUtcTimestamp(text: string): string | null {
  const m = PATTERN.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction = '', offset] = m as unknown as [string, string, string, string, string, string, string, string | undefined, string];
  const local = `${y}-${mo}-${d}T${h}:${mi}:${s}Z`;
  // A leap second and years before 100 (which Date.UTC maps into the 1900s) are refused, not guessed.
  if (!isValidTimestamp(local) || s === '60' || Number(y) < 100) return null;
  let offsetMinutes = 0;
  if (offset !== 'Z' && offset !== 'z') {
    const digits = offset.replace(':', '');
    const hours = Number(digits.slice(1, 3));
    const minutes = Number(digits.slice(3, 5));
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offsetMinutes * 60_000;
  const utc = new Date(ms);
  const year = utc.getUTCFullYear();
  if (year < 0 || year > 9999) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(year, 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())}T${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}${fraction}Z`;
}

/** Seconds from a to b (both RFC 3339 UTC from toUtcTimestamp), fractions included, as a double. */
export function secondsBetween(a: string, b: string): number {
  return (instantMs(b) - instantMs(a)) / 1000;
}

/** Milliseconds since the epoch of an RFC 3339 UTC timestamp from toUtcTimestamp (plain arithmetic, fractions kept). */
export function instantMs(ts: string): number {
  const whole = Date.UTC(Number(ts.slice(0, 4)), Number(ts.slice(5, 7)) - 1, Number(ts.slice(8, 10)), Number(ts.slice(11, 13)), Number(ts.slice(14, 16)), Number(ts.slice(17, 19)));
  const fraction = ts.length > 20 ? Number(`0${ts.slice(19, -1)}`) : 0;
  return whole + fraction * 1000;
}
