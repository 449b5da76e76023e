/**
 * What reading and verifying a bundle directory gives: the types every part
 * of the pipeline passes on (kept apart so that the reader, the cache and
 * the posted form import none of each other).
 */
import type { SnapshotEntry } from '../evidence/read-bundle.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';

/** An entry of a bundle as read: path, kind, and for a readable regular file its size and digest. */
export interface BundleEntry {
  path: string;
  kind: SnapshotEntry['kind'];
  sha256: string | null;
  bytes: number | null;
  badName: boolean;
}

/** What verifying one directory gives (a {@link BundleResult} without its path). */
export interface DirectoryResult {
  verification: BundleVerification;
  /** Digest of the sorted (path, kind, sha256) entries: identifies a bundle by content, never by location. */
  content_digest: string;
  /** Every entry as read (without contents): what the site publishes byte for byte. */
  entries: BundleEntry[];
  /** Present (true) when the verification was taken from the verification cache (verify-cache.ts). */
  cached?: true;
}

/**
 * One bundle read and judged (verified, invalid or no verdict: its
 * verification says which) and where it was found (as the user spelled the
 * path).
 */
export interface BundleResult extends DirectoryResult {
  path: string;
}
