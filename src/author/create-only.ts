/**
 * Create-only, all-or-nothing file writes for the authoring tools: the bytes
 * go to a temporary file beside the target, are flushed, and are then
 * hard-linked to the target name. link(2) fails when the name exists (the
 * O_EXCL guarantee), so a file written meanwhile by someone else is never
 * overwritten, and a reader never sees a half-written target. On a file
 * system without hard links, the target is opened with O_CREAT | O_EXCL
 * instead (still create-only; removed again if the write fails).
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, open, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { AlreadyExistsError } from './problems.ts';

/** Errors of link(2) that mean "no hard links here", not "the name exists". */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** The name of a temporary file writeCreateOnly uses (left behind only if the process dies mid-write). */
export const TEMP_NAME = /^\..+\.[0-9]+\.[0-9a-f]{12}\.tmp$/;

/** Writes a new file; throws AlreadyExistsError (naming `what`) when the path exists. */
export async function writeCreateOnly(path: string, bytes: Uint8Array, what = path): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFlushed(temp, bytes);
  try {
    await link(temp, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw new AlreadyExistsError(path, `${what} already exists; it is never overwritten`);
    if (!NO_LINKS.has(code)) throw error;
    await writeExclusive(path, bytes, what);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Writes a new file, or finds exactly these bytes already there (a repeat is
 * a no-op): 'created' or 'exists'. Other bytes under the name throw
 * AlreadyExistsError: history is never rewritten.
 */
export async function writeCreateOnlyOrSame(path: string, bytes: Uint8Array, what = path): Promise<'created' | 'exists'> {
  try {
    await writeCreateOnly(path, bytes, what);
    return 'created';
  } catch (error) {
    if (!(error instanceof AlreadyExistsError)) throw error;
    if (Buffer.compare(await readFile(path), bytes) === 0) return 'exists';
    throw new AlreadyExistsError(path, `${what} already exists with other content; it is never overwritten`);
  }
}

async function writeFlushed(path: string, bytes: Uint8Array): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeExclusive(path: string, bytes: Uint8Array, what: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new AlreadyExistsError(path, `${what} already exists; it is never overwritten`);
    throw error;
  }
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    handle = undefined;
    // The file is ours (we created it): nothing half-written stays behind.
    await unlink(path).catch(() => undefined);
    throw error;
  } finally {
    await handle?.close();
  }
}

/** Whether anything (a file, a directory, a link: never followed) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
