/**
 * Create-only, all-or-nothing file writes for the authoring tools: the bytes
 * go to a temporary file beside the target, are flushed, and are then
 * hard-linked to the target name. link(2) fails when the name exists (the
 * O_EXCL guarantee), so a file written meanwhile by someone else is never
 * overwritten, and a reader never sees a half-written target. On a file
 * system without hard links, the target is opened with O_CREAT | O_EXCL
 * instead (still create-only; removed again if the write fails).
 *
 * Durable: the file is fsynced before it gets its name, and the directory is
 * fsynced after, so once writeCreateOnly returns the name survives a crash or
 * a power loss, and a later write (such as the retained report that commits
 * a `retain`, which comes after its manifests) is never on disk without it.
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { AlreadyExistsError } from './problems.ts';

/** Errors of link(2) that mean "no hard links here", not "the name exists". */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/** The name of a temporary file writeCreateOnly uses (left behind only if the process dies mid-write). */
export const TEMP_NAME = /^\..+\.[0-9]+\.[0-9a-f]{12}\.tmp$/;

/** Writes a new file; throws AlreadyExistsError (naming `what`) when the path exists. */
export async function writeCreateOnly(path: string, bytes: Uint8Array, what = path): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeFlushed(temp, bytes);
  testKillPoint();
  try {
    await link(temp, path);
    testKillPoint();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') throw new AlreadyExistsError(path, `${what} already exists; it is never overwritten`);
    if (!NO_LINKS.has(code)) throw error;
    await writeExclusive(path, bytes, what);
    testKillPoint();
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  testKillPoint();
  await syncDirectory(dirname(path));
  testKillPoint();
}

/**
 * mkdir -p, durably: every directory it creates is fsynced into its parent,
 * so a file later written (and fsynced) inside is not lost with its directory.
 */
export async function mkdirDurable(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  // The parent of the first directory created, then each created directory but the last, gained an entry.
  const created = [first, ...relative(first, dir).split(sep).filter((part) => part !== '').map((_, i, parts) => join(first, ...parts.slice(0, i + 1)))];
  for (const made of created) {
    await syncDirectory(dirname(made));
    testKillPoint();
  }
}

/** fsync(2) on a directory, so the names created in it are on disk. A platform that cannot open a directory for it (Windows) skips it. */
export async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
  } catch (error) {
    if (['EISDIR', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    if (!['EINVAL', 'ENOTSUP', 'EPERM', 'EBADF'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

/**
 * TEST-ONLY fault injection, off unless the environment variable
 * LEDGERBOARD_TEST_KILL_AFTER_WRITE is a positive integer k: the process
 * then kills itself with SIGKILL (no cleanup, no finally blocks: as a crash
 * or `kill -9` would) right after its k-th durable step here (a temporary file
 * written and fsynced, a name linked or created, the temporary file removed,
 * a directory fsynced). The
 * test in test/history/interrupted-retain.test.ts runs `retain` with k = 1,
 * 2, ... until it completes, to show that a retain stopped at any write
 * leaves a history in which a rewrite is still caught. Nothing else uses it.
 */
function testKillPoint(): void {
  const k = process.env.LEDGERBOARD_TEST_KILL_AFTER_WRITE;
  if (k === undefined || !/^[1-9][0-9]*$/.test(k)) return;
  writesSoFar++;
  if (writesSoFar === Number(k)) process.kill(process.pid, 'SIGKILL');
}
let writesSoFar = 0;

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
