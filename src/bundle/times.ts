/**
 * A faster {@link compareValidTimestamps} for the verifier's per-attempt
 * loops. Two valid timestamps whose first 19 characters (YYYY-MM-DDTHH:MM:SS)
 * differ are in instant order exactly when those characters are in character
 * order: every field is fixed-width decimal, most significant first, and the
 * only :60 is 23:59:60, which sorts after every :59 and before the next day
 * (the reasoning behind compareValidTimestamps' own same-length shortcut).
 * Only the same second is left to compareValidTimestamps (the fractions).
 * test/bundle/times.test.ts holds the two to the same sign.
 */
import { compareValidTimestamps } from '../schema/timestamp.ts';

/** The sign of compareValidTimestamps(a, b), for two timestamps that passed the Timestamp schema. */
export function compareTimes(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === b.length) return a < b ? -1 : 1;
  for (let i = 0; i < 19; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return compareValidTimestamps(a, b);
}
