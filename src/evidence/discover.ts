/**
 * Finds bundles under a directory: a bundle is a directory holding
 * manifest.json. fast-glob never follows symbolic links here, and a bundle
 * nested inside another bundle's directory is part of the outer bundle, not a
 * bundle of its own.
 */
import { lstat, stat } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import fg from 'fast-glob';
import { compareUtf8 } from './paths.ts';

/** Why a path given by the user cannot be used (a usage error, exit 2). */
export class PathArgumentError extends Error {}

/**
 * Bundle directories for one user-given path: the path itself when it holds
 * manifest.json, else every outermost bundle below it, sorted; a directory
 * with no bundle below it is returned as a bundle of its own (it then reports
 * its missing manifest rather than passing silently).
 */
export async function discoverBundles(path: string): Promise<string[]> {
  let stats;
  try {
    stats = await stat(path);
  } catch {
    throw new PathArgumentError(`no such file or directory: ${path}`);
  }
  if (!stats.isDirectory()) throw new PathArgumentError(`not a directory: ${path}`);
  if (await isEntry(join(path, 'manifest.json'))) return [path];
  const manifests = await fg('**/manifest.json', {
    cwd: path,
    onlyFiles: false,
    followSymbolicLinks: false,
    dot: false,
    unique: true,
  });
  const dirs = manifests.map((m) => posix.dirname(m)).sort(compareUtf8);
  const outermost: string[] = [];
  for (const dir of dirs) {
    if (outermost.some((outer) => dir.startsWith(`${outer}/`))) continue;
    outermost.push(dir);
  }
  if (outermost.length === 0) return [path];
  return outermost.map((dir) => (path.endsWith(sep) ? `${path}${dir}` : `${path}${sep}${dir}`));
}

async function isEntry(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
