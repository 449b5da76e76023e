/**
 * Finds bundles under a directory. A bundle is a directory holding
 * manifest.json; a directory holding plan.json, ledger.jsonl or
 * attempts.jsonl but no manifest is a bundle too (a broken one: it reports
 * its missing manifest rather than being silently skipped). fast-glob never
 * follows symbolic links here; a bundle nested inside another bundle's
 * directory is part of the outer bundle, not a bundle of its own. A
 * directory with no bundle below it holds no evidence: discovery finds
 * nothing there, and a command that was given that path says so (exit 2).
 */
import { lstat, stat } from 'node:fs/promises';
import { basename, dirname, join, posix, sep } from 'node:path';
import fg from 'fast-glob';
import { compareUtf8 } from './paths.ts';

/** Why a path given by the user cannot be used (a usage error, exit 2). */
export class PathArgumentError extends Error {}

/** Files whose presence makes a directory a bundle (the first is the one that must be there). */
export const BUNDLE_MARKERS = ['manifest.json', 'plan.json', 'ledger.jsonl', 'attempts.jsonl'] as const;

/**
 * Bundle directories for one user-given path: the path itself when it holds
 * any bundle marker file, else every outermost bundle below it (dot
 * directories included; node_modules and .git skipped), sorted by byte order.
 * A directory with no bundle below it gives none (verifyPaths decides whether
 * that is an error for the path the user typed).
 */
export async function discoverBundles(path: string): Promise<string[]> {
  let stats;
  try {
    stats = await stat(path);
  } catch {
    throw new PathArgumentError(`no such file or directory: ${path}`);
  }
  if (!stats.isDirectory()) {
    const hint = BUNDLE_MARKERS.some((marker) => basename(path) === marker) ? ` (a bundle is the directory that holds ${basename(path)}: try ${dirname(path)})` : '';
    throw new PathArgumentError(`not a directory: ${path}${hint}`);
  }
  for (const marker of BUNDLE_MARKERS) if (await isEntry(join(path, marker))) return [path];
  const markers = await fg(`**/{${BUNDLE_MARKERS.join(',')}}`, {
    cwd: path,
    onlyFiles: false,
    followSymbolicLinks: false,
    dot: true,
    unique: true,
    ignore: ['**/node_modules/**', '**/.git/**'],
  });
  const dirs = [...new Set(markers.map((m) => posix.dirname(m)))].sort(compareUtf8);
  const outermost: string[] = [];
  for (const dir of dirs) {
    if (outermost.some((outer) => dir.startsWith(`${outer}/`))) continue;
    outermost.push(dir);
  }
  if (outermost.length === 0) return [];
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
