/**
 * What `retain` makes of a retained reports directory it cannot write (a
 * read-only file system, no permission, a full disk): one line naming the
 * directory and what to do, exit 2 (as `build` does for its output,
 * site/build-errors.ts), never "unexpected error"; and nothing half-written
 * left behind: the temporary files this process made there (create-only.ts
 * names them with its pid) are removed. Manifests written completely before
 * the failure stay: they are history like any other, and running retain
 * again finishes the job (the report, the commit point, is written last).
 */
import { access, constants, lstat, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { TEMP_NAME } from '../author/create-only.ts';
import { MANIFESTS_DIR } from '../history/retained-manifests.ts';
import { WITHHELD_DIR } from '../history/retained-withheld.ts';
import { FREEZE_LOGS_DIR } from '../history/freeze-log.ts';
import { BuildEnvironmentError } from '../site/build/build-errors.ts';

const REFUSED: Record<string, string> = {
  EROFS: 'is on a read-only file system',
  EACCES: 'cannot be written (permission denied)',
  EPERM: 'cannot be written (operation not permitted)',
  ENOSPC: 'cannot be written: the disk is full',
  EDQUOT: 'cannot be written: the disk quota is exhausted',
};

/**
 * Why a directory could not be created. mkdir -p reports ENOENT when a
 * parent cannot be made on a read-only file system; access(2) on the deepest
 * directory that exists gives the real reason (EROFS, EACCES), or null.
 */
async function whyNotCreated(path: string): Promise<string | null> {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    const info = await lstat(dir).catch(() => null);
    if (info?.isDirectory()) {
      const refused = await access(dir, constants.W_OK).then(
        () => null,
        (error: NodeJS.ErrnoException) => error.code ?? null,
      );
      return refused;
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The one-line error `error` stands for when it is the retained reports
 * directory's surroundings (a write refused or a full disk under `retainedDir`,
 * or a directory there that could not be created; called only around retain's
 * writes), else null.
 */
export async function retainEnvironmentError(error: unknown, retainedDir: string): Promise<BuildEnvironmentError | null> {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== 'string') return null;
  const target = resolve(retainedDir);
  // A write through an open file (a full disk met mid-file) carries no path: retain writes nowhere but the retained directory.
  let path = typeof e.path === 'string' ? resolve(e.path) : target;
  const under = path === target || path.startsWith(`${target}${sep}`) || target.startsWith(`${path}${sep}`);
  if (!under) return null;
  const code = e.code === 'ENOENT' && e.syscall === 'mkdir' ? await whyNotCreated(path) : e.code;
  const refused = code === null ? undefined : REFUSED[code];
  if (refused === undefined) return null;
  // A temporary file is named by its directory (its name means nothing to the reader).
  if (TEMP_NAME.test(basename(path))) path = dirname(path);
  const what = code === 'ENOSPC' || code === 'EDQUOT' ? 'free space there' : 'make it writable';
  return new BuildEnvironmentError(
    `${path} ${refused} (${code}); no report retained: ${what} (or set retained_reports_dir in the config to a directory that is), then run retain again (manifests already written are kept, and it finishes the job)`,
  );
}

/** Removes the temporary files this process left in the retained directory and its manifests/, withheld/ and freeze-logs/ (a write that failed midway). */
export async function removeOwnTempFiles(retainedDir: string): Promise<void> {
  const mine = new RegExp(`\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`);
  for (const dir of [retainedDir, join(retainedDir, MANIFESTS_DIR), join(retainedDir, WITHHELD_DIR), join(retainedDir, FREEZE_LOGS_DIR)]) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) if (TEMP_NAME.test(name) && mine.test(name)) await unlink(join(dir, name)).catch(() => undefined);
  }
}
