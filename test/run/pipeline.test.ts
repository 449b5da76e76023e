/**
 * The pipeline written once (src/run/pipeline.ts) and its report cache
 * (src/run/report-cache.ts): with a cache, a second run over the same
 * evidence takes the kept report, byte for byte the one analysis gives; a
 * kept report that does not check (edited numbers, another key, not JSON) is
 * ignored and rebuilt; other inputs (a changed config) are another key.
 * Its ledger sections: a run where one ledger gained a bundle takes the
 * other ledgers' kept sections and analyses that ledger alone, giving the
 * bytes a full analysis gives; a section entry that does not check is
 * ignored and analysed again. Its bundle poolings: a ledger that gained a
 * bundle pools that bundle alone and merges the others' kept poolings,
 * giving the bytes a full analysis gives; a pooling entry that does not
 * check is ignored and the bundle pooled again.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { runPipeline } from '../../src/run/pipeline.ts';
import { POOLING_CACHE_FORMAT, REPORT_CACHE_FORMAT, SECTION_CACHE_FORMAT } from '../../src/run/report-cache.ts';
import type { BundlePooling } from '../../src/analysis/pool.ts';
import { laterDate } from '../../src/report/ledger-section.ts';
import { removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { sealHeader, testCache } from '../helpers/cache-store.ts';
import type { CacheStore } from '../../src/cache/sealed.ts';

const scratch: string[] = [];
afterAll(() => Promise.all([removeTempDirs(), ...scratch.map((d) => rm(d, { recursive: true, force: true }))]));

const PATHS = ['content/bundles', 'content/examples'];
const config = Config.parse({});

async function cacheDir(): Promise<CacheStore> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-run-'));
  scratch.push(dir);
  return testCache(join(dir, 'cache'));
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
    expect((await readFile(await reportEntry(cache), 'utf8')).split('\n')[0]).toMatch(new RegExp(`^${REPORT_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64} hmac-sha256:[0-9a-f]{64}$`));
  }, 60_000);

  it('a kept report that does not check is ignored and rebuilt: edited numbers, another key, not JSON', async () => {
    const cache = await cacheDir();
    const first = await runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });
    const file = await reportEntry(cache);
    const good = await readFile(file, 'utf8');
    const [header, body] = [good.slice(0, good.indexOf('\n')), good.slice(good.indexOf('\n') + 1)];
    const key = header.split(' ')[1]!;
    // Sealed with the cache's own secret: what is checked past the seal.
    const sealed = (text: string) => `${sealHeader(REPORT_CACHE_FORMAT, key, Buffer.from(text))}${text}`;
    const report = JSON.parse(body) as { cohorts: { rank: number }[] };
    report.cohorts[0]!.rank += 1;
    const edits: [string, string][] = [
      ['an edited rank, resealed (its report_id no longer re-derives)', sealed(JSON.stringify(report))],
      ['an edited rank under the old seal', `${header}\n${JSON.stringify(report)}`],
      ['another key', `${REPORT_CACHE_FORMAT} sha256:${'0'.repeat(64)} ${header.split(' ')[2]}\n${body}`],
      ['not JSON, sealed', sealed('{')],
      ['a report of another shape, sealed', sealed('{"schema":"x"}')],
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

  it('one ledger gains a bundle: the other ledger keeps its section, the report is byte for byte a full analysis', async () => {
    const cache = await cacheDir();
    // The demo has one ledger; validBundle pins another.
    const other = await writeModel(validBundle());
    const both = [PATHS[0]!, other];
    const plain = await runPipeline({ paths: both, config, retainedDir: null, requireBundles: true });
    const demo = await runPipeline({ paths: [PATHS[0]!], config, retainedDir: null, requireBundles: true, cache });
    expect(demo.sections).toEqual({ reused: 0, total: 1 });
    const sections = (await readdir(cache.dir)).filter((n) => n.startsWith('section-'));
    expect(sections).toHaveLength(1);
    const header = (await readFile(join(cache.dir, sections[0]!), 'utf8')).split('\n')[0]!;
    expect(header).toMatch(new RegExp(`^${SECTION_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64} hmac-sha256:[0-9a-f]{64}$`));

    const grown = await runPipeline({ paths: both, config, retainedDir: null, requireBundles: true, cache });
    expect(grown.reportCached).toBeUndefined();
    expect(grown.sections).toEqual({ reused: 1, total: 2 });
    expect(canonicalJson(grown.report)).toBe(canonicalJson(plain.report));
    expect(grown.report.boards.length).toBeGreaterThan(demo.report.boards.length);
    expect((await readdir(cache.dir)).filter((n) => n.startsWith('section-'))).toHaveLength(2);
    const again = await runPipeline({ paths: both, config, retainedDir: null, requireBundles: true, cache });
    expect(again.reportCached).toBe(true);
  }, 60_000);

  it('a kept section that does not check is analysed again: an edited number, a body that does not hash to its line, another ledger, not JSON', async () => {
    const cache = await cacheDir();
    const other = await writeModel(validBundle());
    const plain = await runPipeline({ paths: [PATHS[0]!, other], config, retainedDir: null, requireBundles: true });
    await runPipeline({ paths: [PATHS[0]!], config, retainedDir: null, requireBundles: true, cache });
    const name = (await readdir(cache.dir)).find((n) => n.startsWith('section-'))!;
    const file = join(cache.dir, name);
    const good = await readFile(file, 'utf8');
    const newline = good.indexOf('\n');
    const [format, key] = good.slice(0, newline).split(' ');
    const body = good.slice(newline + 1);
    const sealed = (text: string) => `${sealHeader(format!, key!, Buffer.from(text))}${text}`;
    const section = JSON.parse(body) as { ledger_digest: string; cohorts: { rank: number }[] };
    const edited = structuredClone(section);
    edited.cohorts[0]!.rank += 1;
    const moved = { ...section, ledger_digest: `sha256:${'1'.repeat(64)}` };
    const edits: [string, string][] = [
      ['an edited rank under the old digest', `${good.slice(0, newline)}\n${JSON.stringify(edited)}`],
      ['another seal', `${format} ${key} hmac-sha256:${'0'.repeat(64)}\n${body}`],
      ['another ledger, sealed', sealed(JSON.stringify(moved))],
      ['not JSON, sealed', sealed('{')],
      ['another shape, sealed', sealed('{"boards":1}')],
    ];
    for (const [what, text] of edits) {
      await writeFile(file, text);
      // Only the demo's section is kept (no report, no section of the other ledger): the section entry is what is read.
      for (const n of await readdir(cache.dir)) if (/^(report|section)-/.test(n) && n !== name) await rm(join(cache.dir, n));
      const run = await runPipeline({ paths: [PATHS[0]!, other], config, retainedDir: null, requireBundles: true, cache });
      expect(run.sections, what).toEqual({ reused: 0, total: 2 });
      expect(canonicalJson(run.report), what).toBe(canonicalJson(plain.report));
      // Rewritten from the fresh analysis.
      expect(await readFile(file, 'utf8'), what).toBe(good);
    }
  }, 60_000);
});

describe('bundle poolings (src/run/report-cache.ts)', () => {
  /** The demo's bundle directories, sorted. */
  async function demoBundles(): Promise<string[]> {
    return (await readdir(PATHS[0]!, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => join(PATHS[0]!, e.name)).sort();
  }
  /** Removes the kept reports and sections: what is left to reuse is the bundles' verifications and poolings. */
  async function dropReports(cache: { dir: string }): Promise<void> {
    for (const n of await readdir(cache.dir)) if (/^(report|section)-/.test(n)) await rm(join(cache.dir, n));
  }

  it('the ledger gains a bundle: the others\' kept poolings are merged, the new one pooled, the report byte for byte a full analysis', async () => {
    const all = await demoBundles();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const cache = await cacheDir();
    const plain = await runPipeline({ paths: all, config, retainedDir: null, requireBundles: true });
    const fewer = await runPipeline({ paths: all.slice(0, -1), config, retainedDir: null, requireBundles: true, cache });
    expect(fewer.poolings).toEqual({ reused: 0, total: all.length - 1 });
    const names = (await readdir(cache.dir)).filter((n) => n.startsWith('pooling-'));
    expect(names.length).toBeGreaterThanOrEqual(all.length - 1);
    const header = (await readFile(join(cache.dir, names[0]!))).subarray(0, 200).toString('latin1').split('\n')[0]!;
    expect(header).toMatch(new RegExp(`^${POOLING_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64} hmac-sha256:[0-9a-f]{64}$`));
    const grown = await runPipeline({ paths: all, config, retainedDir: null, requireBundles: true, cache });
    expect(grown.sections).toEqual({ reused: 0, total: 1 });
    expect(grown.poolings).toEqual({ reused: all.length - 1, total: all.length });
    expect(canonicalJson(grown.report)).toBe(canonicalJson(plain.report));
    // The demo has a regrade: each bundle's pooling in the layer in use and as generation 1 graded it.
    expect((await readdir(cache.dir)).filter((n) => n.startsWith('pooling-'))).toHaveLength(2 * all.length);
  }, 60_000);

  it('a kept pooling that does not check is pooled again: a flipped byte, another bundle\'s pooling, not V8, a short wall-time column, a count that does not add up', async () => {
    const all = await demoBundles();
    const cache = await cacheDir();
    const plain = await runPipeline({ paths: all, config, retainedDir: null, requireBundles: true, cache });
    await dropReports(cache);
    const names = (await readdir(cache.dir)).filter((n) => n.startsWith('pooling-')).sort();
    const read = async (name: string) => {
      const bytes = await readFile(join(cache.dir, name));
      const newline = bytes.indexOf(0x0a);
      const [format, key] = bytes.subarray(0, newline).toString('latin1').split(' ');
      return { bytes, format: format!, key: key!, pooling: deserialize(bytes.subarray(newline + 1)) as BundlePooling };
    };
    const target = await read(names[0]!);
    const other = (await Promise.all(names.slice(1).map(read))).find((e) => e.pooling.bundle_id !== target.pooling.bundle_id)!;
    const sealed = (body: Uint8Array) => Buffer.concat([Buffer.from(sealHeader(target.format, target.key, body), 'latin1'), body]);
    const short = structuredClone(target.pooling);
    short.parts[0]!.part.walls = short.parts[0]!.part.walls.subarray(1);
    const uneven = structuredClone(target.pooling);
    uneven.parts[0]!.part.classes[0]! += 1;
    const flipped = Buffer.from(target.bytes);
    flipped[flipped.length - 1]! ^= 1;
    const edits: [string, Uint8Array][] = [
      ['a flipped byte under the old digest', flipped],
      ['another bundle\'s pooling, sealed', sealed(serialize(other.pooling))],
      ['not V8, sealed', sealed(Buffer.from('{}'))],
      ['a wall-time column one short, sealed', sealed(serialize(short))],
      ['terminal classes that do not add up to the attempts, sealed', sealed(serialize(uneven))],
    ];
    for (const [what, bytes] of edits) {
      await writeFile(join(cache.dir, names[0]!), bytes);
      await dropReports(cache);
      const run = await runPipeline({ paths: all, config, retainedDir: null, requireBundles: true, cache });
      // The damaged entry is one layer of one bundle: that bundle is pooled again.
      expect(run.poolings!.total, what).toBe(all.length);
      expect(run.poolings!.reused, what).toBeGreaterThanOrEqual(all.length - 1);
      expect(canonicalJson(run.report), what).toBe(canonicalJson(plain.report));
      // Rewritten: the same pooling (V8's bytes may differ with how the evidence was held: verified afresh or kept).
      const now = await read(names[0]!);
      expect(now.key, what).toBe(target.key);
      expect(now.pooling, what).toEqual(target.pooling);
    }
  }, 60_000);
});

describe('laterDate (the report\'s evidence_date)', () => {
  it('a later instant wins; of one instant written two ways, the lower string, whichever comes first', () => {
    expect(laterDate('2026-01-02T00:00:00Z', '2026-01-01T23:59:59.999Z')).toBe(true);
    expect(laterDate('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')).toBe(false);
    // '.' sorts before 'Z': the form with a fraction is the lower string.
    expect(laterDate('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00Z')).toBe(true);
    expect(laterDate('2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z')).toBe(false);
    expect(laterDate('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')).toBe(false);
  });
});
