/**
 * Anchored freezes on the pages (FORMAT.md 12, issue 30): what a plan page
 * says of its bundle's anchor, and how many counted plans the leaderboard
 * says are anchored before their first attempt. Pure: the report's per-bundle
 * `anchor` (its genTime, authority, pinned, before_first_attempt), the plan,
 * the published files and the bytes of attempts.jsonl when the model hands
 * them over (model.ts reads them, for an anchored bundle only). Every string
 * from evidence (the authority's name) goes through `shortIdentity`
 * (invisible characters marked, long values cut); the pages print it as text.
 */
import type { Report } from '../../report/schema.ts';
import { compareTimestamps, isValidTimestamp } from '../../schema/timestamp.ts';
import { shortIdentity } from '../views/format.ts';
import { importedTime } from '../views/not-recorded.ts';
import { MAX_ROWS } from '../views/rows.ts';
import type { SiteFile, WithheldFile } from './published.ts';

type ReportAnchor = NonNullable<Report['bundles'][number]['anchor']>;

/** What a plan page says of its anchor and of the freeze log (see {@link planAnchor}). */
export interface SitePlanAnchor {
  /**
   * `before` / `after`: anchored, before or after the bundle's first attempt
   * (the report's `before_first_attempt`); `none`: the report says no token
   * checks (or there is none); null: the report records no anchors (a report
   * made before issue 30), and the page says nothing of them.
   */
  state: 'before' | 'after' | 'none' | null;
  /** The sentence (FORMAT.md 12), without a final period; null with `state` null, and for an imported plan that is not anchored (never frozen: nothing to say). */
  sentence: string | null;
  /** "(a pinned authority)" or "(an authority this site does not pin)"; null when not anchored. */
  pinned: string | null;
  /** The bundle's time-stamp tokens (`anchors/*.tsr`) whose bytes are published, the first MAX_ROWS, each at its blob URL. */
  tokens: SiteFile[];
  /** How many tokens are published in all, and how many are withheld (their digests still in the manifest). */
  tokenCount: number;
  tokensWithheld: number;
  /** Whether the report's freeze log lists this plan: null when the report carries no log (or the plan is imported: never frozen). */
  inFreezeLog: boolean | null;
}

/** What the pages say of a plan that is not anchored. */
export const NOT_ANCHORED = "not anchored: the freeze time is the publisher's own clock";
/** What an anchor after the first attempt shows, and what it does not. */
export const AFTER_FIRST_ATTEMPT = 'the anchor shows the plan existed then, not that it was frozen before it ran';
export const PINNED = '(a pinned authority)';
export const NOT_PINNED = '(an authority this site does not pin)';

/** A time-stamp token of a bundle (FORMAT.md 12): `anchors/<name>.tsr`. */
export function isTokenPath(path: string): boolean {
  return path.startsWith('anchors/') && path.endsWith('.tsr') && !path.slice('anchors/'.length).includes('/');
}

/**
 * The earliest `started_at` of the attempts in a verified attempts.jsonl
 * (one JSON object a line; it verified, so every line parses and has one),
 * compared as instants; null when it holds no attempt. A line that does not
 * read as a verified attempt (a bug: the bundle verified) throws.
 */
export function firstAttemptStart(bytes: Uint8Array): string | null {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  let first: string | null = null;
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end > start) {
      // Verified strict JSON (duplicate members refused): JSON.parse reads the same value.
      const value = JSON.parse(text.slice(start, end)) as { started_at?: unknown };
      const started = value.started_at;
      if (typeof started !== 'string' || !isValidTimestamp(started)) throw new Error('a verified attempts.jsonl line without a started_at timestamp');
      if (first === null || compareTimestamps(started, first) < 0) first = started;
    }
    start = end + 1;
  }
  return first;
}

/** Where the first attempt's time comes from: the time (null: no attempt), or withheld (attempts.jsonl's bytes are not published). */
export type FirstAttempt = { time: string | null } | 'withheld';

/**
 * The plan page's anchor sentence (FORMAT.md 12), e.g. "frozen
 * 2026-09-14T12:00:00Z; anchored by CN=TSA at 2026-09-14T12:00:05Z, before
 * the first attempt at 2026-09-15T08:00:02Z". `created` is the plan's
 * created_at as the page shows it ("run started" for an imported plan, whose
 * time may be "not recorded").
 */
export function anchorSentence(anchor: ReportAnchor | null, created: { at: string; imported: boolean }, first: FirstAttempt): string {
  const start = `${created.imported ? 'run started' : 'frozen'} ${importedTime(created.at, created.imported)}`;
  if (anchor === null) return NOT_ANCHORED;
  const by = `${start}; anchored by ${shortIdentity(anchor.authority)} at ${anchor.gen_time}`;
  const withheld = ' (its time is in attempts.jsonl, whose bytes are withheld)';
  if (anchor.before_first_attempt) {
    if (first === 'withheld') return `${by}, before the first attempt${withheld}`;
    return first.time === null ? `${by}, before any attempt: the bundle records none` : `${by}, before the first attempt at ${first.time}`;
  }
  const at = first === 'withheld' ? withheld : first.time === null ? '' : ` at ${first.time}`;
  return `${by}, after the first attempt${at}: ${AFTER_FIRST_ATTEMPT}`;
}

/**
 * What a plan page shows of its anchor: the sentence, pinned or not, the
 * tokens to download, and whether the freeze log lists the plan. `first` is
 * read by the caller only for an anchored bundle (null otherwise: the
 * sentence does not need it).
 */
export function planAnchor(
  entry: Pick<Report['bundles'][number], 'anchor' | 'plan_id'>,
  plan: { created_at: string; imported: boolean },
  files: { published: readonly SiteFile[]; withheld: readonly WithheldFile[] },
  first: FirstAttempt | null,
  freezeLog: Report['freeze_log'],
): SitePlanAnchor {
  const tokens = files.published.filter((f) => isTokenPath(f.path));
  const tokensWithheld = files.withheld.filter((f) => isTokenPath(f.path)).length;
  const anchor = entry.anchor;
  const inFreezeLog = freezeLog === null || freezeLog === undefined || plan.imported || entry.plan_id === null ? null : freezeLog.plans.some((p) => p.plan_id === entry.plan_id);
  const base = { tokens: tokens.slice(0, MAX_ROWS), tokenCount: tokens.length, tokensWithheld, inFreezeLog };
  if (anchor === undefined) return { state: null, sentence: null, pinned: null, ...base };
  // An imported run was never frozen (its page says so, ImportedNotice): without an anchor there is nothing to add.
  if (anchor === null) return { state: 'none', sentence: plan.imported ? null : NOT_ANCHORED, pinned: null, ...base };
  return {
    state: anchor.before_first_attempt ? 'before' : 'after',
    sentence: anchorSentence(anchor, { at: plan.created_at, imported: plan.imported }, first ?? { time: null }),
    pinned: anchor.pinned ? PINNED : NOT_PINNED,
    ...base,
  };
}

/** How many counted frozen plans are anchored before their first attempt (the leaderboard's line). */
export interface SiteAnchorCount {
  /** Distinct frozen plans of counted bundles (imported plans had no freeze: FORMAT.md 9). */
  counted: number;
  /** Of them, anchored before their first attempt; and of those, by a pinned authority. */
  before: number;
  pinned: number;
  /** Distinct imported plans of counted bundles, said apart. */
  imported: number;
  /** "2 of 4 counted plans anchored before their first attempt, 1 by a pinned authority". */
  text: string;
}

/**
 * The leaderboard's count of counted frozen plans anchored before their
 * first attempt; null when no counted bundle's report entry records an
 * anchor (a report made before issue 30) or no frozen plan is counted.
 * Imported plans are not in it (they had no freeze to anchor): the text
 * says how many there are.
 */
export function anchorCount(report: Pick<Report, 'bundles'>): SiteAnchorCount | null {
  const counted = report.bundles.filter((b) => b.counted && b.plan_id !== null);
  if (counted.length === 0 || counted.every((b) => b.anchor === undefined)) return null;
  const imported = new Set(counted.filter((b) => b.plan?.origin === 'imported').map((b) => b.plan_id!));
  // One plan is counted once (a plan has one counted bundle; a set, whatever the report holds).
  const plans = new Map<string, ReportAnchor | null>();
  for (const b of counted) {
    if (imported.has(b.plan_id!)) continue;
    const kept = plans.get(b.plan_id!);
    const anchor = b.anchor ?? null;
    if (kept === undefined || (kept === null && anchor !== null)) plans.set(b.plan_id!, anchor);
  }
  if (plans.size === 0) return null;
  const anchors = [...plans.values()];
  const before = anchors.filter((a) => a !== null && a.before_first_attempt);
  const pinned = before.filter((a) => a!.pinned).length;
  const n = plans.size;
  const pinnedText = before.length === 0 ? '' : `, ${pinned === before.length ? (before.length === 1 ? 'by' : 'all by') : `${pinned} by`} a pinned authority`;
  const importedText = imported.size === 0 ? '' : ` (and ${imported.size} imported ${imported.size === 1 ? 'plan' : 'plans'}, which had no freeze to anchor)`;
  return { counted: n, before: before.length, pinned, imported: imported.size, text: `${before.length} of ${n} counted ${n === 1 ? 'plan' : 'plans'} anchored before their first attempt${pinnedText}${importedText}` };
}
