/**
 * The build's effects (src/site/build/effects.ts) and incremental renders
 * (src/site/model/page-slices.ts, build-site.ts renderSite):
 *
 * - a build in memory writes the same files, byte for byte, as the same
 *   build on disk;
 * - a rebuild takes from the previous output only pages whose key is kept
 *   and whose bytes re-hash to the kept listing: a page altered on disk is
 *   rendered again, an untouched output renders nothing (Astro does not
 *   run), and the result is always the bytes of a --no-cache build;
 * - another config renders every page again;
 * - an added bundle on a site of several ledgers and boards renders exactly
 *   the pages whose bytes it changes (besides the pages Astro always
 *   renders): the report-wide parts of every page (the citation meta tags,
 *   the footer) are stamped after the render (src/site/build/stamp.ts), so a page
 *   taken from the previous output is stamped again for the new report;
 * - evidence text that spells a stamp marker is escaped on the page and
 *   stamped around; a page with a marker missing or repeated fails the stamp.
 */
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { SiteBuildResult } from '../../src/site/build/build-site.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { memoryEffects } from '../../src/site/build/effects.ts';
import { FIXED_PAGES } from '../../src/site/model/page-paths.ts';
import { CITE_FOOT_MARKER, citeHeadMarker } from '../../src/site/views/cite.ts';
import { restamp, stampPage } from '../../src/site/build/stamp.ts';
import { CANDIDATE, makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
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

/**
 * A page's bytes without the parts the stamp writes (src/site/build/stamp.ts): the
 * citation meta tags and the footer's content, which name the current report
 * on every page and so differ on every page when a bundle is added.
 */
function unstamped(bytes: Uint8Array): string {
  const html = Buffer.from(bytes).toString('utf8');
  const head = html.indexOf('<meta name="citation_title"');
  const headEnd = html.indexOf('<meta property="og:title"');
  const foot = html.indexOf('<footer>');
  const footEnd = html.lastIndexOf('</footer>');
  expect(head > 0 && headEnd > head && foot > headEnd && footEnd > foot).toBe(true);
  return html.slice(0, head) + html.slice(headEnd, foot) + html.slice(footEnd);
}

/**
 * The pages whose file is new, or has other bytes in `after` besides the stamped parts, with the pages Astro renders
 * whenever it runs: what an incremental build must render (the others are the previous bytes stamped again).
 */
function changedPages(before: ReadonlyMap<string, Uint8Array>, after: ReadonlyMap<string, Uint8Array>): string[] {
  const changed = [...after.keys()].filter((f) => f.endsWith('index.html') && !(before.has(f) && unstamped(before.get(f)!) === unstamped(after.get(f)!))).map(pageOf);
  return [...new Set([...changed, ...FIXED_PAGES])].sort();
}

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
      return buildSiteOf(buildReport(results, c), results, c, {
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

    // An added bundle: the bytes of a --no-cache build of both bundles, every page rendered again only if its bytes change.
    await dropStamps();
    await build(one, out, { cache });
    const added = await build(two, out, { cache });
    await build(two, join(work, 'full-two'));
    const fullTwo = await siteBytes(join(work, 'full-two'));
    expectSame(fullTwo, await siteBytes(out));
    expect(added.rendered).toEqual(changedPages(fullOne, fullTwo));
  }, 600_000);
});

describe('an added bundle on a site of several ledgers and boards', () => {
  it('renders exactly the pages whose bytes change, and the result is the bytes of a --no-cache build', async () => {
    const work = await makeTempDir('lb-incremental-added-');
    const x = validBundle();
    x.plan.title = 'BOARD X FIRST';
    // Another board on the same ledger (another isolation): its cohorts are incompatible with X's.
    const y = validBundle();
    y.plan.title = 'BOARD Y';
    y.plan.environment.isolation = 'container';
    // Another ledger.
    const z = validBundle();
    z.plan.title = 'BOARD Z';
    z.plan.ledger.name = 'gadget-bugs';
    z.ledger[0]!.license = 'Apache-2.0';
    // The added bundle: a new candidate on board X (a new cohort; the baseline's cohort pools more attempts).
    const added = validBundle();
    added.plan.title = 'BOARD X SECOND';
    for (const subject of added.plan.subjects) if (subject.role === 'candidate') subject.model = 'acme/newer-2026-09-01';
    for (const attempt of added.attempts) if (attempt.model === CANDIDATE.model) Object.assign(attempt, { model: 'acme/newer-2026-09-01', observed_model: 'acme/newer-2026-09-01' });
    const paths = [await writeModel(x), await writeModel(y), await writeModel(z)];
    const before: Results = await verifyPaths(paths);
    const after: Results = await verifyPaths([...paths, await writeModel(added)]);
    for (const r of after) expect(r.verification?.status, JSON.stringify(r.verification).slice(0, 600)).toBe('verified');
    const config = Config.parse({ title: 'Several boards', site_url: 'https://example.org/' });
    const build = (results: Results, outDir: string, cache?: string): Promise<SiteBuildResult> =>
      buildSiteOf(buildReport(results, config), results, config, { retainedDir: join(work, 'no-retained'), outDir, sourceDate: null, log: () => undefined, ...(cache === undefined ? {} : { renderCache: testCache(cache) }) });

    await build(before, join(work, 'full-before'));
    await build(after, join(work, 'full-after'));
    const fullBefore = await siteBytes(join(work, 'full-before'));
    const fullAfter = await siteBytes(join(work, 'full-after'));
    const reportOf = async (dir: string) => JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { boards: unknown[]; cohorts: unknown[] };
    expect((await reportOf(join(work, 'full-before'))).boards.length).toBe(3);
    expect((await reportOf(join(work, 'full-after'))).cohorts.length).toBe(7);

    const cache = join(work, 'cache');
    const out = join(work, 'out');
    await build(before, out, cache);
    const rebuilt = await build(after, out, cache);
    expectSame(fullAfter, await siteBytes(out));
    const expected = changedPages(fullBefore, fullAfter);
    expect(rebuilt.rendered).toEqual(expected);
    // What the new bundle changes, and what it does not: its board's page, its cohorts' pages, its plan page are rendered;
    // the other boards' pages, their task and compare pages and the other plans' pages are taken and stamped again.
    const pages = [...fullAfter.keys()].filter((f) => f.endsWith('index.html')).map(pageOf);
    const kept = pages.filter((p) => !expected.includes(p));
    expect(expected.filter((p) => p.startsWith('/cohorts/')).length).toBeGreaterThanOrEqual(2);
    expect(expected.filter((p) => p.startsWith('/plans/')).length).toBeGreaterThanOrEqual(1);
    expect(kept.filter((p) => p.startsWith('/boards/') && !p.includes('/tasks/') && !p.includes('/compare/')).length).toBe(2);
    // The plan pages: only the new plan's is rendered. Boards Y and Z's plans are kept, and so is board X's first plan:
    // it feeds the baseline cohort the new bundle joins, but its page shows of that cohort only its name, role and
    // verdict (the pooled counts only on an imported plan's page), which the new bundle does not change.
    const planPages = (files: ReadonlyMap<string, Uint8Array>) => [...files.keys()].filter((f) => f.startsWith('plans/') && f.endsWith('index.html')).map(pageOf).sort();
    const newPlans = planPages(fullAfter).filter((p) => !planPages(fullBefore).includes(p));
    expect(newPlans.length).toBe(1);
    expect(expected.filter((p) => p.startsWith('/plans/'))).toEqual(newPlans);
    expect(kept.filter((p) => p.startsWith('/plans/')).sort()).toEqual(planPages(fullBefore));
    expect(kept.filter((p) => p.startsWith('/plans/')).length).toBe(3);
    expect(kept.filter((p) => p.includes('/tasks/')).length).toBeGreaterThan(0);
    // A kept page names the new report: its stamped parts are this build's.
    const newId = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')).report_id as string;
    for (const p of kept) {
      const html = Buffer.from(fullAfter.get(p === '/' ? 'index.html' : `${p.slice(1)}index.html`)!).toString('utf8');
      expect(html, p).toContain(`<meta name="citation_technical_report_number" content="${newId}">`);
      expect(html, p).toContain(`data-cite-report="${newId}"`);
    }
  }, 600_000);
});

describe('the stamp markers', () => {
  it('evidence that spells a marker is escaped on its pages, and the build stamps every page once', async () => {
    const work = await makeTempDir('lb-incremental-marker-');
    const hostile = validBundle();
    // The markers as they are (src/site/views/cite.ts), and as they were first written (without the quote).
    const foot = '<!--ledgerboard:"cite-foot"-->';
    const headStart = '<!--ledgerboard:"cite-head" ';
    hostile.plan.title = `plan ${foot} and ${headStart}["x","/",null]--> <!--ledgerboard:cite-foot-->`;
    hostile.notes = `# Notes\n\n${foot}\n\n\`${headStart}[1]-->\`\n\n<b>${foot}</b> <img alt='${foot}' src="x">\n`;
    hostile.ledger[0]!.failing_assertion = `assert x == '${foot}'`;
    const results: Results = await verifyPaths([await writeModel(hostile)]);
    const config = Config.parse({ title: `Marker ${foot} board`, site_url: 'https://example.org/' });
    const out = join(work, 'out');
    await buildSiteOf(buildReport(results, config), results, config, { retainedDir: join(work, 'no-retained'), outDir: out, sourceDate: null, log: () => undefined });
    const files = await siteBytes(out);
    const html = [...files].filter(([f]) => f.endsWith('.html'));
    expect(html.length).toBeGreaterThan(5);
    const report = JSON.parse(Buffer.from(files.get('report.json')!).toString('utf8')) as { report_id: string; bundles: { plan_id: string | null }[] };
    for (const [file, bytes] of html) {
      const text = Buffer.from(bytes).toString('utf8');
      expect(text.includes('<!--ledgerboard:"'), file).toBe(false);
      expect(text.split('<footer>').length, file).toBe(2);
      expect(text.split(`data-cite-report="`).length, file).toBe(2);
      expect(text.split('<meta name="citation_technical_report_number"').length, file).toBe(2);
    }
    const planHex = report.bundles[0]!.plan_id!.slice('sha256:'.length);
    const plan = Buffer.from(files.get(`plans/${planHex}/index.html`)!).toString('utf8');
    expect(plan).toContain('&lt;!--ledgerboard:&quot;cite-foot&quot;--&gt;');
    // The site's title and the plan's in the citation: an attribute value (only & and " escaped, as Astro writes them) and text.
    expect(plan).toContain('<meta name="citation_title" content="Marker <!--ledgerboard:&#34;cite-foot&#34;--> board: ');
    expect(plan).toMatch(/<p class="cite-plain">“Marker &lt;!--ledgerboard:&quot;cite-foot&quot;--&gt; board: /);
  }, 600_000);

  it('a page with a marker missing, repeated, or a stray marker prefix fails the stamp', () => {
    const ctx = { siteUrl: 'https://example.org/', siteTitle: 'T', date: null, reportId: `sha256:${'a'.repeat(64)}`, evidenceDate: null, generator: { name: 'ledgerboard', version: '0' }, base: '/' };
    const head = citeHeadMarker({ title: 'P <x> & "q"', path: '/p/', cites: null });
    expect(head.split('-->').length).toBe(2);
    expect(head.slice(4, -3)).not.toMatch(/[<>&]/);
    const page = (h: string, f: string) => Buffer.from(`<html><head>${h}</head><body><footer> ${f} </footer></body></html>`);
    const ok = stampPage(ctx, 'p.html', page(head, CITE_FOOT_MARKER));
    const text = ok.bytes.toString('utf8');
    expect(text).toContain('<meta name="citation_title" content="T: P <x> &#38; &#34;q&#34;">');
    expect(text).toContain('<p class="cite-plain">“T: P &lt;x&gt; &amp; &quot;q&quot;”. https://example.org/p/ (ledgerboard report sha256:aaaa');
    expect(text).toContain('no dated evidence');
    // Stamped again at the recorded offsets for another report: the bytes a fresh stamp of the rendered page gives.
    const other = { ...ctx, reportId: `sha256:${'b'.repeat(64)}`, date: '2026-01-02T03:04:05Z', evidenceDate: '2026-01-02T03:04:05Z' };
    expect(restamp(other, ok.bytes, ok.stamped.at, ok.stamped.cite).bytes.equals(stampPage(other, 'p.html', page(head, CITE_FOOT_MARKER)).bytes)).toBe(true);
    expect(() => stampPage(ctx, 'p.html', page('', CITE_FOOT_MARKER))).toThrow(/0 head and 1 foot/);
    expect(() => stampPage(ctx, 'p.html', page(head, ''))).toThrow(/1 head and 0 foot/);
    expect(() => stampPage(ctx, 'p.html', page(head + head, CITE_FOOT_MARKER))).toThrow(/2 head and 1 foot/);
    expect(() => stampPage(ctx, 'p.html', page(head, CITE_FOOT_MARKER + CITE_FOOT_MARKER))).toThrow(/1 head and 2 foot/);
    expect(() => stampPage(ctx, 'p.html', page(head, `${CITE_FOOT_MARKER}<!--ledgerboard:"other-->`))).toThrow(/3 "<!--ledgerboard:"" in all/);
  });
});
