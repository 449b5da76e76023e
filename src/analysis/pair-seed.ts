/**
 * The seed text of a paired bootstrap between two cohorts, written once: the
 * report seeds a candidate against its baseline with it
 * (report/ledger-section.ts), the compare pages seed a against b with it
 * (facts/compare.ts), so a compare page whose a is a candidate and whose b
 * is its baseline shows the cohort's own delta, bit for bit.
 *
 * `<digest of {bundles, config_digest}>/<first cohort id>/<second cohort id>`,
 * where `bundles` are the sorted, distinct ids of the bundles the two cohorts
 * pool. Only what the two cohorts are made of enters it, so evidence added on
 * another board never moves the interval.
 */
import { digestCanonical } from '../json/canonical.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** The seed text (see the module comment): `first` in the candidate's place, `second` in the baseline's. */
export function pairSeed(bundleIds: Iterable<string>, configDigest: string, first: string, second: string): string {
  const bundles = [...new Set(bundleIds)].sort(byString);
  return `${digestCanonical({ bundles, config_digest: configDigest })}/${first}/${second}`;
}
