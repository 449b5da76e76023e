/**
 * EEE timestamps: the schema asks for Unix epoch seconds as a string
 * (`retrieved_timestamp`: "1770570042.352403"; `evaluation_timestamp` is
 * written the same way by the converters), and some producers write an
 * ISO 8601 timestamp with an offset instead. Both are converted to RFC 3339
 * UTC with plain arithmetic (no clock, locale or time zone): the fraction
 * digits are kept as written. Anything else names no instant and is null.
 */
import { toUtcTimestamp } from '../time.ts';

const EPOCH = /^(\d{1,11})(\.\d+)?$/;

/** RFC 3339 UTC of an epoch-seconds string or an offset timestamp, or null. */
export function eeeTimestamp(text: string): string | null {
  const m = EPOCH.exec(text);
  if (m === null) return toUtcTimestamp(text);
  const seconds = Number(m[1]);
  const date = new Date(seconds * 1000);
  const year = date.getUTCFullYear();
  if (!Number.isFinite(seconds) || year > 9999) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${m[2] ?? ''}Z`;
}
