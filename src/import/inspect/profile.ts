/**
 * An Inspect import's grader profile as the read side reads it back (the
 * pass threshold of the re-run command and the pass rule). Pure, so the read
 * side (source-reader.ts) never loads the writer (map.ts).
 */

/** The grader profile recorded for an Inspect scorer (at the default pass threshold). */
export const INSPECT_GRADER_PROFILE = 'inspect-scorer';

/** The pass threshold a grader profile records: the default for `inspect-scorer`, N for `inspect-scorer pass>=N`, else null (not an Inspect profile). */
export function passThresholdOfProfile(profile: string): string | null {
  if (profile === INSPECT_GRADER_PROFILE) return null;
  return /^inspect-scorer pass>=(\S{1,40})$/.exec(profile)?.[1] ?? null;
}
