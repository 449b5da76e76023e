/**
 * The read + verify stage for a list of user-given paths: discover bundles,
 * read each from disk, verify it. Shared by `verify`, `build` and later
 * stages; the only stage here that touches the disk is the reading.
 */
import { ContentArena } from '../evidence/arena.ts';
import { discoverBundles } from '../evidence/discover.ts';
import { readBundle, type BundleSnapshot, type SnapshotEntry } from '../evidence/read-bundle.ts';
import { digestCanonical } from '../json/canonical.ts';
import { finding } from '../verify/findings.ts';
import { verifyBundle, type BundleVerification } from '../verify/verify-bundle.ts';

/** One verified bundle, where it was found (as the user spelled the path), and its content digest. */
export interface VerifiedBundle {
  path: string;
  verification: BundleVerification;
  /** Digest of the sorted (path, kind, sha256) entries: identifies a bundle by content, never by location. */
  content_digest: string;
  /** Every entry as read (without contents): what the site publishes byte for byte. */
  entries: BundleEntry[];
}

/** An entry of a bundle as read: path, kind, and for a readable regular file its size and digest. */
export interface BundleEntry {
  path: string;
  kind: SnapshotEntry['kind'];
  sha256: string | null;
  bytes: number | null;
  badName: boolean;
}

/** Progress callback: bundles done so far and the total. */
export type Progress = (done: number, total: number) => void;

/** Discovers and verifies every bundle under the given paths, in argument order, bundles sorted within each. */
export async function verifyPaths(paths: readonly string[], onProgress?: Progress, verify: VerifyFunction = verifyBundle): Promise<VerifiedBundle[]> {
  const dirs: string[] = [];
  for (const path of paths) dirs.push(...(await discoverBundles(path)));
  const results: VerifiedBundle[] = [];
  // One bundle at a time, so each bundle's structured files can be read into the memory of the one before.
  const arena = new ContentArena();
  for (const dir of dirs) {
    results.push({ path: dir, ...(await verifyDirectory(dir, arena, verify)) });
    onProgress?.(results.length, dirs.length);
  }
  return results;
}

/** The verifier a pipeline runs on each snapshot: verifyBundle, or a replacement in tests of crash isolation. */
export type VerifyFunction = (snapshot: BundleSnapshot) => BundleVerification;

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
    evidence: { manifest: null, plan: null, ledger: [], attempts: [], grades: [], grant: null, notes: null },
  };
}

/**
 * Reads and verifies one bundle directory; a root that cannot be listed is a
 * no_verdict bundle, not a crash. With an arena (see readBundle) the bytes
 * read are dropped once verified: nothing returned refers to them.
 */
export async function verifyDirectory(
  dir: string,
  arena?: ContentArena,
  verify: VerifyFunction = verifyBundle,
): Promise<{ verification: BundleVerification; content_digest: string; entries: BundleEntry[] }> {
  let snapshot: BundleSnapshot;
  try {
    snapshot = await readBundle(dir, arena);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (typeof code !== 'string') return { entries: [], content_digest: contentDigest({ entries: [] }), verification: internalError(error, 'reading') };
    return {
      entries: [],
      content_digest: contentDigest({ entries: [] }),
      verification: {
        bundle_id: null,
        plan_id: null,
        status: 'no_verdict',
        findings: [finding('MISSING_FILE', 'manifest.json', `the bundle directory cannot be read (${code})`)],
        evidence: { manifest: null, plan: null, ledger: [], attempts: [], grades: [], grant: null, notes: null },
      },
    };
  }
  const entries = snapshot.entries.map((e) => ({ path: e.path, kind: e.kind, sha256: e.sha256 ?? null, bytes: e.bytes ?? null, badName: e.badName === true }));
  let verification: BundleVerification;
  try {
    verification = verify(snapshot);
  } catch (error) {
    verification = internalError(error, 'verifying');
  }
  return { verification, content_digest: contentDigest(snapshot), entries };
}

/** The digest of a snapshot's sorted (path, kind, sha256) entries. */
export function contentDigest(snapshot: BundleSnapshot): string {
  return digestCanonical(snapshot.entries.map((e) => [e.path, e.kind, e.sha256 ?? null]));
}
