/**
 * The read + verify stage for a list of user-given paths: discover bundles,
 * read each from disk, verify it. Shared by `verify`, `build` and later
 * stages; the only stage here that touches the disk is the reading.
 */
import { ContentArena } from '../evidence/arena.ts';
import { discoverBundles, PathArgumentError } from '../evidence/discover.ts';
import { LIMIT_DEFAULTS } from '../evidence/limits.ts';
import { verifyOnThreads, workersFor } from './threads.ts';
import { verifyDirectory, type Progress, type BundleResult, type VerifyOptions } from './verify-directory.ts';

export { contentDigest, verifyDirectory, verifySnapshot } from './verify-directory.ts';
export type { BundleEntry, Progress, BundleResult, VerifyFunction, VerifyOptions } from './verify-directory.ts';

/** Discovers and verifies every bundle under the given paths, in argument order, bundles sorted within each. */
export async function verifyPaths(paths: readonly string[], onProgress?: Progress, options: VerifyOptions = {}): Promise<BundleResult[]> {
  const dirs: string[] = [];
  for (const path of paths) {
    const found = await discoverBundles(path);
    if (found.length === 0 && options.requireBundles !== false) throw new PathArgumentError(`no bundle (no manifest.json) found under ${path}`);
    dirs.push(...found);
  }
  return verifyDirs(dirs, onProgress, options);
}

/** Verifies these bundle directories (as discovery gave them: a link among them is reported, never followed), in their order. */
export async function verifyDirs(dirs: readonly string[], onProgress?: Progress, options: VerifyOptions = {}): Promise<BundleResult[]> {
  // A verifier passed in (a test's) cannot be sent to another thread.
  const workers = options.verify === undefined ? await workersFor(dirs, options.workers) : 0;
  if (workers > 0) return verifyOnThreads(dirs, workers, options.limits ?? LIMIT_DEFAULTS, onProgress, options.cache, options.importLimits, options.timestampRoots);
  const results: BundleResult[] = [];
  // One bundle at a time, so each bundle's structured files can be read into the memory of the one before.
  const arena = new ContentArena();
  for (const dir of dirs) {
    results.push({ path: dir, ...(await verifyDirectory(dir, arena, options)) });
    onProgress?.(results.length, dirs.length);
  }
  return results;
}
