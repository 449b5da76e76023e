/**
 * The task pages' attempt index kept with the facts (src/run/facts-cache.ts,
 * one part per ledger, facts/attempt-index-parts.ts): on the demo, a first
 * run makes every ledger's part, a second takes every one and gives the same
 * facts JSON byte for byte, and reads no evidence table (the verification
 * cache's table reads, and a bundle whose tables throw); a part edited by a
 * byte, sealed by a stranger, another ledger's, naming another board, or
 * whose counts are not the report's is ignored, made again and rewritten to
 * the same bytes. The merged parts are the index made in one go.
 */
import { mkdtemp, readdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDirs, configPath, loadConfigFile } from '../../src/config/config.ts';
import { runPipeline, type PipelineResult } from '../../src/run/pipeline.ts';
import { attemptIndexOf, evidenceOf, indexLedgers, ledgerIndexOf, type AttemptIndex } from '../../src/facts/attempt-index.ts';
import { checkLedgerIndex, ledgerIndexInputs } from '../../src/facts/attempt-index-parts.ts';
import { computeSiteFacts, type FactsBundle } from '../../src/facts/index.ts';
import { attemptIndexStore, INDEX_CACHE_FORMAT, indexKey, indexPath } from '../../src/run/facts-cache.ts';
import { cacheReads } from '../../src/pipeline/verify-cache.ts';
import type { Report } from '../../src/report/schema.ts';
import { sealHeader, STRANGER_SECRET, testCache } from '../helpers/cache-store.ts';
import type { CacheStore } from '../../src/cache/sealed.ts';

const root = new URL('../..', import.meta.url).pathname;
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
const retainedDir = configPath(loaded, loaded.config.retained_reports_dir);

async function cacheDir(): Promise<CacheStore> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-index-'));
  scratch.push(dir);
  return testCache(join(dir, 'cache'));
}

/** The demo's pipeline as `build` runs it, with the verification cache's table reads it made. */
async function demoRun(cache?: CacheStore): Promise<PipelineResult & { tableReads: number }> {
  const before = cacheReads.tables;
  const run = await runPipeline({ paths: bundleDirs(loaded), config: loaded.config, retainedDir, requireBundles: true, siteFacts: true, ...(cache ? { cache } : {}) });
  return { ...run, tableReads: cacheReads.tables - before };
}

const entryOf = (cache: CacheStore, report: Report, ledger: string) => indexPath(cache, indexKey(ledgerIndexInputs(report, ledger)));

/** The demo's bundles as held, their evidence's tables throwing when read (a hit must not read them). */
function tablesThrow(results: readonly FactsBundle[]): FactsBundle[] {
  return results.map((r) => {
    const v = (r as unknown as { verification: { status: string; evidence: Record<string, unknown> } }).verification;
    const evidence = Object.defineProperties(
      { ...Object.fromEntries(Object.entries(Object.getOwnPropertyDescriptors(v.evidence)).filter(([k, d]) => k !== 'attempts' && k !== 'grades' && 'value' in d).map(([k, d]) => [k, d.value])) },
      {
        attempts: { get: () => { throw new Error('a table was read'); }, enumerable: true },
        grades: { get: () => { throw new Error('a table was read'); }, enumerable: true },
      },
    );
    return { content_digest: r.content_digest, verification: { ...v, evidence } } as unknown as FactsBundle;
  });
}

describe('the attempt index kept per ledger', () => {
  it('a first run makes every ledger\'s part, a second takes them all: the same facts JSON, no table read', async () => {
    const cache = await cacheDir();
    const cold = await demoRun(cache);
    const ledgers = indexLedgers(cold.report);
    expect(ledgers.length).toBeGreaterThan(1);
    expect(cold.factsIndex).toEqual({ reused: 0, computed: ledgers.length });
    // The merged parts are the index made from the tables in one go (the route build-site takes without facts).
    const index = cold.facts!.attemptIndex!;
    expect(JSON.stringify(index)).toBe(JSON.stringify(attemptIndexOf(cold.report, evidenceOf(cold.results))));
    expect(index.bundles.map((b) => b.bundle_id)).toEqual(cold.report.bundles.filter((b) => b.counted).map((b) => b.bundle_id!).sort());
    const attempts = Object.values(index.outcomes).reduce((n, o) => n + Object.values(o.terminal).reduce((a, b) => a + b, 0), 0);
    expect(attempts).toBe(cold.report.cohorts.reduce((n, c) => n + Object.values(c.terminal_classes).reduce((a, b) => a + b, 0), 0));
    const entries = (await readdir(cache.dir)).filter((f) => f.startsWith('index-'));
    expect(entries).toHaveLength(ledgers.length);
    const first = (await readFile(entryOf(cache, cold.report, ledgers[0]!), 'utf8')).split('\n')[0]!;
    expect(first).toMatch(new RegExp(`^${INDEX_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64} hmac-sha256:[0-9a-f]{64}$`));

    const warm = await demoRun(cache);
    expect(warm.reportCached).toBe(true);
    expect(warm.factsIndex).toEqual({ reused: ledgers.length, computed: 0 });
    expect(JSON.stringify(warm.facts)).toBe(JSON.stringify(cold.facts));
    expect(warm.tableReads).toBe(0);

    // The same run without the index entries reads every counted bundle's tables (so the count above can fail).
    for (const f of entries) await unlink(join(cache.dir, f));
    const remade = await demoRun(cache);
    expect(remade.factsIndex).toEqual({ reused: 0, computed: ledgers.length });
    expect(remade.tableReads).toBe(cold.report.bundles.filter((b) => b.counted).length);
    expect(JSON.stringify(remade.facts)).toBe(JSON.stringify(cold.facts));
  });

  it('a hit touches no table: bundles whose tables throw when read give the same index from the kept parts', async () => {
    const cache = await cacheDir();
    const cold = await demoRun(cache);
    const held = tablesThrow(cold.results);
    const store = () => attemptIndexStore(cache, cold.report);
    const kept = await computeSiteFacts(cold.report, held, { indexStore: store() });
    expect(kept.attemptIndex).toEqual({ reused: indexLedgers(cold.report).length, computed: 0 });
    expect(JSON.stringify(kept.facts.attemptIndex)).toBe(JSON.stringify(cold.facts!.attemptIndex));
    // Without the kept parts the same bundles are read, and throw: the spy works.
    await expect(computeSiteFacts(cold.report, held, { indexStore: attemptIndexStore(await cacheDir(), cold.report) })).rejects.toThrow(/a table was read/);
    // With the report alone (no bundles held) and nothing kept: no index, nothing made.
    const none = await computeSiteFacts(cold.report, [], { indexStore: attemptIndexStore(await cacheDir(), cold.report) });
    expect(none.facts.attemptIndex).toBeUndefined();
    expect(none.attemptIndex).toEqual({ reused: 0, computed: 0 });
  });

  it('an entry that does not check is ignored, made again and rewritten: a byte edited, a stranger\'s seal, another ledger\'s part, another board, counts not the report\'s', async () => {
    const cache = await cacheDir();
    const cold = await demoRun(cache);
    const report = cold.report;
    const ledgers = indexLedgers(report);
    const expected = JSON.stringify(cold.facts!.attemptIndex);
    // The ledger with the most boards (and attempts), and another.
    const sizes = (l: string) => report.boards.filter((b) => b.ledger.digest === l).length * 1e6 + JSON.stringify(ledgerIndexOf(report, l, evidenceOf(cold.results))).length;
    const [big, small] = [...ledgers].sort((a, b) => sizes(b) - sizes(a));
    const path = entryOf(cache, report, big!);
    const original = await readFile(path);
    const header = original.subarray(0, original.indexOf(0x0a) + 1).toString('latin1');
    const key = header.split(' ')[1]!;
    const body = JSON.parse(original.subarray(header.length).toString('utf8')) as { ledger: string; part: AttemptIndex };
    const seal = (value: unknown, secret?: Uint8Array) => {
      const b = Buffer.from(JSON.stringify(value));
      return Buffer.concat([Buffer.from(sealHeader(INDEX_CACHE_FORMAT, key, b, secret), 'latin1'), b]);
    };
    const otherRaw = await readFile(entryOf(cache, report, small!));
    const other = JSON.parse(otherRaw.subarray(otherRaw.indexOf(0x0a) + 1).toString('utf8')) as { ledger: string; part: AttemptIndex };
    const boardId = Object.keys(body.part.boards)[0]!;
    const renamed = { ...body.part, boards: Object.fromEntries(Object.entries(body.part.boards).map(([id, b]) => [id === boardId ? `sha256:${'e'.repeat(64)}` : id, b])) };
    // A resolved attempt of the first non-empty cell made a failure (strip, classes and its row agree with each other, not with the report).
    const moved = structuredClone(body.part);
    const cell = Object.values(moved.boards).flatMap((b) => b.tasks.flatMap((t) => t.cells)).find((c) => c.strip.startsWith('0') && c.first.length > 0)!;
    cell.strip = `1${cell.strip.slice(1)}`;
    cell.classes[0]!--;
    cell.classes[1]!++;
    cell.first[0]!.terminal = (await import('../../src/analysis/grading.ts')).TERMINAL_CLASSES[1]!;
    const edited = Buffer.from(original);
    const at = edited.indexOf('"line":', header.length) + '"line":'.length;
    edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;

    const plants: [string, Buffer, RegExp | null][] = [
      ['a byte edited', edited, null],
      ['sealed by a stranger', seal(body, STRANGER_SECRET), null],
      ['another ledger\'s part named this ledger', seal({ ledger: big, part: other.part }), /not the ledger's bundles/],
      ['another ledger named', seal({ ledger: small, part: body.part }), null],
      ['a board not the ledger\'s', seal({ ledger: big, part: renamed }), /not the ledger's boards/],
      ['counts not the report\'s', seal({ ledger: big, part: moved }), /counts are not the report's/],
      ['the wrong shape', seal({ ledger: big, part: { ...body.part, bundles: 'all' } }), /^schema/],
    ];
    for (const [what, bytes, refused] of plants) {
      if (refused !== null) {
        const value = JSON.parse(bytes.subarray(bytes.indexOf(0x0a) + 1).toString('utf8')) as { part: unknown };
        const checked = checkLedgerIndex(report, big!, value.part);
        expect('refused' in checked && checked.refused, what).toMatch(refused);
      }
      await writeFile(path, bytes);
      const run = await demoRun(cache);
      expect(run.factsIndex, what).toEqual({ reused: ledgers.length - 1, computed: 1 });
      expect(JSON.stringify(run.facts!.attemptIndex), what).toBe(expected);
      expect(Buffer.compare(await readFile(path), original), what).toBe(0);
    }
    // The part as made checks.
    expect('part' in checkLedgerIndex(report, big!, body.part)).toBe(true);
    expect((await demoRun(cache)).factsIndex).toEqual({ reused: ledgers.length, computed: 0 });
  });
});
