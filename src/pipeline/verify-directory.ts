/**
 * Reading and verifying one bundle directory, with crash isolation (an
 * unexpected error is INTERNAL_ERROR on that bundle only), the reader's
 * limits, and a symbolic link met in discovery reported, never followed.
 * verifyPaths (verify-paths.ts) runs it over every discovered bundle, on this
 * thread or on worker threads (threads.ts).
 */
import { ContentArena } from '../evidence/arena.ts';
import { readBundle, type BundleSnapshot } from '../evidence/read-bundle.ts';
import { lstat, readlink } from 'node:fs/promises';
import { digestBytes, digestCanonical } from '../json/canonical.ts';
import { finding, statusOf } from '../verify/findings.ts';
import { jsonlLimitHit, LIMIT_DEFAULTS, limitMessage, nestingOver, type LimitHit, type Limits } from '../evidence/limits.ts';
import { verifyBundle, type BundleVerification } from '../verify/verify-bundle.ts';
import { evidence } from '../bundle/evidence.ts';
import type { BundleEntry, DirectoryResult } from './results.ts';
import { cacheKey, readCached, writeCached, type VerifyCache } from './verify-cache.ts';

export type { BundleEntry, DirectoryResult, BundleResult } from './results.ts';

/** Progress callback: bundles done so far and the total. */
export type Progress = (done: number, total: number) => void;

/** How verifyPaths reads and verifies: the limits in force (default LIMIT_DEFAULTS), and the verifier (tests replace it). */
export interface VerifyOptions {
  limits?: Limits;
  verify?: VerifyFunction;
  /**
   * Worker threads verifying next to the main thread (threads.ts; not with a
   * verifier passed in). Default: chosen from the evidence size and the CPU
   * cores. The results are the same either way.
   */
  workers?: number;
  /**
   * When true (the default), a path with no bundle below it is a usage error
   * ("no bundle found under X"): the user named it as evidence. build, report
   * and retain read the config's directories with false: an empty evidence
   * directory is a board with no evidence yet, not an error.
   */
  requireBundles?: boolean;
  /**
   * The verification cache to use (verify-cache.ts): every file is still
   * read and hashed; a bundle whose entries, limits and verifier code match
   * a kept entry takes the kept result. Not with a verifier passed in.
   */
  cache?: VerifyCache;
}

/** The verifier a pipeline runs on each snapshot: verifyBundle, or a replacement in tests of crash isolation. */
export type VerifyFunction = (snapshot: BundleSnapshot, limits: Limits) => BundleVerification;

/**
 * An unexpected error while processing one bundle (a bug in ledgerboard, not
 * a property of the evidence) becomes an INTERNAL_ERROR finding on that
 * bundle, which gets no verdict; the other bundles are processed as usual.
 */
function internalError(error: unknown, stage: 'reading' | 'verifying'): BundleVerification {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return {
    bundle_id: null,
    plan_id: null,
    status: 'no_verdict',
    findings: [finding('INTERNAL_ERROR', '.', `ledgerboard failed while ${stage} this bundle: ${message.slice(0, 500)}`)],
    evidence: evidence({}),
  };
}

/**
 * Reads and verifies one bundle directory; a root that cannot be listed is a
 * no_verdict bundle, not a crash. With an arena (see readBundle) the bytes
 * read are dropped once verified: nothing returned refers to them.
 */
export async function verifyDirectory(dir: string, arena?: ContentArena, options: VerifyOptions = {}): Promise<DirectoryResult> {
  const read = await readDirectory(dir, arena, options.limits ?? LIMIT_DEFAULTS);
  return 'result' in read ? read.result : finishDirectory(read, options);
}

/** A directory read as a bundle: its snapshot, entries and content digest, not yet verified. */
export interface DirectoryRead {
  snapshot: BundleSnapshot;
  entries: BundleEntry[];
  content_digest: string;
}

/**
 * The reading half of {@link verifyDirectory}: every file read and hashed.
 * A directory that is a link, or cannot be listed, is judged here already
 * (`result`).
 */
export async function readDirectory(dir: string, arena: ContentArena | undefined, limits: Limits): Promise<DirectoryRead | { result: DirectoryResult }> {
  const link = await linkTarget(dir);
  if (link !== null) return { result: linkedBundle(link) };
  let snapshot: BundleSnapshot;
  try {
    snapshot = await readBundle(dir, arena, limits);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') return { result: { entries: [], content_digest: contentDigest({ entries: [] }), verification: internalError(error, 'reading') } };
    return {
      result: {
        entries: [],
        content_digest: contentDigest({ entries: [] }),
        verification: {
          bundle_id: null,
          plan_id: null,
          status: 'no_verdict',
          findings: [finding('MISSING_FILE', 'manifest.json', `the bundle directory cannot be read (${code})`)],
          evidence: evidence({}),
        },
      },
    };
  }
  const entries = snapshot.entries.map((e) => ({ path: e.path, kind: e.kind, sha256: e.sha256 ?? null, bytes: e.bytes ?? null, badName: e.badName === true }));
  return { snapshot, entries, content_digest: contentDigest(snapshot) };
}

/** The verifying half of {@link verifyDirectory}: the kept result when the cache has one, else verifyBundle (then kept). */
export async function finishDirectory(read: DirectoryRead, { limits = LIMIT_DEFAULTS, verify, cache }: VerifyOptions = {}): Promise<DirectoryResult> {
  const { snapshot, entries, content_digest } = read;
  // A verifier passed in (a test's) is not the one the cache keys on.
  const key = cache !== undefined && verify === undefined ? cacheKey(snapshot, limits) : null;
  if (key !== null) {
    const kept = await readCached(cache!, key);
    // The kept result of the same bytes; its entries and content digest are those just read (the key holds them).
    if (kept !== null) return { verification: kept.verification, content_digest, entries, cached: true };
  }
  let verification: BundleVerification;
  let crashed = false;
  try {
    verification = snapshot.notRead ? notJudged([snapshot.notRead]) : withLimits(snapshot, limits, verify ?? verifyBundle);
  } catch (error) {
    verification = internalError(error, 'verifying');
    crashed = true;
  }
  const result = { verification, content_digest, entries };
  // An internal error is a bug of this run, not a property of the bytes: never kept.
  if (key !== null && !crashed) await writeCached(cache!, key, result);
  return result;
}

/** The target of `dir` when it is a symbolic link (lstat: a path ending in a separator is the directory it names), else null. */
async function linkTarget(dir: string): Promise<string | null> {
  const stats = await lstat(dir).catch(() => null);
  if (!stats?.isSymbolicLink()) return null;
  return readlink(dir).catch(() => '');
}

/**
 * A bundle found as a symbolic link (discovery meets links but never follows
 * them): NOT_REGULAR_FILE, so it is listed with the rejected evidence instead
 * of vanishing. Its content digest is that of the link (its target), so two
 * links to different places stay two bundles.
 */
function linkedBundle(target: string): { verification: BundleVerification; content_digest: string; entries: BundleEntry[] } {
  const shown = target.length > 200 ? `${target.slice(0, 200)}…` : target;
  const findings = [
    finding('NOT_REGULAR_FILE', '.', `the bundle directory is a symbolic link (to ${JSON.stringify(shown)}); links are never followed: put the bundle itself here, or name its directory as an argument`),
  ];
  return {
    entries: [],
    content_digest: contentDigest({ entries: [{ path: '.', kind: 'symlink', sha256: digestBytes(target) }] }),
    verification: {
      bundle_id: null,
      plan_id: null,
      status: statusOf(findings),
      findings,
      evidence: evidence({}),
    },
  };
}

/**
 * Verifies a snapshot under the limits: the JSONL line limits (and a lowered
 * depth) are checked on the bytes before anything parses them; a file over a
 * limit is withheld from the verifier, its LIMIT_EXCEEDED finding comes first,
 * and the MISSING_FILE the verifier reports for it is dropped (it is there,
 * just not read).
 */
function withLimits(snapshot: BundleSnapshot, limits: Limits, verify: VerifyFunction): BundleVerification {
  const hits: LimitHit[] = [];
  for (const entry of snapshot.entries) {
    if (entry.limit) {
      hits.push(entry.limit);
      continue;
    }
    if (entry.content === undefined || entry.path === 'NOTES.md') continue;
    const jsonl = entry.path.endsWith('.jsonl');
    let hit = jsonl ? jsonlLimitHit(entry.path, entry.content, limits) : null;
    if (!hit && limits.depth < LIMIT_DEFAULTS.depth) {
      const over = nestingOver(entry.content, limits.depth, jsonl);
      if (over) hit = { path: entry.path, limit: 'depth', value: limits.depth, actual: over.depth, ...(jsonl ? { line: over.line } : {}) };
    }
    if (hit) {
      entry.limit = hit;
      entry.unreadable = `is over limits.${hit.limit}: not parsed`;
      delete entry.content;
      hits.push(hit);
    }
  }
  const verification = verify(snapshot, limits);
  if (hits.length === 0) return verification;
  const limited = new Set(hits.map((h) => h.path));
  const findings = [
    ...hits.map((h) => finding('LIMIT_EXCEEDED', h.path, limitMessage(h), h.line)),
    ...verification.findings.filter((f) => !(f.code === 'MISSING_FILE' && limited.has(f.file))),
  ];
  return { ...verification, findings, status: statusOf(findings) };
}

/** A bundle that was not judged at all (over a whole-bundle limit: nothing was read). */
function notJudged(hits: readonly LimitHit[]): BundleVerification {
  return {
    bundle_id: null,
    plan_id: null,
    status: 'no_verdict',
    findings: hits.map((h) => finding('LIMIT_EXCEEDED', h.path, limitMessage(h))),
    evidence: evidence({}),
  };
}

/** The digest of a snapshot's sorted (path, kind, sha256) entries. */
export function contentDigest(snapshot: BundleSnapshot): string {
  return digestCanonical(snapshot.entries.map((e) => [e.path, e.kind, e.sha256 ?? null]));
}
