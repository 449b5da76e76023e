/**
 * Reading and verifying one bundle directory, with crash isolation (an
 * unexpected error is INTERNAL_ERROR on that bundle only), the reader's
 * limits, and a symbolic link met in discovery reported, never followed.
 * An imported bundle that verifies has its import re-derived from its kept
 * originals, read again from the directory (import/rederive.ts).
 * verifyPaths (verify-paths.ts) runs it over every discovered bundle, on this
 * thread or on worker threads (threads.ts).
 */
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ContentArena } from '../evidence/arena.ts';
import { readBundle, type BundleSnapshot } from '../evidence/read-bundle.ts';
import { digestBytes } from '../json/canonical.ts';
import { finding, statusOf, type Finding } from '../verify/findings.ts';
import { LIMIT_DEFAULTS, type Limits } from '../evidence/limits.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';
import { evidence } from '../bundle/evidence.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../import/limits.ts';
import { rederiveImport, withImportFindings, type BundleFileReader } from '../import/rederive.ts';
import type { BundleEntry, DirectoryResult } from './results.ts';
import { cacheKey, readCached, writeCached, type VerifyCache } from './verify-cache.ts';
import { contentDigest, verifySnapshot, type VerifyFunction } from './verify-snapshot.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';
import { openNoFollow } from '../files/read.ts';
import type { PinnedRoot } from '../anchor/check.ts';

export type { BundleEntry, DirectoryResult, BundleResult } from './results.ts';
export { contentDigest, verifySnapshot, type VerifyFunction } from './verify-snapshot.ts';

/** Progress callback: bundles done so far and the total. */
export type Progress = (done: number, total: number) => void;

/** How verifyPaths reads and verifies: the limits in force (default LIMIT_DEFAULTS), and the verifier (tests replace it). */
export interface VerifyOptions {
  limits?: Limits;
  /** The import limits an imported bundle's originals are re-imported under (the config's `import_limits`; default DEFAULT_IMPORT_LIMITS). */
  importLimits?: ImportLimits;
  /** The time-stamp authorities' roots the reader pins (the config's `timestamp_roots`; default none): FORMAT.md 12's `pinned`. */
  timestampRoots?: readonly PinnedRoot[];
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
    anchor: null,
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
  /** The bundle directory, as given: an imported bundle's originals are read from it again to re-derive the import. */
  dir: string;
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
          anchor: null,
        },
      },
    };
  }
  const entries = snapshot.entries.map((e) => ({ path: e.path, kind: e.kind, sha256: e.sha256 ?? null, bytes: e.bytes ?? null, badName: e.badName === true }));
  return { dir, snapshot, entries, content_digest: contentDigest(snapshot) };
}

/**
 * The verifying half of {@link verifyDirectory}: the kept result when the
 * cache has one, else verifySnapshot and, for an imported bundle that
 * verifies, the import re-derived from its originals on disk (then kept).
 */
export async function finishDirectory(read: DirectoryRead, { limits = LIMIT_DEFAULTS, importLimits = DEFAULT_IMPORT_LIMITS, timestampRoots = [], verify, cache }: VerifyOptions = {}): Promise<DirectoryResult> {
  const { snapshot, entries, content_digest } = read;
  // A verifier passed in (a test's) is not the one the cache keys on.
  const key = cache !== undefined && verify === undefined ? cacheKey(snapshot, limits, importLimits, timestampRoots) : null;
  if (key !== null) {
    const kept = await readCached(cache!, key);
    // The kept result of the same bytes; its entries and content digest are those just read (the key holds them).
    if (kept !== null) return { verification: kept.verification, content_digest, entries, cached: true };
  }
  let verification: BundleVerification;
  // Not kept: an internal error (a bug of this run) or an original that changed while read (not a property of the bytes the key names).
  let keep = true;
  try {
    verification = verifySnapshot(snapshot, limits, { timestampRoots }, verify);
    const rederived = await rederiveImport(verification, originalsReader(read), importLimits);
    verification = withImportFindings(verification, rederived.findings);
  } catch (error) {
    keep = false;
    verification = error instanceof ChangedWhileRead ? withImportFindings(verification!, [error.change]) : internalError(error, 'verifying');
  }
  const result = { verification, content_digest, entries };
  if (key !== null && keep) await writeCached(cache!, key, result);
  return result;
}

/** An original of the bundle that no longer holds the bytes the snapshot read (or is gone): the evidence changed while it was read. */
export class ChangedWhileRead extends LedgerboardError {
  static override readonly code: string = 'EVIDENCE_CHANGED_WHILE_READ';
  static override readonly exitStatus = EXIT_STATUS.internal;
  constructor(readonly change: Finding) {
    super(change.message);
  }
}


/**
 * Reads a bundle's original from its directory, as the reader does (never
 * through a symbolic link, only a regular file), and checks it against the
 * snapshot: its size and SHA-256 must be those read before. A file that is
 * gone is MISSING_FILE, one whose bytes differ FILE_DIGEST_MISMATCH (thrown
 * as ChangedWhileRead: the bundle changed while it was read). rederiveImport
 * has already refused originals over the import limits by their manifest
 * sizes, which the snapshot matched.
 */
function originalsReader(read: DirectoryRead): BundleFileReader {
  const byPath = new Map(read.snapshot.entries.map((e) => [e.path, e]));
  return async (path) => {
    const entry = byPath.get(path);
    if (entry === undefined || entry.kind !== 'file' || entry.sha256 === undefined) return null;
    let bytes: Buffer;
    try {
      const handle = await openNoFollow(join(read.dir, ...path.split('/')));
      try {
        const stats = await handle.stat();
        if (!stats.isFile() || stats.size !== entry.bytes) throw Object.assign(new Error('changed'), { code: 'CHANGED' });
        bytes = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'an error';
      if (code === 'CHANGED') throw new ChangedWhileRead(finding('FILE_DIGEST_MISMATCH', path, `${path} changed while the bundle was read (its size is no longer the ${entry.bytes} bytes read first)`));
      throw new ChangedWhileRead(finding('MISSING_FILE', path, `${path} could not be read again to re-derive the import (${code}): the bundle changed while it was read`));
    }
    if (digestBytes(bytes) !== entry.sha256) {
      throw new ChangedWhileRead(finding('FILE_DIGEST_MISMATCH', path, `${path} changed while the bundle was read (it no longer hashes to ${entry.sha256})`));
    }
    return bytes;
  };
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
      anchor: null,
    },
  };
}
