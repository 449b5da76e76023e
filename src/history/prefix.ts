/**
 * The digest of the first N bytes of a bundle file, read the way the bundle
 * reader reads (never following a symbolic link, regular files only,
 * streamed in 1 MiB reads).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { HASH_CHUNK_BYTES } from '../evidence/hash-file.ts';
import { unsafePathReason } from '../evidence/paths.ts';

/** sha256 of the first `bytes` bytes of `<dir>/<path>`; null when unsafe, not a regular file, unreadable or shorter. */
export async function prefixDigest(dir: string, path: string, bytes: number): Promise<string | null> {
  if (unsafePathReason(path) !== null) return null;
  let handle;
  try {
    handle = await open(join(dir, ...path.split('/')), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    if (!(await handle.stat()).isFile()) return null;
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(Math.min(HASH_CHUNK_BYTES, Math.max(bytes, 1)));
    let done = 0;
    while (done < bytes) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, bytes - done), done);
      if (bytesRead === 0) return null;
      hash.update(buffer.subarray(0, bytesRead));
      done += bytesRead;
    }
    return `sha256:${hash.digest('hex')}`;
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}
