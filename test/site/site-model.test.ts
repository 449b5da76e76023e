/**
 * The site model (issue 12, point 3): plain data built from the report and
 * what the build publishes, and nothing else. The demo's model matches the
 * committed golden file (regenerate it only with `npm run golden`, and
 * review the diff); JSON round-trips it exactly (it reaches Astro as a
 * module of JSON); a plan page's money is the report's; the model reads no
 * evidence but the published bytes of the plan pages' plan.json, NOTES.md
 * and (imported) ledger.jsonl.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf, type Published } from '../../src/site/build/publish.ts';
import { siteModelPlugin, SITE_MODEL_MODULE, writeSiteModel } from '../../src/site/build/render.ts';
import { MAX_ROWS } from '../../src/site/views/rows.ts';
import { demoSiteModel, siteModelText } from '../golden/demo-site-model.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
afterAll(removeTempDirs);

const golden = () => readFile(new URL('../golden/demo-site-model.json', import.meta.url), 'utf8');

describe("the demo's site model", () => {
  it('matches the golden file (run `npm run golden` only for an intended change)', async () => {
    expect(siteModelText(await demoSiteModel(root))).toBe(await golden());
  }, 60_000);

  it('is plain data: JSON round-trips it exactly, and the module the pages import serves exactly that', async () => {
    const model = await demoSiteModel(root);
    expect(JSON.parse(JSON.stringify(model))).toStrictEqual(model);
    const file = join(await makeTempDir('ledgerboard-site-model-'), 'site-model.jsonl');
    await writeSiteModel(model, file);
    const plugin = siteModelPlugin(file);
    const id = plugin.resolveId(SITE_MODEL_MODULE)!;
    const code = plugin.load(id)!;
    const served = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { default: unknown };
    expect(served.default).toStrictEqual(model);
    expect(plugin.resolveId('./other.ts')).toBeUndefined();
  }, 60_000);
});

describe('the model stays bounded by what pages list', () => {
  it('holds the first MAX_ROWS files of a bundle and how many there are, whatever their number', async () => {
    const model = validBundle();
    for (let i = 0; i < MAX_ROWS + 5; i++) model.extra.set(`logs/${String(i).padStart(4, '0')}.txt`, new TextEncoder().encode(`line ${i}\n`));
    const results = await verifyPaths([await writeModel(model)]);
    const config = Config.parse({});
    const report = buildReport(results, config);
    const published = publishedOf(report, results);
    const [bundle] = (await modelOf(report, results, published, config)).bundles;
    expect(published.bundles[0]!.files.length).toBeGreaterThan(MAX_ROWS + 5);
    expect(bundle!.files).toEqual(published.bundles[0]!.files.slice(0, MAX_ROWS));
    expect(bundle!.fileCount).toBe(published.bundles[0]!.files.length);
    expect(bundle!.unpublishedCount).toBe(0);
  }, 60_000);
});

describe('a plan page', () => {
  it("shows the money the report holds for its bundle: it never sums the attempts again", async () => {
    const results = await verifyPaths([await writeModel(validBundle())]);
    const config = Config.parse({});
    const report = buildReport(results, config);
    const published = publishedOf(report, results);
    const before = (await modelOf(report, results, published, config)).bundles[0]!.page!.money!;
    // validBundle's attempts: 812,345 + 1,000 + 3,333,333 micros, one unavailable and one partial.
    expect(before).toMatchObject({ spent_micros: 4_146_678, complete: false, unavailable: 1, partial: 1, not_applicable: 1 });
    expect(before).toMatchObject({ currency: 'USD', aggregate_micros: 20_000_000, dispatches: '6', floor_micros: '3333333', per_attempt_micros: 3_333_333 });
    const cost = { ...report.bundles[0]!.cost!, micros: 42, unavailable: 0, partial: 0, complete: true };
    const edited = { ...report, bundles: [{ ...report.bundles[0]!, cost }] };
    const after = (await modelOf(edited, results, published, config)).bundles[0]!.page!.money!;
    expect(after).toMatchObject({ spent_micros: 42, complete: true, unavailable: 0, partial: 0 });
  });

  it('reads no evidence but the published NOTES.md of the bundle it shows: its plan is the verified evidence\'s (site facts), the task pages the attempt index\'s', async () => {
    const first = validBundle();
    first.plan.title = 'shown';
    first.notes = 'shown notes\n';
    const rejected = validBundle();
    rejected.plan.title = 'rejected';
    rejected.notes = 'never read\n';
    const results = await verifyPaths([await writeModel(first), await writeModel(rejected, { after: { 'NOTES.md': 'edited after sealing\n' } })]);
    const config = Config.parse({});
    const report = buildReport(results, config);
    const real = publishedOf(report, results);
    const read: string[] = [];
    const published: Published = {
      bundles: real.bundles,
      unmatchedRules: [],
      notWithheld: [],
      blob: (sha256) => {
        const owner = real.bundles.flatMap((b) => b.files.filter((f) => f.sha256 === sha256).map((f) => `${report.bundles[real.bundles.indexOf(b)]!.plan?.title} ${f.path}`));
        // The two bundles share some bytes (attempts, grades, ledger): a read counts as the shown bundle's when it holds them.
        read.push(owner.find((o) => o.startsWith('shown ')) ?? owner[0]!);
        return real.blob(sha256);
      },
    };
    const model = await modelOf(report, results, published, config);
    // The plan and the task pages come from the site facts (the verified plan, the attempt index): no plan.json, ledger,
    // attempts or grades is read back from the published bytes, and never a rejected bundle's file.
    expect([...new Set(read)].sort()).toEqual(['shown NOTES.md']);
    const shown = model.bundles.find((b) => b.page !== null)!;
    expect(shown.page!.notesHtml).toBe('<p>shown notes</p>');
    expect(model.bundles.filter((b) => b.page !== null)).toHaveLength(1);
  });
});
