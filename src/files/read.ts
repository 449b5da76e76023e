/**
 * Safe-file primitives, the read half: open a file without following a
 * symbolic link and without blocking on a FIFO (O_NOFOLLOW | O_NONBLOCK),
 * check with fstat that what was opened is a regular file, read it under a
 * bound, and hash it with SHA-256 as it streams. Every place that reads a
 * path someone else could have planted (a bundle's files, a cache entry, the
 * cache key, an output being served or published) opens it through here.
 *
 * Stage 1 beside `json`: the one low room besides the reader that touches
 * the disk; it imports only Node built-ins. What a failure means is the
 * caller's to say (a finding, no cache entry, a refusal, a thrown error):
 * `openNoFollow` throws the errno error as `open` does, and the readers
 * that say "null" say so in their names.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** Read-only, never following a link at the last component, never blocking on a FIFO. */
export const OPEN_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The size of one streamed read when hashing (1 MiB). */
export const HASH_CHUNK_BYTES = 1 << 20;

/** Opens `path` read-only without following a link (a link: ELOOP) and without blocking (a FIFO opens at once). Throws as `open` does. */
export function openNoFollow(path: string): Promise<FileHandle> {
  return open(path, OPEN_NO_FOLLOW);
}

/** {@link openNoFollow}, synchronously: the file descriptor. */
export function openNoFollowSync(path: string): number {
  return openSync(path, OPEN_NO_FOLLOW);
}

/**
 * At most `bound` bytes of a regular file, opened without following a link
 * and without blocking on a FIFO; null when the path is missing, is not a
 * regular file (a link, a FIFO, a device, a directory), cannot be read or
 * holds more than `bound` bytes. A file that shrinks while read is null; one
 * that grows is read up to its size when opened.
 */
export async function readRegularFile(path: string, bound: number): Promise<Buffer | null> {
  let handle;
  try {
    handle = await openNoFollow(path);
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > bound) return null;
    const bytes = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) return null; // shrank while read
      filled += bytesRead;
    }
    return bytes;
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** {@link readRegularFile}, synchronously (for a value read on first use from synchronous code). */
export function readRegularFileSync(path: string, bound: number): Buffer | null {
  let fd: number;
  try {
    fd = openNoFollowSync(path);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > bound) return null;
    const bytes = Buffer.allocUnsafe(stat.size);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) return null; // shrank while read
      filled += read;
    }
    return bytes;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** A streamed SHA-256: the hex digest and how many bytes went in. */
export interface StreamedDigest {
  hex: string;
  bytes: number;
}

/**
 * SHA-256 of an open file's bytes from offset 0 to its end, streamed through
 * `buffer` (one read at a time; at most `bound` bytes read: one more and it
 * stops with null, so a file that grows without end is not read forever).
 * `each`, when given, sees every chunk (at its offset) as it is hashed.
 */
export async function hashHandle(
  handle: FileHandle,
  buffer: Buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES),
  bound = Number.MAX_SAFE_INTEGER,
  each?: (chunk: Buffer, offset: number) => void,
): Promise<StreamedDigest | null> {
  const hash = createHash('sha256');
  let done = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, done);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    each?.(chunk, done);
    hash.update(chunk);
    done += bytesRead;
    if (done > bound) return null;
  }
  return { hex: hash.digest('hex'), bytes: done };
}

/** SHA-256 (hex) of an open descriptor's bytes from its current position to its end, streamed through `buffer`. */
export function hashFdSync(fd: number, buffer: Buffer): string {
  const hash = createHash('sha256');
  for (;;) {
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
  }
  return hash.digest('hex');
}

/** SHA-256 (hex) of a file opened without following a link, streamed; null when it cannot be opened or read (a link, a FIFO with no writer, a directory). */
export function hashFileNoFollowSync(path: string, buffer: Buffer): string | null {
  let fd: number;
  try {
    fd = openNoFollowSync(path);
  } catch {
    return null;
  }
  try {
    return hashFdSync(fd, buffer);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
