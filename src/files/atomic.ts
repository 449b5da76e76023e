/**
 * Safe-file primitives, the write half: a whole file or none. The bytes go
 * to a temporary file beside the target (same directory, so the rename
 * stays on one file system), created exclusively (O_EXCL: never a file
 * someone planted, never through a link) with the given mode, optionally
 * fsynced, then renamed over the target. A reader sees the old file or the
 * new one, never half of one; a write that fails removes its temporary file
 * and throws the error.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/** How a file is written atomically. */
export interface AtomicWriteOptions {
  /** The new file's mode (default 0o666, less the umask). */
  mode?: number;
  /** fsync the file before it gets its name (default false). */
  fsync?: boolean;
}

/** The temporary name beside `path` a write uses: `<path>.<pid>.<12 hex>.tmp`. */
export function temporaryBeside(path: string): string {
  return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** The temporary files {@link writeFileAtomic} leaves only if the process dies mid-write. */
export const ATOMIC_TEMP_NAME = /\.[0-9]+\.[0-9a-f]{12}\.tmp$/;

/** Writes `bytes` to `path` atomically (see the module comment); throws what failed, leaving no temporary file. */
export async function writeFileAtomic(path: string, bytes: Uint8Array | readonly Uint8Array[], options: AtomicWriteOptions = {}): Promise<void> {
  const temporary = temporaryBeside(path);
  try {
    const handle = await open(temporary, 'wx', options.mode ?? 0o666);
    try {
      await handle.writeFile(bytes instanceof Uint8Array ? bytes : Buffer.concat(bytes));
      if (options.fsync === true) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}
