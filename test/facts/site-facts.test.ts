/**
 * The site's facts computed below the site (src/facts, issue 28 item 1): the
 * pipeline returns them beside the report, and the site model built from
 * them holds the compare pages, plan pages and money the golden model holds
 * (test/golden/demo-site-model.json), byte for byte; there is no model
 * without them (a type error, and the build stops: the site never computes
 * them, nor parses a plan.json again). Their cache
 * (src/run/facts-cache.ts): a second run takes every board's compare facts
 * (no bootstrap runs) and gives identical facts; an entry edited by a byte, a
 * stranger's entry, another board's facts under this board's key and facts of
 * the wrong shape are each ignored, computed again and rewritten.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDirs, configPath, freezeLogPathOf, loadConfigFile } from '../../src/config/config.ts';
import { readRetained } from '../../src/history/retained-reports.ts';
import { runPipeline, type PipelineResult } from '../../src/run/pipeline.ts';
import { buildSiteModel, type SiteModel } from '../../src/site/model/model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { compareInputsDigest } from '../../src/facts/compare.ts';
import { computeSiteFacts } from '../../src/facts/index.ts';
import { FACTS_CACHE_FORMAT, factsKey, factsPath } from '../../src/run/facts-cache.ts';
import type { Report } from '../../src/report/schema.ts';
import { sealHeader, STRANGER_SECRET, testCache } from '../helpers/cache-store.ts';
import type { CacheStore } from '../../src/cache/sealed.ts';

const root = new URL('../..', import.meta.url).pathname;
const golden = JSON.parse(await readFile(new URL('../golden/demo-site-model.json', import.meta.url), 'utf8')) as SiteModel;
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
const retainedDir = configPath(loaded, loaded.config.retained_reports_dir);

async function cacheDir(): Promise<CacheStore> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-facts-'));
  scratch.push(dir);
  return testCache(join(dir, 'cache'));
}

/** The demo's pipeline as `build` runs it (retained reports, site facts), with or without a cache. */
function demoRun(cache?: CacheStore): Promise<PipelineResult> {
  return runPipeline({ paths: bundleDirs(loaded), config: loaded.config, retainedDir, freezeLog: freezeLogPathOf(loaded), requireBundles: true, siteFacts: true, ...(cache ? { cache } : {}) });
}

async function modelOf(run: PipelineResult): Promise<SiteModel> {
  return buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config, {
    retained: await readRetained(retainedDir),
    sourceDate: null,
    history: run.history!,
    facts: run.facts!,
  });
}

/** The parts of the model the facts make: the compare pages, the plan pages (plan, money) and which bundle shows each. */
const factParts = (m: SiteModel) => JSON.stringify({ compare: m.compare, bundles: m.bundles, plans: m.plans });

/** The path of a board's compare facts entry. */
function entryOf(cache: CacheStore, report: Report, boardId: string): string {
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const board = report.boards.find((b) => b.board_id === boardId)!;
  return factsPath(cache, factsKey(compareInputsDigest(report, board, cohorts, loaded.config.compare_max_cohorts)));
}

describe('the site facts of the demo', () => {
  it('computed below the site, they give the golden model its compare pages and plan pages byte for byte; without them the site computes nothing and stops', async () => {
    const run = await demoRun();
    expect(run.facts!.report_id).toBe(run.report.report_id);
    expect(run.factsCompare).toEqual({ reused: 0, computed: run.report.boards.length });
    const model = await modelOf(run);
    expect(factParts(model)).toBe(factParts(golden));
    // 22 compare pages on 3 boards, those with per-task sides with their delta of 2,000 resamples; 26 plan pages, every plan the evidence's object.
    expect(Object.values(model.compare).reduce((n, c) => n + Object.keys(c.pages).length, 0)).toBe(22);
    const deltas = Object.values(run.facts!.compare).flatMap((c) => c.pages.flatMap((p) => (p.delta === null ? [] : [p.delta])));
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((d) => d.resamples === 2000 && d.interval !== null)).toBe(true);
    const shown = model.bundles.filter((b) => b.page !== null);
    expect(shown).toHaveLength(26);
    for (const b of shown) expect(b.page!.plan).toBe(run.facts!.plans[b.content_digest]);
    // Money: the facts' numbers are the page's (exact integers as text).
    const withMoney = shown.filter((b) => b.page!.money !== null);
    expect(withMoney.length).toBeGreaterThan(0);
    for (const b of withMoney) expect(b.page!.money).toEqual(run.facts!.money[b.report]!.money);
    // No fallback: the model is never built without the facts (a type error, and a bug that stops the build).
    const options = { retained: await readRetained(retainedDir), sourceDate: null, history: run.history! };
    // @ts-expect-error facts are required
    await expect(buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config, options)).rejects.toThrow(/built from the site facts/);
    // @ts-expect-error facts are required
    await expect(buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config)).rejects.toThrow(/built from the site facts/);
    // Facts without a bundle's verified plan: the plan page's plan.json is never parsed again, the build stops.
    const planless = { ...run.facts!, plans: {} };
    await expect(buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config, { ...options, facts: planless })).rejects.toThrow(/verified without a plan in its site facts/);
  });

  it('facts of another report, or under another cap, stop the build (a bug)', async () => {
    const run = await demoRun();
    const other = { ...run.facts!, report_id: `sha256:${'0'.repeat(64)}` };
    await expect(buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config, { facts: other })).rejects.toThrow(/site facts are of report/);
    const capped = (await computeSiteFacts(run.report, run.results, { cap: 7 })).facts;
    await expect(buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config, { facts: capped })).rejects.toThrow(/compare_max_cohorts 7/);
  });
});

describe('the facts cache', () => {
  it('a second run takes every board\'s compare facts (no bootstrap) and gives identical facts; a report kept or not', async () => {
    const cache = await cacheDir();
    const cold = await demoRun(cache);
    const boards = cold.report.boards.length;
    expect(cold.factsCompare).toEqual({ reused: 0, computed: boards });
    const warm = await demoRun(cache);
    expect(warm.reportCached).toBe(true);
    expect(warm.factsCompare).toEqual({ reused: boards, computed: 0 });
    expect(JSON.stringify(warm.facts!.compare)).toBe(JSON.stringify(cold.facts!.compare));
    expect(JSON.stringify(warm.facts!.money)).toBe(JSON.stringify(cold.facts!.money));
    expect(warm.facts!.plans).toEqual(cold.facts!.plans);
    expect(factParts(await modelOf(warm))).toBe(factParts(golden));
    const first = (await readFile(entryOf(cache, cold.report, cold.report.boards[0]!.board_id), 'utf8')).split('\n')[0]!;
    expect(first).toMatch(new RegExp(`^${FACTS_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64} hmac-sha256:[0-9a-f]{64}$`));
  });

  it('an entry that does not check is ignored, computed again and rewritten: a byte edited, a stranger\'s seal, another board\'s facts, the wrong shape', async () => {
    const cache = await cacheDir();
    const cold = await demoRun(cache);
    const report = cold.report;
    const boards = report.boards.length;
    const expected = JSON.stringify(cold.facts!.compare);
    // The board with the most compare pages (15), and another with pages.
    const [big, small] = [...report.boards].sort((a, b) => cold.facts!.compare[b.board_id]!.pages.length - cold.facts!.compare[a.board_id]!.pages.length);
    const path = entryOf(cache, report, big!.board_id);
    const original = await readFile(path);
    const header = original.subarray(0, original.indexOf(0x0a) + 1).toString('latin1');
    const key = header.split(' ')[1]!;
    const body = original.subarray(header.length);
    const seal = (b: Uint8Array, secret?: Uint8Array) => Buffer.concat([Buffer.from(sealHeader(FACTS_CACHE_FORMAT, key, b, secret), 'latin1'), b]);

    // A page's delta edited in place: "rate":-0.39... to "rate":-0.29... (the seal no longer checks).
    const edited = Buffer.from(original);
    const at = edited.indexOf('"rate":', header.length) + '"rate":'.length + 3;
    edited[at] = edited[at] === 0x31 ? 0x32 : 0x31;
    const bodyText = JSON.parse(body.toString('utf8')) as { board_id: string; facts: { pages: { delta: { rate: unknown } }[] } };
    const otherBody = await readFile(entryOf(cache, report, small!.board_id));
    const otherFacts = otherBody.subarray(otherBody.indexOf(0x0a) + 1);
    const plants: [string, Buffer][] = [
      ['a byte edited', edited],
      ['sealed by a stranger', seal(Buffer.from(JSON.stringify({ ...bodyText })), STRANGER_SECRET)],
      ['another board\'s facts, sealed', seal(Buffer.from(JSON.stringify({ ...JSON.parse(otherFacts.toString('utf8')), board_id: big!.board_id })))],
      ['a delta that is text, sealed', seal(Buffer.from(JSON.stringify({ ...bodyText, facts: { ...bodyText.facts, pages: bodyText.facts.pages.map((p, i) => (i === 0 ? { ...p, delta: { ...p.delta, rate: '-0.2' } } : p)) } })))],
    ];
    for (const [what, bytes] of plants) {
      await writeFile(path, bytes);
      const run = await demoRun(cache);
      expect(run.factsCompare, what).toEqual({ reused: boards - 1, computed: 1 });
      expect(JSON.stringify(run.facts!.compare), what).toBe(expected);
      // Rewritten: the entry is the original bytes again (the facts and their JSON are deterministic).
      expect(Buffer.compare(await readFile(path), original), what).toBe(0);
    }
    expect((await demoRun(cache)).factsCompare).toEqual({ reused: boards, computed: 0 });
  });
});
