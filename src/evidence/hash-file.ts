/**
 * Streaming SHA-256 of a file already opened by the reader: 1 MiB reads into
 * one reused buffer, so memory stays flat whatever the file's size.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Read size for hashing (1 MiB). */
export const HASH_CHUNK_BYTES = 1 << 20;

/** Digest and size of a file, read by streaming; `keep` also returns the bytes (for small structured files). */
export async function hashHandle(
  handle: FileHandle,
  keep: boolean,
): Promise<{ sha256: string; bytes: number; content: Buffer | null }> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(HASH_CHUNK_BYTES);
  const kept: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, HASH_CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    if (keep) kept.push(Buffer.from(chunk));
    total += bytesRead;
  }
  return { sha256: `sha256:${hash.digest('hex')}`, bytes: total, content: keep ? Buffer.concat(kept, total) : null };
}
