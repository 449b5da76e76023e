/**
 * The build's effects (src/site/effects.ts) and incremental renders
 * (src/site/page-slices.ts, build-site.ts renderSite):
 *
 * - a build in memory writes the same files, byte for byte, as the same
 *   build on disk;
 * - a rebuild takes from the previous output only pages whose key is kept
 *   and whose bytes re-hash to the kept listing: a page altered on disk is
 *   rendered again, an untouched output renders nothing (Astro does not
 *   run), and the result is always the bytes of a --no-cache build;
 * - another config, or an added bundle (the footer cites the current report
 *   on every page: docs/site.md), renders every page again.
 */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { buildSite, type SiteBuildResult } from '../../src/site/build-site.ts';
import { memoryEffects } from '../../src/site/effects.ts';
import { FIXED_PAGES } from '../../src/site/page-paths.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { testCache } from '../helpers/cache-store.ts';
import { regularFiles } from '../helpers/site-fixture.ts';

afterAll(removeTempDirs);

type Results = Awaited<ReturnType<typeof verifyPaths>>;

async function siteBytes(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const path of await regularFiles(dir)) files.set(path, await readFile(join(dir, path)));
  return files;
}

function expectSame(a: ReadonlyMap<string, Uint8Array>, b: ReadonlyMap<string, Uint8Array>): void {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [path, bytes] of a) expect(Buffer.from(b.get(path)!).equals(Buffer.from(bytes)), path).toBe(true);
}

const pageOf = (file: string) => (file === 'index.html' ? '/' : `/${file.slice(0, -'index.html'.length)}`);

describe('builds through the effects interface, and incremental renders', () => {
  it('a build in memory gives the disk build\'s files byte for byte; rebuilds render only pages whose key changed or whose kept bytes do not re-hash', async () => {
    const work = await makeTempDir('lb-incremental-');
    const first = validBundle();
    const second = validBundle();
    second.plan.title = 'A SECOND PLAN';
    const one: Results = await verifyPaths([await writeModel(first)]);
    const two: Results = await verifyPaths([await writeModel(first), await writeModel(second)]);
    const config = Config.parse({ title: 'Incremental board', site_url: 'https://example.org/' });
    const build = (results: Results, outDir: string, extra: { cache?: string; config?: Config; files?: Map<string, Uint8Array> } = {}): Promise<SiteBuildResult> => {
      const c = extra.config ?? config;
      return buildSite(buildReport(results, c), results, c, {
        retainedDir: join(work, 'no-retained'),
        outDir,
        sourceDate: null,
        log: () => undefined,
        ...(extra.cache === undefined ? {} : { renderCache: testCache(extra.cache) }),
        ...(extra.files === undefined ? {} : { effects: memoryEffects({ files: extra.files, label: outDir }) }),
      });
    };

    // In memory and on disk, no cache: the same files, byte for byte.
    const memory = new Map<string, Uint8Array>();
    await build(one, join(work, 'memory'), { files: memory });
    await build(one, join(work, 'full-one'));
    const fullOne = await siteBytes(join(work, 'full-one'));
    expect(fullOne.size).toBeGreaterThan(20);
    expectSame(fullOne, memory);
    await expect(readdir(join(work, 'memory'))).rejects.toThrow();

    // With a cache: the first build renders every page; the listing is kept.
    const cache = join(work, 'cache');
    const out = join(work, 'out');
    const firstBuild = await build(one, out, { cache });
    const everyPage = [...fullOne.keys()].filter((f) => f.endsWith('index.html')).map(pageOf).sort();
    expect(firstBuild.rendered).toEqual(everyPage);
    expectSame(fullOne, await siteBytes(out));
    const dropStamps = async () => {
      for (const name of await readdir(cache)) if (name.startsWith('site-') || name.startsWith('render-')) await rm(join(cache, name));
    };

    // Nothing changed (the output stamp and the whole-render cache removed, so the page listing decides): Astro does not run.
    await dropStamps();
    const untouched = await build(one, out, { cache });
    expect(untouched.rendered).toEqual([]);
    expectSame(fullOne, await siteBytes(out));

    // One kept page altered on disk: rendered again (with the pages Astro always renders), the rest taken.
    const cohortFile = [...fullOne.keys()].find((f) => f.startsWith('cohorts/') && f.endsWith('index.html'))!;
    const altered = Buffer.from(fullOne.get(cohortFile)!);
    altered[altered.length - 20]! ^= 1;
    await writeFile(join(out, cohortFile), altered);
    await dropStamps();
    const repaired = await build(one, out, { cache });
    expect(repaired.rendered).toEqual([...new Set([...FIXED_PAGES, pageOf(cohortFile)])].sort());
    expectSame(fullOne, await siteBytes(out));

    // Another config (the title): every page again.
    const retitled = Config.parse({ title: 'Another title', site_url: 'https://example.org/' });
    await dropStamps();
    const other = await build(one, out, { cache, config: retitled });
    expect(other.rendered).toEqual(everyPage);

    // An added bundle: the bytes of a --no-cache build of both bundles; every page rendered, because every page's
    // footer and citation name the current report, whose id the new bundle changes (page-slices.ts layoutSlice).
    await dropStamps();
    await build(one, out, { cache });
    const added = await build(two, out, { cache });
    await build(two, join(work, 'full-two'));
    const fullTwo = await siteBytes(join(work, 'full-two'));
    expectSame(fullTwo, await siteBytes(out));
    expect(added.rendered).toEqual([...fullTwo.keys()].filter((f) => f.endsWith('index.html')).map(pageOf).sort());
  }, 600_000);
});
