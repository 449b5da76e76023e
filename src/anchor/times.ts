/**
 * A bundle's anchor from its checked tokens (FORMAT.md 12), as pure
 * functions over RFC 3339 strings compared as instants
 * (`compareTimestamps`): the anchor time is the earliest genTime of the
 * tokens that check; it is `before_first_attempt` when strictly before the
 * earliest attempt's `started_at` (no attempts: true), and a genTime before
 * `plan.created_at` is ANCHOR_BEFORE_CREATED.
 */
import { compareUtf8 } from '../json/compare.ts';
import { compareTimestamps } from '../schema/timestamp.ts';
import type { AnchorCheck, AnchorOk } from './check.ts';

/**
 * The token that anchors a bundle: the earliest genTime among those that check; at one instant a pinned
 * one first, then by authority (UTF-8 byte order), so the answer does not depend on the tokens' order.
 * Undefined when none checks.
 */
export function earliestAnchor(checks: readonly AnchorCheck[]): AnchorOk | undefined {
  let best: AnchorOk | undefined;
  for (const check of checks) {
    if (!check.ok) continue;
    if (best === undefined) {
      best = check;
      continue;
    }
    const order = compareTimestamps(check.genTime, best.genTime) || Number(best.pinned) - Number(check.pinned) || compareUtf8(check.authority, best.authority);
    if (order < 0) best = check;
  }
  return best;
}

/** The earliest genTime of the tokens that check, or undefined. */
export function earliestGenTime(checks: readonly AnchorCheck[]): string | undefined {
  return earliestAnchor(checks)?.genTime;
}

/** `before_first_attempt`: the anchor time strictly before every attempt's `started_at` (true with no attempts). */
export function beforeFirstAttempt(genTime: string, attemptStarts: Iterable<string>): boolean {
  for (const started of attemptStarts) if (compareTimestamps(genTime, started) >= 0) return false;
  return true;
}

/** ANCHOR_BEFORE_CREATED: a genTime strictly before the plan's own `created_at`. */
export function beforeCreated(genTime: string, createdAt: string): boolean {
  return compareTimestamps(genTime, createdAt) < 0;
}

/** The report's per-bundle `anchor` (FORMAT.md 12), or null when no token checks. */
export interface BundleAnchor {
  readonly gen_time: string;
  readonly authority: string;
  readonly pinned: boolean;
  readonly before_first_attempt: boolean;
}

/** The bundle's `anchor` from its tokens' checks and its attempts' start times. */
export function bundleAnchor(checks: readonly AnchorCheck[], attemptStarts: Iterable<string>): BundleAnchor | null {
  const best = earliestAnchor(checks);
  if (best === undefined) return null;
  return { gen_time: best.genTime, authority: best.authority, pinned: best.pinned, before_first_attempt: beforeFirstAttempt(best.genTime, attemptStarts) };
}
