/**
 * Reads one bundle directory from disk into a {@link BundleSnapshot}: every
 * entry with its kind, and for each regular file its size and SHA-256
 * (streamed), plus the bytes of the structured files the verifier parses.
 *
 * Untrusted input: the walk uses the directory entries' own types (lstat
 * semantics), never follows a symbolic link, and opens only regular files,
 * with O_NOFOLLOW | O_NONBLOCK and an fstat re-check, so a FIFO, socket or
 * device is never read and a link swapped in mid-walk is caught.
 *
 * The walk, the opens and the reads of files up to SYNC_READ_MAX_BYTES are
 * synchronous system calls: from the page cache each takes microseconds, less
 * than the promise and thread-pool round trip of its asynchronous twin, and
 * that round trip was a sixth of `ledgerboard verify` on the demo
 * (docs/benchmarks.md, "Start-up"). Larger files are read asynchronously,
 * four at a time.
 */
import { closeSync, fstatSync, lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { ContentArena } from './arena.ts';
import { LIMIT_DEFAULTS, type LimitHit, type Limits } from './limits.ts';
import { hashFd, hashFdSync, SYNC_READ_MAX_BYTES } from './hash-file.ts';
import { compareUtf8 } from '../json/compare.ts';
import { isStructuredPath } from './paths.ts';
import { openNoFollowSync } from '../files/read.ts';

export { isStructuredPath };

/** What a directory entry is. */
export type EntryKind = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'block-device' | 'char-device' | 'unknown';

/** One entry under the bundle root. `path` is bundle-relative and '/'-separated. */
export interface SnapshotEntry {
  path: string;
  kind: EntryKind;
  /** Digest of a readable regular file. */
  sha256?: string;
  /** Size of a readable regular file. */
  bytes?: number;
  /** Bytes of a structured file (manifest, plan, ledger, attempts, grades, grant, assessments, notes). */
  content?: Uint8Array;
  /** Why a regular file (or a directory) could not be read. */
  unreadable?: string;
  /** True when the on-disk name is not valid UTF-8 (the path shows U+FFFD). */
  badName?: boolean;
  /** The limit this file is over: it was not read (nor hashed), and `unreadable` says so. */
  limit?: LimitHit;
}

/** Everything the verifier needs from disk; verification itself never touches the file system. */
export interface BundleSnapshot {
  /** Every entry, sorted by UTF-8 byte order of path (directories included). */
  entries: SnapshotEntry[];
  /**
   * Set when the bundle is over a whole-bundle limit (more entries than
   * `limits.files`, or more structured bytes than `limits.structured_total_bytes`):
   * nothing was read, and the bundle is not judged.
   */
  notRead?: LimitHit;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const CONCURRENCY = 4;

/**
 * Walks and hashes a bundle directory. Throws only if the root itself cannot
 * be listed. With an arena, the structured files other than NOTES.md (whose
 * bytes are handed on as they are) are read into the arena's reused memory:
 * their `content` is then valid only until the arena reads the next bundle.
 */
export async function readBundle(root: string, arena?: ContentArena, limits: Limits = LIMIT_DEFAULTS): Promise<BundleSnapshot> {
  const entries: SnapshotEntry[] = [];
  const files: { entry: SnapshotEntry; fsPath: string }[] = [];
  walk(root, '', entries, files, true, limits.files);
  if (entries.length > limits.files) {
    // Stopped at the limit: nothing is read, and the bundle gets no verdict.
    return { entries: [], notRead: { path: '.', limit: 'files', value: limits.files, actual: 'more' } };
  }
  // The structured files are all held in memory while the bundle is verified: their sum is bounded before any is read.
  let structured = 0;
  for (const { entry, fsPath } of files) {
    if (isStructuredPath(entry.path) && entry.path !== 'NOTES.md') structured += sizeOf(fsPath);
  }
  if (structured > limits.structured_total_bytes) {
    return { entries: [], notRead: { path: '.', limit: 'structured_total_bytes', value: limits.structured_total_bytes, actual: structured } };
  }
  await runPool(files, CONCURRENCY, async ({ entry, fsPath }) => readRegularFile(entry, fsPath, arena, limits));
  entries.sort((a, b) => compareUtf8(a.path, b.path));
  return { entries };
}

/**
 * Lists the tree under `fsDir` into `entries` (and its regular files into
 * `files`). Synchronous on purpose, like the small reads: it touches only
 * metadata, where an asynchronous call's round trip costs more than the call.
 */
function walk(
  fsDir: string,
  relDir: string,
  entries: SnapshotEntry[],
  files: { entry: SnapshotEntry; fsPath: string }[],
  isRoot: boolean,
  maxEntries: number,
): void {
  let dirents: Dirent<Buffer>[];
  try {
    dirents = readdirSync(Buffer.from(fsDir), { withFileTypes: true, encoding: 'buffer' });
  } catch (error) {
    if (isRoot) throw error;
    const entry = entries.find((e) => e.path === relDir);
    if (entry) entry.unreadable = describeError(error);
    return;
  }
  for (const dirent of dirents) {
    if (entries.length > maxEntries) return;
    let name: string;
    let badName = false;
    try {
      name = utf8.decode(dirent.name);
    } catch {
      name = new TextDecoder('utf-8').decode(dirent.name);
      badName = true;
    }
    const path = relDir === '' ? name : `${relDir}/${name}`;
    // A name that is not UTF-8 is addressed by its raw bytes (only to learn its type; it is never opened).
    const fsPath = badName ? Buffer.concat([Buffer.from(`${fsDir}/`), dirent.name]) : join(fsDir, name);
    const kind = kindOf(dirent, fsPath);
    const entry: SnapshotEntry = { path, kind };
    if (badName) entry.badName = true;
    entries.push(entry);
    if (typeof fsPath !== 'string') continue;
    if (kind === 'directory') walk(fsPath, path, entries, files, false, maxEntries);
    else if (kind === 'file') files.push({ entry, fsPath });
  }
}

function kindOf(dirent: Dirent<Buffer>, fsPath: string | Buffer): EntryKind {
  if (dirent.isSymbolicLink()) return 'symlink';
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFIFO()) return 'fifo';
  if (dirent.isSocket()) return 'socket';
  if (dirent.isBlockDevice()) return 'block-device';
  if (dirent.isCharacterDevice()) return 'char-device';
  // The file system did not say (DT_UNKNOWN): ask lstat, which never follows links.
  try {
    const stats = lstatSync(fsPath);
    if (stats.isSymbolicLink()) return 'symlink';
    if (stats.isFile()) return 'file';
    if (stats.isDirectory()) return 'directory';
    if (stats.isFIFO()) return 'fifo';
    if (stats.isSocket()) return 'socket';
    if (stats.isBlockDevice()) return 'block-device';
    if (stats.isCharacterDevice()) return 'char-device';
  } catch {
    // Vanished mid-walk: report it as unknown rather than guess.
  }
  return 'unknown';
}

async function readRegularFile(entry: SnapshotEntry, fsPath: string, arena: ContentArena | undefined, limits: Limits): Promise<void> {
  // Descriptors and synchronous open/fstat/close: on a page-cached file each takes microseconds, where a
  // FileHandle's promise and thread-pool round trips cost more than the work (docs/benchmarks.md, "Start-up").
  let fd: number;
  try {
    fd = openNoFollowSync(fsPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') entry.kind = 'symlink';
    else entry.unreadable = describeError(error);
    return;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      entry.kind = 'unknown';
      return;
    }
    const keep = isStructuredPath(entry.path);
    const hit = sizeLimitHit(entry.path, stats.size, keep, limits);
    if (hit) {
      entry.limit = hit;
      entry.unreadable = `is over limits.${hit.limit} (${hit.value} bytes): not read`;
      return;
    }
    const into = keep && arena !== undefined && entry.path !== 'NOTES.md' ? arena.take(entry.path, stats.size) : undefined;
    const { sha256, bytes, content } =
      stats.size <= SYNC_READ_MAX_BYTES ? hashFdSync(fd, keep, stats.size, into) : await hashFd(fd, keep, stats.size, into);
    entry.sha256 = sha256;
    entry.bytes = bytes;
    if (content) entry.content = content;
  } catch (error) {
    entry.unreadable = describeError(error);
  } finally {
    closeSync(fd);
  }
}

/** A regular file's size without following links (0 when it vanished: the read reports that). */
function sizeOf(fsPath: string): number {
  try {
    return lstatSync(fsPath).size;
  } catch {
    return 0;
  }
}

/** The size limit a file is over, if any: any file, a structured (parsed) file, NOTES.md. */
function sizeLimitHit(path: string, size: number, structured: boolean, limits: Limits): LimitHit | null {
  if (size > limits.file_bytes) return { path, limit: 'file_bytes', value: limits.file_bytes, actual: size };
  if (path === 'NOTES.md' && size > limits.notes_bytes) return { path, limit: 'notes_bytes', value: limits.notes_bytes, actual: size };
  if (structured && path !== 'NOTES.md' && size > limits.structured_file_bytes) return { path, limit: 'structured_file_bytes', value: limits.structured_file_bytes, actual: size };
  return null;
}

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? `cannot be read (${code})` : 'cannot be read';
}

async function runPool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(workers);
}
