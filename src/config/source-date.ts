/**
 * SOURCE_DATE_EPOCH (reproducible-builds.org): the one date ledgerboard
 * takes from its environment. The site dates itself by its newest evidence;
 * only a site with no dated evidence at all uses this, never the clock; and
 * `freeze` uses it for a plan that does not say when it was frozen. A value
 * that is set but malformed is an error, not ignored.
 */
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** A SOURCE_DATE_EPOCH value that is not a plain count of seconds. */
export class SourceDateError extends LedgerboardError {
  static override readonly code: string = 'SOURCE_DATE_INVALID';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
}

/** The largest accepted value: 9999-12-31T23:59:59Z. */
const MAX_EPOCH = 253402300799;

/**
 * Parses SOURCE_DATE_EPOCH: unset or empty gives null; otherwise ASCII digits
 * only (no sign, no fraction, no spaces), at most 9999-12-31T23:59:59Z.
 * Returns the instant as RFC 3339 UTC with whole seconds.
 */
export function parseSourceDateEpoch(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  if (!/^[0-9]{1,12}$/.test(value) || Number(value) > MAX_EPOCH) {
    throw new SourceDateError(
      `SOURCE_DATE_EPOCH must be a whole number of seconds since 1970-01-01T00:00:00Z (digits only, at most ${MAX_EPOCH}, 9999-12-31T23:59:59Z); got ${JSON.stringify(value.slice(0, 40))}`,
    );
  }
  return new Date(Number(value) * 1000).toISOString().replace('.000Z', 'Z');
}
