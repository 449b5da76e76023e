/**
 * A kept verification in two entries (src/pipeline/verify-cache.ts): a
 * small head (status, findings, ids, the evidence without its tables, the
 * tables' summary) and the tables. A report cache hit reads heads only; a
 * report made again from heads whose poolings are kept reads no table
 * either and gives the bytes a full analysis gives; where a bundle must be
 * pooled its tables are read, and a tables entry that does not check is
 * never trusted (the bundle is verified again, both entries rewritten). A
 * head that does not check is verified in full.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { runPipeline } from '../../src/run/pipeline.ts';
import { cacheReads, HEAD_NAME, KeptTablesError, TABLES_NAME, tablesPending } from '../../src/pipeline/verify-cache.ts';
import { evidenceValue } from '../helpers/evidence-value.ts';
import { testCache } from '../helpers/cache-store.ts';
import type { CacheStore } from '../../src/cache/sealed.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

const PATHS = ['content/bundles', 'content/examples'];
const config = Config.parse({});
const run = (cache?: CacheStore) => runPipeline({ paths: PATHS, config, retainedDir: null, requireBundles: true, cache });

async function cacheDir(): Promise<CacheStore> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-head-'));
  scratch.push(dir);
  return testCache(join(dir, 'cache'));
}

/** Removes the report's entries (whole reports, sections, and with `poolings` the bundle poolings): the next run makes the report again from the kept verifications. */
async function forgetReport(cache: CacheStore, poolings: boolean): Promise<void> {
  for (const name of await readdir(cache.dir)) {
    if (/^(report|section)-/.test(name) || (poolings && name.startsWith('pooling-'))) await rm(join(cache.dir, name));
  }
}

/** Counts the cache reads `work` does. */
async function reads<T>(work: () => Promise<T>): Promise<{ value: T; heads: number; tables: number }> {
  const before = { ...cacheReads };
  const value = await work();
  return { value, heads: cacheReads.heads - before.heads, tables: cacheReads.tables - before.tables };
}

describe('head entries first, tables only where a pooling needs them', () => {
  it('a report cache hit reads every head and no table; a report made again from heads alone is byte for byte the full analysis', async () => {
    const cache = await cacheDir();
    const full = await run();
    const cold = await run(cache);
    const names = await readdir(cache.dir);
    const heads = names.filter((n) => HEAD_NAME.test(n));
    expect(heads).toHaveLength(full.results.length);
    expect(names.filter((n) => TABLES_NAME.test(n)).map((n) => n.slice('tables-'.length)).sort()).toEqual(heads.sort());
    expect(canonicalJson(cold.report)).toBe(canonicalJson(full.report));

    const hit = await reads(() => run(cache));
    expect(hit.value.reportCached).toBe(true);
    expect(hit.heads).toBe(full.results.length);
    expect(hit.tables).toBe(0);
    expect(hit.value.results.every((r) => r.cached === true && tablesPending(r.verification.evidence))).toBe(true);
    expect(canonicalJson(hit.value.report)).toBe(canonicalJson(full.report));

    // The report, its sections gone, the poolings kept: the report is made again (costs, dates, ledgers from the heads), no table read.
    await forgetReport(cache, false);
    const fromHeads = await reads(() => run(cache));
    expect(fromHeads.value.reportCached).toBeUndefined();
    expect(fromHeads.value.sections).toEqual({ reused: 0, total: 1 });
    expect(fromHeads.tables).toBe(0);
    expect(canonicalJson(fromHeads.value.report)).toBe(canonicalJson(full.report));

    // The poolings gone too: every counted bundle is pooled, so its tables are read (once each), and the report is the same.
    await forgetReport(cache, true);
    const pooled = await reads(() => run(cache));
    const counted = full.report.bundles.filter((b) => b.counted).length;
    expect(counted).toBeGreaterThan(1);
    expect(pooled.tables).toBe(counted);
    expect(canonicalJson(pooled.value.report)).toBe(canonicalJson(full.report));

    // Tables read on first use, from synchronous code, are the rows verification made.
    const lazy = await run(cache);
    expect(lazy.reportCached).toBe(true);
    const used = await reads(async () => {
      for (let i = 0; i < full.results.length; i++) {
        expect(evidenceValue(lazy.results[i]!.verification.evidence)).toEqual(evidenceValue(full.results[i]!.verification.evidence));
      }
    });
    expect(used.tables).toBe(full.results.length);
  }, 120_000);

  it('a tables entry that does not check is never trusted: the bundle is verified again and both entries are written again', async () => {
    const cache = await cacheDir();
    const full = await run();
    await run(cache);
    const tables = (await readdir(cache.dir)).filter((n) => TABLES_NAME.test(n)).sort();
    const good = new Map(await Promise.all(tables.map(async (n) => [n, await readFile(join(cache.dir, n))] as const)));
    // Every bundle's tables: a flipped byte in the rows, a truncation, or gone.
    const damaged = [...good.entries()].map(([name, bytes], i) => {
      const changed = Buffer.from(bytes);
      if (i % 3 === 0) changed[changed.length - 20]! ^= 0x01;
      return [name, i % 3 === 1 ? changed.subarray(0, changed.length - 50) : changed, i % 3 === 2] as const;
    });
    for (const [name, bytes, gone] of damaged) {
      if (gone) await rm(join(cache.dir, name));
      else await writeFile(join(cache.dir, name), bytes);
    }
    await forgetReport(cache, true);
    const again = await reads(() => run(cache));
    // The counted bundles were pooled: none of their tables checked, so each was verified again (no table taken).
    expect(again.tables).toBe(0);
    expect(canonicalJson(again.value.report)).toBe(canonicalJson(full.report));
    const counted = new Set(full.report.bundles.filter((b) => b.counted).map((b) => b.content_digest));
    for (const [i, r] of again.value.results.entries()) {
      if (!counted.has(r.content_digest)) continue;
      expect(evidenceValue(r.verification.evidence)).toEqual(evidenceValue(full.results[i]!.verification.evidence));
    }
    // Rewritten: the counted bundles' tables entries are the good bytes again.
    const rewritten = (await Promise.all(tables.map(async (n) => Buffer.compare(await readFile(join(cache.dir, n)).catch(() => Buffer.alloc(0)), good.get(n)!) === 0))).filter(Boolean).length;
    expect(rewritten).toBe(counted.size);
  }, 120_000);

  it('tables that do not check when first used from synchronous code throw a coded error, never wrong rows, and the head is removed', async () => {
    const cache = await cacheDir();
    await run(cache);
    const warm = await run(cache);
    expect(warm.reportCached).toBe(true);
    const [name] = (await readdir(cache.dir)).filter((n) => TABLES_NAME.test(n));
    const hex = TABLES_NAME.exec(name!)![1]!;
    const bytes = await readFile(join(cache.dir, name!));
    bytes[bytes.length - 20]! ^= 0x01;
    await writeFile(join(cache.dir, name!), bytes);
    const hit = await run(cache);
    const results = hit.results.filter((r) => tablesPending(r.verification.evidence));
    expect(results).toHaveLength(hit.results.length);
    const thrown: unknown[] = [];
    for (const r of results) {
      try {
        void r.verification.evidence.attempts;
      } catch (error) {
        thrown.push(error);
      }
    }
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(KeptTablesError);
    expect((thrown[0] as KeptTablesError).code).toBe('CACHE_TABLES_UNREADABLE');
    expect((await readdir(cache.dir)).includes(`${hex}.v8`)).toBe(false);
    // The next run verifies that bundle in full and keeps it again.
    const next = await run(cache);
    expect(next.results.filter((r) => r.cached === undefined)).toHaveLength(1);
    expect((await readdir(cache.dir)).includes(`${hex}.v8`)).toBe(true);
  }, 120_000);

  it('a head that does not check is verified in full, its tables never read', async () => {
    const cache = await cacheDir();
    const full = await run();
    await run(cache);
    const heads = (await readdir(cache.dir)).filter((n) => HEAD_NAME.test(n));
    for (const name of heads) {
      const bytes = await readFile(join(cache.dir, name));
      bytes[bytes.length - 5]! ^= 0x01;
      await writeFile(join(cache.dir, name), bytes);
    }
    const again = await reads(() => run(cache));
    expect(again.heads).toBe(0);
    expect(again.tables).toBe(0);
    expect(again.value.results.every((r) => r.cached === undefined)).toBe(true);
    expect(canonicalJson(again.value.report)).toBe(canonicalJson(full.report));
  }, 120_000);
});
