/**
 * lm-eval records its run start as `date`: Python `time.time()` at the start
 * of simple_evaluate, a Unix time in seconds with a fraction. The evidence
 * format wants RFC 3339 UTC. The conversion is plain arithmetic (no clock,
 * locale or time zone), to whole microseconds, trailing zeros of the
 * fraction dropped. (`start_time` / `end_time` are `time.perf_counter()`
 * readings: a process clock, not a date, so they are never used.)
 */

/** The RFC 3339 UTC timestamp of a Unix time in seconds, or null when it is not a time in years 1970-9999. */
export function unixToUtc(seconds: number): string | null {
  if (!Number.isFinite(seconds) || seconds < 0) return null;
  const micros = Math.round(seconds * 1e6);
  if (!Number.isSafeInteger(micros)) return null;
  const ms = Math.floor(micros / 1000);
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year > 9999) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const fraction = String(micros % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${fraction === '' ? '' : `.${fraction}`}Z`;
}
