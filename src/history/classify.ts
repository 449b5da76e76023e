/**
 * How a re-published plan's files changed (FORMAT.md section 8): a plan that
 * a retained report counted reappears with another bundle_id. Each file of
 * the old manifest and the new one is one of
 *
 * - `unchanged`: same path, same digest;
 * - `appended`: the new file is longer and its first `old.bytes` bytes hash
 *   to the old digest (the old bytes are a prefix: an append);
 * - `added`: only in the new bundle;
 * - `removed`: only in the old bundle;
 * - `rewritten`: in both, and the old bytes are not a prefix of the new.
 *
 * Removed and rewritten files are rewritten evidence (REWRITTEN_EVIDENCE).
 */
import type { ManifestEntry } from '../schema/manifest.ts';
import { compareUtf8 } from '../json/compare.ts';

/** The class of one file between two bundles of one plan. */
export type FileClass = 'unchanged' | 'appended' | 'added' | 'removed' | 'rewritten';

/** One file's change, with its old and new digest and size (null on the side it is absent from). */
export interface FileChange {
  path: string;
  class: FileClass;
  old: { sha256: string; bytes: number } | null;
  new: { sha256: string; bytes: number } | null;
}

/** The classes that are rewritten evidence. */
export const REWRITING_CLASSES: ReadonlySet<FileClass> = new Set(['removed', 'rewritten']);

/**
 * Digest of the first `bytes` bytes of the new bundle's file at `path`, whose
 * whole content must still be `expected` (the verified digest and size), or
 * null when the file cannot be read as it was verified (then the file counts
 * as rewritten: an append must be shown, never assumed).
 */
export type PrefixDigest = (path: string, bytes: number, expected: { sha256: string; bytes: number }) => Promise<string | null>;

/** Classifies every file of two manifests' lists, sorted by path (byte order). */
export async function classifyFiles(oldFiles: readonly ManifestEntry[], newFiles: readonly ManifestEntry[], prefixDigest: PrefixDigest): Promise<FileChange[]> {
  const before = new Map(oldFiles.map((f) => [f.path, f]));
  const after = new Map(newFiles.map((f) => [f.path, f]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort(compareUtf8);
  const changes: FileChange[] = [];
  for (const path of paths) {
    const o = before.get(path);
    const n = after.get(path);
    const old = o ? { sha256: o.sha256, bytes: o.bytes } : null;
    const now = n ? { sha256: n.sha256, bytes: n.bytes } : null;
    let cls: FileClass;
    if (!o) cls = 'added';
    else if (!n) cls = 'removed';
    else if (o.sha256 === n.sha256 && o.bytes === n.bytes) cls = 'unchanged';
    else if (n.bytes > o.bytes && (await prefixDigest(path, o.bytes, { sha256: n.sha256, bytes: n.bytes })) === o.sha256) cls = 'appended';
    else cls = 'rewritten';
    changes.push({ path, class: cls, old, new: now });
  }
  return changes;
}

/** Counts per class, every class present (zero when none). */
export function classCounts(changes: readonly FileChange[]): Record<FileClass, number> {
  const counts: Record<FileClass, number> = { unchanged: 0, appended: 0, added: 0, removed: 0, rewritten: 0 };
  for (const c of changes) counts[c.class]++;
  return counts;
}
