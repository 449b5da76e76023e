/**
 * Finds bundles under a directory. A bundle is a directory holding
 * manifest.json; a directory holding plan.json, ledger.jsonl or
 * attempts.jsonl but no manifest is a bundle too (a broken one: it reports
 * its missing manifest rather than being silently skipped). A bundle nested
 * inside another bundle's directory is part of the outer bundle, not a
 * bundle of its own.
 *
 * Nothing met is silently dropped, and no link is followed: a directory that
 * cannot be listed (no permission, an I/O error) is a bundle of its own (the
 * reader reports it: no_verdict), and a symbolic link met in the search is a
 * bundle of its own too (never followed: verifyDirectory reports it as
 * NOT_REGULAR_FILE). The path the user gave is followed when it is a link:
 * the user chose it, as `find -H` does. A directory with no bundle below it
 * holds no evidence: discovery finds nothing there, and a command that was
 * given that path says so (exit 2).
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { basename, dirname, sep } from 'node:path';
import { compareUtf8 } from '../json/compare.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** Why a path given by the user cannot be used (a usage error, exit 2). */
export class PathArgumentError extends LedgerboardError {
  static override readonly code: string = 'PATH_ARGUMENT';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
}

/** Files whose presence makes a directory a bundle (the first is the one that must be there). */
export const BUNDLE_MARKERS = ['manifest.json', 'plan.json', 'ledger.jsonl', 'attempts.jsonl'] as const;

/** Directories never searched: installed packages and version control. */
const SKIPPED = new Set(['node_modules', '.git']);

/**
 * Bundle directories for one user-given path: the path itself when it holds
 * any bundle marker file, else every outermost bundle below it (dot
 * directories included; node_modules and .git skipped), with every directory
 * that cannot be listed and every symbolic link met, sorted by byte order.
 * A directory with no bundle below it gives none (verifyPaths decides whether
 * that is an error for the path the user typed).
 * A path that is a symbolic link is returned with a trailing separator (the
 * link is followed: the user named it).
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
  const root = !path.endsWith(sep) && (await lstat(path)).isSymbolicLink() ? `${path}${sep}` : path;
  const found: string[] = [];
  await search(root, '', found);
  if (found.includes('')) return [root];
  return found.sort(compareUtf8).map((dir) => (root.endsWith(sep) ? `${root}${dir}` : `${root}${sep}${dir}`));
}

/**
 * Adds to `found` the bundles at or below `rel` ('' is the root): the
 * directory itself when it holds a marker or cannot be listed, else what its
 * sub-directories hold and the links among its entries.
 */
async function search(root: string, rel: string, found: string[]): Promise<void> {
  const dir = rel === '' ? root : `${root}${root.endsWith(sep) ? '' : sep}${rel.split('/').join(sep)}`;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    found.push(rel); // Cannot be listed: reading it says why, on its own bundle.
    return;
  }
  if (entries.some((e) => (BUNDLE_MARKERS as readonly string[]).includes(e.name))) {
    found.push(rel);
    return;
  }
  for (const entry of entries.sort((a, b) => compareUtf8(a.name, b.name))) {
    if (SKIPPED.has(entry.name)) continue;
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const kind = await kindOf(entry, `${dir}${sep}${entry.name}`);
    if (kind === 'link') found.push(child);
    else if (kind === 'directory') await search(root, child, found);
  }
}

/** A directory entry's kind, from the entry's own type (lstat when the file system does not say). */
async function kindOf(entry: Dirent, path: string): Promise<'link' | 'directory' | 'other'> {
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile() || entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) return 'other';
  const stats = await lstat(path).catch(() => null);
  return stats?.isSymbolicLink() ? 'link' : stats?.isDirectory() ? 'directory' : 'other';
}
