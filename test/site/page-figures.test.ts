/**
 * The figures a verifier reads (src/site/model/page-figures.ts, issue 24 item 1):
 * every headline figure the leaderboard, the board pages and the cohort pages
 * show is a `<span data-figure="<cohort hex>:<name>">` whose text is
 * `cohortFigures`' text, so a verifier holding only report.json knows every
 * page's figures and finds a page edited to show another one.
 *
 * One build of the demo (as `npm run build` makes it), one build of two
 * bundles whose model, agent and task names come from the XSS and
 * naughty-strings corpora, served under a base path.
 */
import { readdir, readFile, writeFile, cp } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { rebaseHtml } from '../../src/site/build/base-path.ts';
import { attr, text } from '../../src/site/views/html.ts';
import { hexOf } from '../../src/site/views/format.ts';
import {
  FIGURE_ATTRIBUTE,
  FIGURE_NAMES,
  NOT_A_FIGURE_LEAF,
  cohortFigures,
  comparePageFigures,
  decodeEntities,
  expectedPageFigures,
  readPageFigures,
} from '../../src/site/model/page-figures.ts';
import { buildSite } from '../browser/browser.ts';
import { sharedDemoBuild } from '../browser/shared-demo.ts';
import { hostileModel, hostileSpecs, readCorpora, type HostileCorpora } from '../browser/hostile.ts';
import { makeTempDir, removeTempDirs, writeModel } from '../helpers/bundle-builder.ts';

interface Built {
  out: string;
  report: Report;
}

let demo: Built;
let hostile: Built;
let corpora: HostileCorpora;

async function open(out: string): Promise<Built> {
  return { out, report: JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report };
}

/** A page's HTML by URL path ("/boards/<hex>/"). */
async function page(site: Built, path: string): Promise<string> {
  return readFile(join(site.out, ...path.split('/').filter(Boolean), 'index.html'), 'utf8');
}

/** Every page of a built site (each index.html), by URL path. */
async function allPages(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name === 'index.html')
    .map((e) => {
      const rel = relative(dir, e.parentPath).split(sep).filter(Boolean).join('/');
      return rel === '' ? '/' : `/${rel}/`;
    })
    .sort();
}

beforeAll(async () => {
  const work = await makeTempDir('ledgerboard-page-figures-');
  corpora = await readCorpora();
  demo = await open(await sharedDemoBuild());
  // Two verified bundles whose subjects and tasks are corpus strings, on a site under a base path.
  const bundles = join(work, 'hostile-bundles');
  for (const spec of hostileSpecs(corpora, 2)) await cp(await writeModel(hostileModel(spec)), join(bundles, spec.tag), { recursive: true });
  const config = join(work, 'hostile.config.json');
  await writeFile(config, JSON.stringify({ title: 'figures <span data-figure="x:rate">95%</span>', site_url: 'https://hostile.example/board/' }));
  await buildSite({ bundles, out: join(work, 'hostile'), config });
  hostile = await open(join(work, 'hostile'));
}, 240_000);

afterAll(async () => {
  await removeTempDirs();
});

describe('the demo site', () => {
  it('every page carries exactly the figures the report gives it: the leaderboard, every board and every cohort page', async () => {
    const expected = expectedPageFigures(demo.report);
    expect(expected.size).toBe(1 + demo.report.boards.length + demo.report.cohorts.length);
    for (const [path, figures] of expected) {
      expect(figures.size, path).toBeGreaterThan(0);
      expect(comparePageFigures(figures, await page(demo, path)), path).toEqual([]);
    }
    // Every cohort's headline rate is on its page and on its board's page, as cohortFigures writes it.
    for (const c of demo.report.cohorts) {
      const rate = cohortFigures(demo.report, c).find((f) => f.key.endsWith(':rate'))!;
      expect(expected.get(`/cohorts/${hexOf(c.cohort_id)}/`)!.get(rate.key)).toBe(rate.text);
    }
  });

  it('the board order given or derived gives the same figures', () => {
    const order = boardsInOrder(demo.report).map((b) => demo.report.boards.indexOf(b));
    expect([...expectedPageFigures(demo.report, order)]).toEqual([...expectedPageFigures(demo.report)]);
  });

  it('no other page carries a cohort figure (retained reports show another report, compare pages have names of their own)', async () => {
    const expected = expectedPageFigures(demo.report);
    const others = (await allPages(demo.out)).filter((p) => !expected.has(p));
    expect(others.some((p) => p.startsWith('/reports/'))).toBe(true);
    for (const path of others) {
      const keys = [...readPageFigures(await page(demo, path)).keys()];
      expect(keys.filter((k) => k.includes(':')), path).toEqual([]);
    }
  });

  it('every key is <cohort hex>:<name>, every figure a leaf span, and the verdicts and figures are the report\'s', async () => {
    const found = readPageFigures(await page(demo, '/'));
    for (const [key, texts] of found) {
      expect(key).toMatch(new RegExp(`^[0-9a-f]{64}:(${FIGURE_NAMES.join('|')})$`));
      expect(texts).not.toContain(NOT_A_FIGURE_LEAF);
    }
    const names = new Set([...expectedPageFigures(demo.report).values()].flatMap((m) => [...m.keys()].map((k) => k.split(':')[1])));
    expect([...names].sort()).toEqual([...FIGURE_NAMES].sort());
  });

  it('a page edited to show another rate is found, naming the figure and both texts', async () => {
    const expected = expectedPageFigures(demo.report);
    const c = demo.report.cohorts.find((x) => x.headline.rate !== null && x.verdict !== null)!;
    const path = `/boards/${hexOf(c.board_id)}/`;
    const html = await page(demo, path);
    const rate = cohortFigures(demo.report, c).find((f) => f.key.endsWith(':rate'))!;
    const forged = html.replace(`<span ${FIGURE_ATTRIBUTE}="${rate.key}">${rate.text}</span>`, `<span ${FIGURE_ATTRIBUTE}="${rate.key}">95.0%</span>`);
    expect(forged).not.toBe(html);
    expect(comparePageFigures(expected.get(path)!, forged)).toEqual([{ key: rate.key, expected: rate.text, found: ['95.0%'] }]);
    // The verdict, on the cohort page.
    const cohortPath = `/cohorts/${hexOf(c.cohort_id)}/`;
    const verdictKey = `${hexOf(c.cohort_id)}:verdict`;
    const other = c.verdict === 'PASS' ? 'REGRESSION' : 'PASS';
    const cohortHtml = (await page(demo, cohortPath)).replace(`${verdictKey}">${c.verdict}<`, `${verdictKey}">${other}<`);
    expect(comparePageFigures(expected.get(cohortPath)!, cohortHtml)).toEqual([{ key: verdictKey, expected: c.verdict, found: [other] }]);
  });

  it('a figure span removed, unwrapped, hidden in a comment or a script, or made a non-leaf, is found', async () => {
    const expected = expectedPageFigures(demo.report).get('/')!;
    const html = await page(demo, '/');
    const [key, value] = [...expected][0]!;
    const span = `<span ${FIGURE_ATTRIBUTE}="${key}">${value}</span>`;
    expect(html).toContain(span);
    const missing = { key, expected: value, found: [] };
    expect(comparePageFigures(expected, html.replace(span, ''))).toEqual([missing]);
    expect(comparePageFigures(expected, html.replace(span, value))).toEqual([missing]);
    expect(comparePageFigures(expected, html.replace(span, `95%<!-- ${span} -->`))).toEqual([missing]);
    expect(comparePageFigures(expected, html.replace(span, `95%<script>/* ${span} */</script>`))).toEqual([missing]);
    expect(comparePageFigures(expected, html.replace(span, `<span title='${span}'>95%</span>`))).toEqual([missing]);
    // Not a leaf, another attribute, another element: read, and not the figure's text.
    for (const odd of [`<span ${FIGURE_ATTRIBUTE}="${key}"><b>${value}</b></span>`, `<span ${FIGURE_ATTRIBUTE}="${key}" hidden>${value}</span>`, `<b ${FIGURE_ATTRIBUTE}="${key}">${value}</b>`]) {
      expect(comparePageFigures(expected, html.replace(span, odd)), odd).toEqual([{ key, expected: value, found: [NOT_A_FIGURE_LEAF] }]);
    }
  });

  it('a second occurrence with another text, and a figure the report does not give the page, are found', async () => {
    const expected = expectedPageFigures(demo.report).get('/')!;
    const html = await page(demo, '/');
    const [key, value] = [...expected][0]!;
    const twice = html.replace('</main>', `<span ${FIGURE_ATTRIBUTE}="${key}">99.9%</span></main>`);
    expect(twice).not.toBe(html);
    expect(comparePageFigures(expected, twice)).toEqual([{ key, expected: value, found: [value, '99.9%'] }]);
    const extra = html.replace('</main>', `<span ${FIGURE_ATTRIBUTE}="${'0'.repeat(64)}:rate">100.0%</span></main>`);
    expect(comparePageFigures(expected, extra)).toEqual([{ key: `${'0'.repeat(64)}:rate`, expected: '', found: ['100.0%'] }]);
  });

  it('the base-path rewrite leaves every figure as it is', async () => {
    const expected = expectedPageFigures(demo.report);
    for (const path of ['/', `/boards/${hexOf(demo.report.boards[0]!.board_id)}/`, `/cohorts/${hexOf(demo.report.cohorts[0]!.cohort_id)}/`]) {
      expect(comparePageFigures(expected.get(path)!, rebaseHtml(await page(demo, path), '/board/')), path).toEqual([]);
    }
  });
});

describe('one module for the pages and the verifiers', () => {
  it('bundles for a browser worker alone: no node:*, no astro, no zod', async () => {
    const result = await build({ entryPoints: ['src/site/model/page-figures.ts'], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' });
    const code = result.outputFiles[0]!.text;
    expect(code).toContain('function readPageFigures');
    expect(code).not.toMatch(/from ["'](node:|astro|zod)/);
    expect(code.length).toBeLessThan(32_000);
  });
});

describe('untrusted text does not confuse the parser', () => {
  it('a site whose models, agents and tasks are corpus strings, under a base path, carries exactly its figures', async () => {
    const expected = expectedPageFigures(hostile.report);
    expect(hostile.report.cohorts.length).toBeGreaterThanOrEqual(2);
    expect(hostile.report.cohorts.some((c) => c.subject.model.includes('<script>'))).toBe(true);
    for (const [path, figures] of expected) expect(comparePageFigures(figures, await page(hostile, path)), path).toEqual([]);
    for (const path of await allPages(hostile.out)) {
      if (expected.has(path)) continue;
      expect([...readPageFigures(await page(hostile, path)).keys()].filter((k) => k.includes(':')), path).toEqual([]);
    }
  });

  it('every corpus string, escaped as Astro escapes text and attributes, around a figure, leaves exactly that figure', () => {
    const key = `${'a'.repeat(64)}:rate`;
    const strings = [...corpora.xss, ...corpora.blns, `<span ${FIGURE_ATTRIBUTE}="${key}">95%</span>`, `<span data-figure='${key}'>95%</span>`, '<!--', '<script>', '<title>', "'", '"'];
    for (const s of strings) {
      const html = `<p${attr('title', s)}${attr('data-model', s)}>${text(s)}</p><td class="num"><span ${FIGURE_ATTRIBUTE}="${key}">57.1%</span></td><li>${text(s)}</li>`;
      const found = readPageFigures(html);
      expect([...found], s).toEqual([[key, ['57.1%']]]);
    }
  });

  it('character references decode as a browser reads them', () => {
    expect(decodeEntities('&amp;&lt;&gt;&quot;&#39;&#38;&#34;&#x27;&#X3C;&nbsp;&copy;&#0;&#x110000;')).toBe('&<>"\'&"\'<\u00a0&copy;\ufffd\ufffd');
    expect(readPageFigures('<span data-figure="k&#38;1">a &amp; b &lt;c&gt;</span>')).toEqual(new Map([['k&1', ['a & b <c>']]]));
  });
});
