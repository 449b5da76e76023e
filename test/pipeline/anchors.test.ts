/**
 * The bundle's anchor through the pipeline (FORMAT.md 12): the pinned roots
 * reach verification on worker threads (as DER, parsed again there) as on
 * the main thread, and the verification cache keys on the roots, so a kept
 * `pinned` is never reused under other roots.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePinnedRoots } from '../../src/anchor/check.ts';
import { cacheKey } from '../../src/pipeline/verify-cache.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { LIMIT_DEFAULTS } from '../../src/evidence/limits.ts';
import { makeTempDir, writeModel } from '../helpers/bundle-builder.ts';
import { futureBundle, planHexOf, tokenAt, withTokens, twoAuthorities } from '../helpers/anchored-bundle.ts';
import { testCache } from '../helpers/cache-store.ts';

const { tsa, other, roots } = twoAuthorities();

/** Two anchored bundles (one before its first attempt, one after) on disk. */
async function anchoredDirs(): Promise<string[]> {
  const dirs: string[] = [];
  for (const genTime of ['2030-09-14T13:00:00Z', '2030-09-16T00:00:00Z']) {
    const model = futureBundle();
    model.plan.title = `anchored at ${genTime}`;
    dirs.push(await writeModel(withTokens(model, { 'tsa.tsr': tokenAt(tsa, planHexOf(model), genTime) })));
  }
  return dirs;
}

describe('the anchor through the pipeline', () => {
  it('on worker threads the roots are those of the main thread: the same anchors, pinned', async () => {
    const dirs = await anchoredDirs();
    const alone = await verifyPaths(dirs, undefined, { workers: 0, timestampRoots: roots });
    const threaded = await verifyPaths(dirs, undefined, { workers: 1, timestampRoots: roots });
    expect(alone.map((r) => r.verification.anchor)).toEqual([
      expect.objectContaining({ gen_time: '2030-09-14T13:00:00Z', pinned: true, before_first_attempt: true }),
      expect.objectContaining({ gen_time: '2030-09-16T00:00:00Z', pinned: true, before_first_attempt: false }),
    ]);
    expect(threaded.map((r) => r.verification.anchor)).toEqual(alone.map((r) => r.verification.anchor));
    expect(threaded.map((r) => r.verification.findings)).toEqual(alone.map((r) => r.verification.findings));
    const none = await verifyPaths(dirs, undefined, { workers: 1 });
    expect(none.map((r) => r.verification.anchor?.pinned)).toEqual([false, false]);
  }, 60_000);

  it('the cache keys on the roots: other roots verify again, the same roots reuse the kept anchor', async () => {
    const dirs = await anchoredDirs();
    const cache = testCache(join(await makeTempDir(), 'cache'));
    const first = await verifyPaths(dirs, undefined, { workers: 0, cache, timestampRoots: roots });
    expect(first.map((r) => [r.cached, r.verification.anchor?.pinned])).toEqual([
      [undefined, true],
      [undefined, true],
    ]);
    const unpinned = await verifyPaths(dirs, undefined, { workers: 0, cache, timestampRoots: parsePinnedRoots(other.rootPem) });
    expect(unpinned.map((r) => [r.cached, r.verification.anchor?.pinned])).toEqual([
      [undefined, false],
      [undefined, false],
    ]);
    const again = await verifyPaths(dirs, undefined, { workers: 0, cache, timestampRoots: roots });
    expect(again.map((r) => [r.cached, r.verification.anchor])).toEqual(first.map((r) => [true, r.verification.anchor]));
    // On worker threads too (a worker computes the key with the roots it parsed again).
    const threaded = await verifyPaths(dirs, undefined, { workers: 1, cache, timestampRoots: roots });
    expect(threaded.map((r) => [r.cached, r.verification.anchor])).toEqual(again.map((r) => [r.cached, r.verification.anchor]));
  }, 60_000);

  it('the key follows the roots as a set: order and repetition do not change it', async () => {
    const [dir] = await anchoredDirs();
    const snapshot = await readBundle(dir!);
    const a = parsePinnedRoots(tsa.rootPem)[0]!;
    const b = parsePinnedRoots(other.rootPem)[0]!;
    expect(cacheKey(snapshot, LIMIT_DEFAULTS, undefined, [a, b])).toBe(cacheKey(snapshot, LIMIT_DEFAULTS, undefined, [b, a, b]));
    expect(cacheKey(snapshot, LIMIT_DEFAULTS, undefined, [a])).not.toBe(cacheKey(snapshot, LIMIT_DEFAULTS, undefined, [b]));
    expect(cacheKey(snapshot, LIMIT_DEFAULTS, undefined, [])).toBe(cacheKey(snapshot, LIMIT_DEFAULTS));
  });
});
