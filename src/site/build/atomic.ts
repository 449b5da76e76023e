/**
 * Atomic output: a build writes into `<target>.staging`, and only a build
 * that finished is renamed into place. A build that fails or is killed leaves
 * the previous `<target>` exactly as it was.
 *
 * The swap is two renames (the old directory aside to `<target>.previous`,
 * the new one in); POSIX has no atomic exchange of two directories. If the
 * process dies between the two, `<target>` is missing and `<target>.previous`
 * holds the old site: the next build puts it back before doing anything else.
 * Two builds into the same target at the same time are not supported.
 */
import { chmod, lstat, readdir, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { EXIT_STATUS, LedgerboardError } from '../../errors.ts';

/** Paths the swap uses beside a target. */
export function stagingPaths(target: string): { target: string; staging: string; previous: string } {
  const absolute = resolve(target);
  return { target: absolute, staging: `${absolute}.staging`, previous: `${absolute}.previous` };
}

/**
 * Runs `fill(staging)` and, when it resolves, replaces `target` with what it
 * wrote (file modes normalised, so the umask does not reach the output).
 * When it throws, the staging directory is removed and `target` is untouched.
 */
export async function replaceDirectory<T>(target: string, fill: (staging: string) => Promise<T>): Promise<T> {
  const paths = await tidyBeside(target);
  let result: T;
  try {
    result = await fill(paths.staging);
    await normaliseModes(paths.staging);
  } catch (error) {
    await rm(paths.staging, { recursive: true, force: true });
    throw error;
  }
  await removeOwn(paths.previous);
  await rename(paths.target, paths.previous).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(paths.staging, paths.target);
  await rm(paths.previous, { recursive: true, force: true });
  return result;
}

/**
 * What a killed build left beside `target`: an interrupted swap is put back
 * (the old output returns to `target`), a staging or previous directory a
 * build left is removed; anything else there is refused (OutputDirError).
 * Every build does this first, also one that leaves the output as it is.
 */
export async function tidyBeside(target: string): Promise<ReturnType<typeof stagingPaths>> {
  const paths = stagingPaths(target);
  await recoverInterruptedSwap(paths);
  await removeOwn(paths.staging);
  // Checked before any work: the swap will remove <target>.previous.
  await removeOwn(paths.previous);
  return paths;
}

/** A previous build died between its two renames: put the old output back (only a site: never someone's directory). */
async function recoverInterruptedSwap(paths: ReturnType<typeof stagingPaths>): Promise<void> {
  if ((await kind(paths.target)) === null && (await kind(paths.previous)) === 'directory' && (await looksLikeSite(paths.previous))) await rename(paths.previous, paths.target);
}

/**
 * True for an empty directory or one a build wrote: the Astro render leaves
 * index.html and verify.mjs (from public/) in it, before the data files.
 */
export async function looksLikeSite(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => null);
  return names !== null && (names.length === 0 || (names.includes('index.html') && names.includes('verify.mjs')));
}

/** Removes a build's own leftover (staging or previous) and refuses to touch anything else there. */
async function removeOwn(path: string): Promise<void> {
  const found = await kind(path);
  if (found === null) return;
  if (found !== 'directory' || !(await looksLikeSite(path))) {
    throw new OutputDirError(`refusing to remove ${path}: it is not a directory a ledgerboard build left (no index.html and verify.mjs); move it away`);
  }
  await rm(path, { recursive: true, force: true });
}

async function kind(path: string): Promise<'directory' | 'other' | null> {
  try {
    return (await lstat(path)).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Directories 0755, regular files 0644, whatever the umask was; anything else is an error. */
export async function normaliseModes(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await normaliseModes(path);
    else if (entry.isFile()) await chmod(path, 0o644);
    else throw new Error(`the build wrote something that is not a file or directory: ${path}`);
  }
}

/** An output directory the build must not replace. */
export class OutputDirError extends LedgerboardError {
  static override readonly code: string = 'OUTPUT_DIR_REFUSED';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
}

/**
 * Refuses an output directory whose replacement would destroy something
 * else: one that is, or contains, a protected path (the project, the
 * evidence, the retained reports, the config), a path that is not a
 * directory, or an existing non-empty directory that is not a previous
 * ledgerboard site (it has no report.json and verify.mjs). `build --out .`
 * in the project would otherwise rename the project aside and delete it.
 */
export async function checkOutputDir(target: string, holds: readonly string[], inside: readonly string[] = []): Promise<void> {
  const out = await canonical(target);
  const within = (parent: string, child: string) => child === parent || child.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);
  for (const path of holds) {
    if (within(out, await canonical(path))) throw new OutputDirError(`refusing to build into ${target}: it holds ${path}, which the build would replace`);
  }
  for (const path of inside) {
    // A site inside the evidence would be read back as evidence by the next run.
    if (within(await canonical(path), out)) throw new OutputDirError(`refusing to build into ${target}: it lies inside ${path}, which is read as evidence or history`);
  }
  const found = await kind(out);
  if (found === 'other') throw new OutputDirError(`refusing to build into ${target}: it is not a directory`);
  if (found === 'directory' && !(await looksLikeSite(out))) {
    throw new OutputDirError(`refusing to build into ${target}: it is not empty and not a previous ledgerboard site (no index.html and verify.mjs); choose another --out or remove it yourself`);
  }
  // The build also replaces <out>.staging and <out>.previous: the same rule for both.
  const paths = stagingPaths(out);
  for (const extra of [paths.staging, paths.previous]) {
    const k = await kind(extra);
    if (k === 'other' || (k === 'directory' && !(await looksLikeSite(extra)))) {
      throw new OutputDirError(`refusing to build into ${target}: the build would replace ${extra}, which is not a directory a ledgerboard build left`);
    }
  }
}

/** The absolute path with every existing symbolic link resolved (the part that does not exist yet kept as written). */
async function canonical(path: string): Promise<string> {
  const absolute = resolve(path);
  const missing: string[] = [];
  let existing = absolute;
  for (;;) {
    try {
      return join(await realpath(existing), ...missing.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      missing.push(basename(existing));
      existing = parent;
    }
  }
}
