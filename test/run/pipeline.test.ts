/**
 * The pipeline written once (src/run/pipeline.ts) and its report cache
 * (src/run/report-cache.ts): with a cache, a second run over the same
 * evidence takes the kept report, byte for byte the one analysis gives; a
 * kept report that does not check (edited numbers, another key, not JSON) is
 * ignored and rebuilt; other inputs (a changed config) are another key.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { runPipeline } from '../../src/run/pipeline.ts';
import { REPORT_CACHE_FORMAT } from '../../src/run/report-cache.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

const PATHS = ['content/bundles', 'content/examples'];
const config = Config.parse({});

async function cacheDir(): Promise<{ dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-run-'));
  scratch.push(dir);
  return { dir: join(dir, 'cache') };
}

async function reportEntry(cache: { dir: string }): Promise<string> {
  const names = (await readdir(cache.dir)).filter((n) => n.startsWith('report-'));
  expect(names).toHaveLength(1);
  return join(cache.dir, names[0]!);
}

describe('runPipeline', () => {
  it('without a cache, with an empty one and with a full one: the same report bytes; the full one gives the kept report', async () => {
    const cache = await cacheDir();
    const plain = await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true });
    const cold = await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });
    const warm = await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });
    expect(plain.history).toBeNull();
    expect(cold.reportCached).toBeUndefined();
    expect(warm.reportCached).toBe(true);
    expect(warm.results.every((r) => r.cached === true)).toBe(true);
    expect(canonicalJson(cold.report)).toBe(canonicalJson(plain.report));
    expect(canonicalJson(warm.report)).toBe(canonicalJson(plain.report));
    expect((await readFile(await reportEntry(cache), 'utf8')).split('\n')[0]).toMatch(new RegExp(`^${REPORT_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64}$`));
  }, 60_000);

  it('a kept report that does not check is ignored and rebuilt: edited numbers, another key, not JSON', async () => {
    const cache = await cacheDir();
    const first = await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });
    const file = await reportEntry(cache);
    const good = await readFile(file, 'utf8');
    const [header, body] = [good.slice(0, good.indexOf('\n')), good.slice(good.indexOf('\n') + 1)];
    const report = JSON.parse(body) as { cohorts: { rank: number }[] };
    report.cohorts[0]!.rank += 1;
    const edits: [string, string][] = [
      ['an edited rank (its report_id no longer re-derives)', `${header}\n${JSON.stringify(report)}`],
      ['another key', `${REPORT_CACHE_FORMAT} sha256:${'0'.repeat(64)}\n${body}`],
      ['not JSON', `${header}\n{`],
      ['a report of another shape', `${header}\n{"schema":"x"}`],
    ];
    for (const [what, text] of edits) {
      await writeFile(file, text);
      const again = await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });
      expect(again.reportCached, what).toBeUndefined();
      expect(canonicalJson(again.report), what).toBe(canonicalJson(first.report));
      expect(await readFile(file, 'utf8'), what).toBe(good);
    }
  }, 60_000);

  it('another config is another report key', async () => {
    const cache = await cacheDir();
    await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });
    const other = Config.parse({ title: 'another title' });
    const run = await runPipeline({ paths: PATHS, config: other, retainedDir: null, requireBundles: true, cache });
    expect(run.reportCached).toBeUndefined();
    expect(run.results.every((r) => r.cached === true)).toBe(true);
    expect(run.report.config.title).toBe('another title');
  }, 60_000);
});
