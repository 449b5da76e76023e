/**
 * Verification in shards (`ledgerboard cache fill --shard K/N`): N jobs,
 * each on its own machine, verify one share of the evidence each and keep
 * their results as verification cache entries (verify-cache.ts); one job
 * merges the entries (cache-merge.ts) and builds with every verification
 * reused.
 *
 * Which share a bundle is in depends on its name only, never on the order
 * in which a disk lists directories, nor on anything another job computed:
 * a bundle goes to shard 1 + (the first 48 bits of the SHA-256 of its path
 * under the directory it was discovered in, "/"-separated, as a big-endian
 * number) mod N; a bundle that is itself the directory given goes by that
 * directory's own name. Every job of one run lists the same bundles from
 * the same checkout, so the N shares are disjoint and together are every
 * bundle. Only a scheduling choice: a cache entry is keyed by the bundle's
 * bytes (not its name), so which job verified a bundle never changes a
 * result.
 */
import { createHash } from 'node:crypto';
import { basename, relative, resolve, sep } from 'node:path';
import { discoverBundles, PathArgumentError } from '../evidence/discover.ts';
import { verifyDirs, type BundleResult, type Progress, type VerifyOptions } from './verify-paths.ts';

/** Shard K of N (1 <= K <= N). */
export interface Shard {
  index: number;
  count: number;
}

/** The most shards (GitHub Actions runs at most 256 jobs of one matrix). */
export const MAX_SHARDS = 256;

/** `K/N` as a shard, or why it is not one (for a usage error). */
export function parseShard(text: string): Shard | { problem: string } {
  const match = /^([0-9]+)\/([0-9]+)$/.exec(text);
  if (match === null) return { problem: `--shard ${JSON.stringify(text)} is not K/N (two whole numbers, e.g. 2/3: the second share of three)` };
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SHARDS) return { problem: `--shard ${text}: N must be a whole number from 1 to ${MAX_SHARDS}` };
  if (!Number.isSafeInteger(index) || index < 1 || index > count) return { problem: `--shard ${text}: K must be a whole number from 1 to N (${count}); shards count from 1` };
  return { index, count };
}

/** The shard (1..count) a bundle of this name belongs to (see the module comment). */
export function shardOf(name: string, count: number): number {
  const digest = createHash('sha256').update(name, 'utf8').digest();
  return 1 + (digest.readUIntBE(0, 6) % count);
}

/** A discovered bundle directory and the name its shard is decided by. */
export interface NamedBundle {
  dir: string;
  name: string;
}

/** The name of a bundle found under `root`: its path below it ("/"-separated), or the root's own name when it is the bundle. */
export function bundleName(root: string, dir: string): string {
  const below = relative(resolve(root), resolve(dir));
  return below === '' ? basename(resolve(root)) : below.split(sep).join('/');
}

/** Every bundle under the paths (discovery order), with its name. */
export async function namedBundles(paths: readonly string[], requireBundles: boolean): Promise<NamedBundle[]> {
  const out: NamedBundle[] = [];
  for (const path of paths) {
    const found = await discoverBundles(path);
    if (found.length === 0 && requireBundles) throw new PathArgumentError(`no bundle (no manifest.json) found under ${path}`);
    for (const dir of found) out.push({ dir, name: bundleName(path, dir) });
  }
  return out;
}

/** What one shard verified: its bundles (in discovery order) with their results, and how many bundles there are in all. */
export interface ShardRun {
  total: number;
  bundles: (NamedBundle & { result: BundleResult })[];
}

/**
 * Discovers every bundle under the paths and verifies those of this shard
 * only (with the cache in the options, which keeps each result as an entry).
 */
export async function verifyShard(paths: readonly string[], shard: Shard, options: VerifyOptions & { onProgress?: Progress } = {}): Promise<ShardRun> {
  const all = await namedBundles(paths, options.requireBundles !== false);
  const mine = all.filter((b) => shardOf(b.name, shard.count) === shard.index);
  const results = await verifyDirs(
    mine.map((b) => b.dir),
    options.onProgress,
    options,
  );
  return { total: all.length, bundles: mine.map((b, i) => ({ ...b, result: results[i]! })) };
}
