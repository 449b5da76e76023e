/**
 * The read side of the Inspect AI format (src/import/importer.ts
 * SourceReader): what the site reads back from a bundle's kept log (its one
 * `source/` file) and its plan. Reached by the site only through
 * src/import/sources.ts.
 */
import type { SourceFormat } from '../importer.ts';
import type { ImportLimits } from '../limits.ts';
import { passThresholdOfProfile } from './profile.ts';
import { readInspectMetrics } from './read-log.ts';
import { inspectTranscripts } from './transcript.ts';
import type { ZipLimits } from './zip.ts';

/** The archive limits of the import limits. */
export function zipLimits(limits: ImportLimits): ZipLimits {
  return { maxEntries: limits.maxEntries, maxEntryBytes: limits.maxEntryBytes, maxTotalBytes: limits.maxTotalBytes };
}

/** The `origin.format` of Inspect imports. */
export const INSPECT_ORIGIN_FORMAT = 'inspect-eval-log';

export const inspectSourceReader: SourceFormat = {
  name: 'inspect',
  origin: INSPECT_ORIGIN_FORMAT,
  label: 'Inspect AI eval log',
  input: 'file',
  async sourceMetrics(sources, graderId, limits) {
    const [only] = sources.values();
    return only === undefined || graderId === 'none' ? null : readInspectMetrics(only, graderId, limits === undefined ? undefined : zipLimits(limits));
  },
  async transcripts(sources, limits) {
    const [only] = sources.values();
    return only === undefined ? new Map() : inspectTranscripts(only, limits === undefined ? undefined : zipLimits(limits));
  },
  rerunFlags(plan) {
    const profile = (plan.grader as { profile?: unknown }).profile;
    const threshold = typeof profile === 'string' ? passThresholdOfProfile(profile) : null;
    return [...(plan.grader.id === 'none' ? [] : [['--scorer', plan.grader.id]]), ...(threshold === null ? [] : [['--pass-threshold', threshold]])];
  },
  passRule(plan) {
    // The threshold read back from the grader's profile, as rerunFlags does (the default profile: 1.0).
    const profile = (plan.grader as { profile?: unknown }).profile;
    const read = typeof profile === 'string' ? passThresholdOfProfile(profile) : null;
    // Only a plain number is quoted (the profile is the bundle's text); anything else is named, not repeated.
    const threshold = read === null ? '--pass-threshold 1.0' : /^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$/i.test(read) ? `--pass-threshold ${read}` : 'the threshold its grader profile records';
    return `a sample is resolved when it completed and its score passes: C, or P at --pass-threshold 0.5 or below, true, a number at or above the threshold (this import: ${threshold}); one attempt per epoch, not the epochs' reduction`;
  },
};
