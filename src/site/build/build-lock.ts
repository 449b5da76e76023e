/**
 * One build at a time per output directory: a build holds `<out>.lock`, a
 * file created exclusively (link(2) of a complete file, so it is never seen
 * half written) that names the process holding it. A second build into the
 * same output is refused with the holder's pid instead of both finishing and
 * one silently losing its site. A lock whose process is gone (a killed
 * build) is stale and is taken over; a lock from another machine (a shared
 * file system) cannot be checked and is never taken over.
 */
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { BuildEnvironmentError } from './build-errors.ts';
import { EXIT_STATUS } from '../../errors.ts';

/** Another build holds the output (exit 2, one line: run again when it has finished). */
export class BuildLockedError extends BuildEnvironmentError {
  static override readonly code: string = 'BUILD_LOCKED';
  static override readonly exitStatus = EXIT_STATUS.usage;
}

/** A held lock: release it when the build ends, however it ends. */
export interface BuildLock {
  path: string;
  release(): Promise<void>;
}

/** Where the lock of an output directory lives. */
export function lockPath(target: string): string {
  return `${resolve(target)}.lock`;
}

/** Takes the lock on `target`, or throws BuildLockedError naming the build that holds it. */
export async function takeBuildLock(target: string): Promise<BuildLock> {
  const path = lockPath(target);
  const mine = `${JSON.stringify({ pid: process.pid, host: hostname(), token: Math.random().toString(36).slice(2) })}\n`;
  const temp = `${path}.${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
  await writeFile(temp, mine, { flag: 'wx' });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(temp, path);
        return { path, release: () => releaseLock(path, mine) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const held = await readFile(path, 'utf8').catch(() => null);
      if (held === null) continue; // Released meanwhile: try again.
      const holder = parseLock(held);
      if (holder === null || holder.host !== hostname() || processAlive(holder.pid)) {
        const who = holder === null ? 'a build' : holder.host === hostname() ? `a build (pid ${holder.pid})` : `a build on ${holder.host} (pid ${holder.pid})`;
        throw new BuildLockedError(`${who} is writing ${resolve(target)} (it holds ${path}); wait for it to finish, or remove ${path} if no build is running`);
      }
      await takeOverStale(path, held);
    }
    throw new BuildLockedError(`could not take ${path}: other builds keep taking it; run again`);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Removes a stale lock: moved aside first and compared, so a lock another
 * build took meanwhile is put back rather than removed.
 */
async function takeOverStale(path: string, stale: string): Promise<void> {
  const aside = `${path}.stale.${process.pid}.${Math.random().toString(36).slice(2, 8)}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readFile(aside, 'utf8').catch(() => null);
  if (moved !== null && moved !== stale) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/** Removes the lock if it is still this build's. */
async function releaseLock(path: string, mine: string): Promise<void> {
  const held = await readFile(path, 'utf8').catch(() => null);
  if (held === mine) await unlink(path).catch(() => undefined);
}

function parseLock(text: string): { pid: number; host: string } | null {
  try {
    const value = JSON.parse(text) as { pid?: unknown; host?: unknown };
    if (typeof value.pid === 'number' && Number.isSafeInteger(value.pid) && value.pid > 0 && typeof value.host === 'string') return { pid: value.pid, host: value.host };
  } catch {
    // Not a lock this program wrote: treated as held.
  }
  return null;
}

/** Whether a process with this pid exists on this machine (EPERM: it exists, owned by someone else). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
