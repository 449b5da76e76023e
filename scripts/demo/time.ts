/**
 * Timestamps for the demo, from fixed instants only (never the clock). Times
 * are carried as integer deciseconds since the epoch, so wall_seconds is
 * exactly ended_at - started_at.
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

/** Deciseconds since the epoch of a whole-second `YYYY-MM-DDTHH:MM:SSZ` timestamp. */
export function toDeci(timestamp: string): number {
  const m = ISO.exec(timestamp);
  if (!m) throw new Error(`not a whole-second UTC timestamp: ${timestamp}`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return (Date.UTC(y, mo - 1, d, h, mi, s) / 1000) * 10;
}

/** `YYYY-MM-DDTHH:MM:SSZ`, truncating any tenths. */
export function isoSeconds(deci: number): string {
  return `${new Date(Math.floor(deci / 10) * 1000).toISOString().slice(0, 19)}Z`;
}

/** `YYYY-MM-DDTHH:MM:SS.tZ`, with the tenth of a second. */
export function isoTenths(deci: number): string {
  return `${isoSeconds(deci).slice(0, 19)}.${deci % 10}Z`;
}

/** Deciseconds in a number of seconds, minutes, hours or days. */
export const SECOND = 10;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
