/**
 * Where a private key must never be (`keygen`, `sign`): the directories whose
 * contents are published or kept as history. A path is compared with them by
 * what it is on disk, not by how it is spelled: its real path (every link
 * resolved; for a path not yet created, the real path of its deepest existing
 * ancestor plus the rest), and the device and inode of each existing ancestor
 * against each guarded directory's (a bind mount or a second mount of the same
 * directory has another path but the same identity). A link from anywhere
 * into the evidence therefore lands inside it, as it would for the build that
 * publishes it.
 */
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { bundleDirs, configPath, type LoadedConfig } from '../config/config.ts';
import { DEFAULT_OUT_DIR } from './build-command.ts';

/** A directory a key must stay out of, and what it is (for the message). */
export interface GuardedDir {
  what: string;
  dir: string;
}

/**
 * The guarded directories of a config: every evidence directory (and `extraEvidence`,
 * such as sign's --bundles), the retained reports (the history), the attestations,
 * and the default output (dist/, beside the config and in the working directory, where
 * `build` writes it by default).
 */
export function guardedDirs(loaded: LoadedConfig, extraEvidence: readonly string[] = []): GuardedDir[] {
  return [
    ...[...bundleDirs(loaded), ...extraEvidence].map((dir) => ({ what: 'the evidence directory', dir })),
    { what: 'the retained reports directory', dir: configPath(loaded, loaded.config.retained_reports_dir) },
    { what: 'the attestations directory', dir: configPath(loaded, loaded.config.attestations_dir) },
    { what: 'the default output directory', dir: configPath(loaded, DEFAULT_OUT_DIR) },
    { what: 'the default output directory', dir: DEFAULT_OUT_DIR },
  ];
}

/** A path as the disk sees it: its real path, and the (device, inode) of it and each existing ancestor. */
interface OnDisk {
  real: string;
  identities: Set<string>;
}

/**
 * The real path of `path`: links resolved in every component that exists, a
 * dangling link followed to where it points (mkdir -p would create its
 * target), the names not yet created appended as they are.
 */
async function realPathOf(path: string, hops = 0): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code !== 'ENOENT' && code !== 'ENOTDIR') || hops > 40) throw error;
  }
  const info = await lstat(absolute).catch(() => null);
  if (info?.isSymbolicLink()) return realPathOf(resolve(dirname(absolute), await readlink(absolute)), hops + 1);
  const parent = dirname(absolute);
  if (parent === absolute) return absolute;
  return join(await realPathOf(parent, hops + 1), basename(absolute));
}

/** A path's real path and the (device, inode) of it and each existing ancestor. */
async function onDisk(path: string): Promise<OnDisk> {
  const real = await realPathOf(path);
  const identities = new Set<string>();
  for (let dir = real; ; dir = dirname(dir)) {
    const info = await stat(dir).catch(() => null);
    if (info) identities.add(`${info.dev}:${info.ino}`);
    if (dirname(dir) === dir) break;
  }
  return { real, identities };
}

/**
 * The first guarded directory `path` lies in (or is), by real path or by the
 * identity of an ancestor; null when it lies in none. Follows links to find
 * out, never writes.
 */
export async function guardedPlaceOf(path: string, places: readonly GuardedDir[]): Promise<(GuardedDir & { real: string }) | null> {
  const target = await onDisk(path);
  for (const place of places) {
    const guarded = await onDisk(place.dir);
    const inside = relative(guarded.real, target.real);
    if (inside === '' || (!inside.startsWith(`..${sep}`) && inside !== '..' && !isAbsolute(inside))) return { ...place, real: target.real };
    // The guarded directory itself (not its ancestors) among the target's ancestors: the same directory under another path.
    const own = await stat(guarded.real).catch(() => null);
    if (own && target.identities.has(`${own.dev}:${own.ino}`)) return { ...place, real: target.real };
  }
  return null;
}

/** How a refusal names the path: as given, and its real path when a link made it another. */
export function shownPath(path: string, real: string): string {
  return resolve(path) === real ? path : `${path} (really ${real})`;
}
