/**
 * Streaming SHA-256 of a file already opened by the reader: reads of at most
 * 1 MiB (less for a smaller file), so memory stays flat whatever the file's size. When the bytes are
 * also kept (small structured files), they are read straight into one buffer
 * sized from fstat, hashed chunk by chunk, and never copied (a file that grew
 * after fstat is the one case that copies).
 */
import { createHash } from 'node:crypto';
import { read, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Read size for hashing (1 MiB). */
export const HASH_CHUNK_BYTES = 1 << 20;

/**
 * Size of the read that checks a kept file ended where fstat said. Small:
 * in the usual case it reads nothing, and a file that grew is still read to
 * its end through the doubling buffer.
 */
const PROBE_BYTES = 4 << 10;

/**
 * Files up to this size are read with synchronous calls ({@link hashFdSync}):
 * from the page cache such a read takes microseconds, less than the promise
 * and thread-pool round trip of an asynchronous one (docs/benchmarks.md,
 * "Start-up"). Larger files are read asynchronously, so a slow disk does not
 * hold the event loop for long.
 */
export const SYNC_READ_MAX_BYTES = 256 << 10;

/** One read the hashing loop asks for: into `buffer` at `offset`, at most `length` bytes, from the current position. */
interface ReadRequest {
  buffer: Buffer;
  offset: number;
  length: number;
}

/** What hashing a file gives: its digest, its size as read and, when kept, its bytes. */
export interface HashResult {
  sha256: string;
  bytes: number;
  content: Buffer | null;
}

/**
 * The hashing loop, written once for both drivers below: it yields each read
 * it needs and is resumed with the number of bytes that read gave.
 */
function* hashSteps(keep: boolean, expectedBytes: number, into: Buffer | undefined): Generator<ReadRequest, HashResult, number> {
  const hash = createHash('sha256');
  const keptBytes = Math.max(expectedBytes, 1);
  // Hashing only: a buffer no larger than the file (plus one byte, so the read that finds its end needs no second
  // buffer) and at most 1 MiB. A fresh 1 MiB for every small artifact was external memory the collector chased.
  const hashBytes = Math.min(HASH_CHUNK_BYTES, Math.max(expectedBytes + 1, PROBE_BYTES));
  let buffer = !keep ? Buffer.allocUnsafe(hashBytes) : into !== undefined && into.length >= keptBytes ? into.subarray(0, keptBytes) : Buffer.allocUnsafe(keptBytes);
  let total = 0;
  for (;;) {
    if (keep && total === buffer.length) {
      // Full: either the file ends here (the usual case, as fstat said) or it grew after fstat (rare).
      // Probe with a small read first, so the usual case never doubles and copies the buffer.
      const probe = Buffer.allocUnsafe(PROBE_BYTES);
      const bytesRead = yield { buffer: probe, offset: 0, length: probe.length };
      if (bytesRead === 0) break;
      const bigger = Buffer.allocUnsafe(Math.max(buffer.length * 2, total + bytesRead));
      buffer.copy(bigger, 0, 0, total);
      probe.copy(bigger, total, 0, bytesRead);
      hash.update(probe.subarray(0, bytesRead));
      total += bytesRead;
      buffer = bigger;
      continue;
    }
    const offset = keep ? total : 0;
    const length = Math.min(HASH_CHUNK_BYTES, buffer.length - offset);
    const bytesRead = yield { buffer, offset, length };
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(offset, offset + bytesRead));
    total += bytesRead;
    // A short read that ends exactly where fstat said the file ends is its end: no further read is needed (we
    // asked for more, so a file that grew since fstat would have given more). Any other short read (a network
    // file system may return one mid-file) reads on.
    if (bytesRead < length && total === expectedBytes) break;
  }
  return { sha256: `sha256:${hash.digest('hex')}`, bytes: total, content: keep ? buffer.subarray(0, total) : null };
}

/**
 * Digest and size of a file, read by streaming; with `keep`, also its bytes.
 * `expectedBytes` (from fstat) sizes the kept buffer; a file that grows while
 * being read is still read to its end. `into`, when given, is the memory the
 * kept bytes are read into (at least `expectedBytes` long, e.g. from a
 * ContentArena) instead of a fresh buffer.
 */
export async function hashHandle(handle: FileHandle, keep: boolean, expectedBytes = 0, into?: Buffer): Promise<HashResult> {
  const steps = hashSteps(keep, expectedBytes, into);
  let step = steps.next();
  while (!step.done) {
    const { buffer, offset, length } = step.value;
    step = steps.next((await handle.read(buffer, offset, length, null)).bytesRead);
  }
  return step.value;
}

/** {@link hashHandle} over a file descriptor (asynchronous reads). */
export async function hashFd(fd: number, keep: boolean, expectedBytes = 0, into?: Buffer): Promise<HashResult> {
  const steps = hashSteps(keep, expectedBytes, into);
  let step = steps.next();
  while (!step.done) {
    const { buffer, offset, length } = step.value;
    const bytesRead = await new Promise<number>((resolve, reject) => {
      read(fd, buffer, offset, length, null, (error, n) => (error ? reject(error) : resolve(n)));
    });
    step = steps.next(bytesRead);
  }
  return step.value;
}

/**
 * {@link hashHandle} over a file descriptor, with synchronous reads. For
 * small files, where the promise and thread-pool round trips of an
 * asynchronous read cost more than the read itself (the reader uses it below
 * {@link SYNC_READ_MAX_BYTES}).
 */
export function hashFdSync(fd: number, keep: boolean, expectedBytes = 0, into?: Buffer): HashResult {
  const steps = hashSteps(keep, expectedBytes, into);
  let step = steps.next();
  while (!step.done) {
    const { buffer, offset, length } = step.value;
    step = steps.next(readSync(fd, buffer, offset, length, null));
  }
  return step.value;
}
