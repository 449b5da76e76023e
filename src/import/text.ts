/**
 * Two pure text helpers of the importers, shared by their write side
 * (common.ts, each map.ts) and their read side (each format's parsing of its
 * originals, which source-reader.ts runs for the site): counts in words, and
 * the refusal of a source string over the import's string limit.
 */
import { ImportLimitError } from './errors.ts';

/** "1 sample", "2 samples". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Refuses a string from the source longer than the limit (never cut: a cut
 * id could equal another). `what` names the field in fixed words.
 */
export function boundedString(value: string, maxBytes: number, what: string): string {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > maxBytes) throw new ImportLimitError(`${what} is ${bytes} bytes long, more than the ${maxBytes} an import keeps (import_limits.maxStringBytes)`, 'maxStringBytes');
  return value;
}
