/**
 * The digest of the first N bytes of a bundle file, read the way the bundle
 * reader reads (never following a symbolic link, regular files only,
 * streamed in 1 MiB reads).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { HASH_CHUNK_BYTES } from '../evidence/hash-file.ts';
import { unsafePathReason } from '../evidence/paths.ts';
import { hashHandle, openNoFollow } from '../files/read.ts';

/**
 * sha256 of the first `bytes` bytes of `<dir>/<path>`, read in the same pass
 * as the whole file, whose digest and size must be `expected` (what
 * verification saw): so the prefix is of the verified bytes whatever happened
 * on disk since (a file or a parent directory swapped in). Null when the path
 * is unsafe, not a regular file, unreadable, shorter, or not the verified file.
 */
export async function prefixDigest(dir: string, path: string, bytes: number, expected: { sha256: string; bytes: number }): Promise<string | null> {
  if (unsafePathReason(path) !== null || bytes > expected.bytes) return null;
  let handle;
  try {
    handle = await openNoFollow(join(dir, ...path.split('/')));
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    const prefix = createHash('sha256');
    const whole = await hashHandle(handle, Buffer.allocUnsafe(HASH_CHUNK_BYTES), expected.bytes, (chunk, offset) => {
      if (offset < bytes) prefix.update(chunk.subarray(0, Math.min(chunk.length, bytes - offset)));
    });
    if (whole === null || whole.bytes !== expected.bytes || `sha256:${whole.hex}` !== expected.sha256) return null;
    return `sha256:${prefix.digest('hex')}`;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
