/**
 * Every page of the demo (as `npm run build` makes it), walked once: each page
 * is loaded once with JavaScript off and once with it on, and every per-page
 * check of test/browser/page-checks.ts that lists the page reads it there.
 * The tests below assert over what the walk read, each check in its own
 * tests, naming the page in every assertion. They were, before one walk
 * served them all:
 *
 * - from copy.browser.test.ts (issue 13, item 1): without JavaScript no Copy
 *   button is visible on any page with a digest, the status regions are
 *   empty, and every digest still shows its full value on demand;
 * - from ux.browser.test.ts (issue 13, "Done when"): no page scrolls sideways
 *   on a phone: at a 390x844 viewport, JavaScript on,
 *   `document.documentElement.scrollWidth <= window.innerWidth` on EVERY page
 *   (a failure names the elements that stick out, with their width and right
 *   edge), one test per page kind; and that the measure sees what it looks for;
 * - from tasks.browser.test.ts (issue 28, item 5): no task page of the demo is
 *   wider than the viewport at 390 and 1280 px, JavaScript off (the site of
 *   13 attempts per cohort and task stays there).
 *
 * The pages are those of sitemap.xml plus the fixed pages (/rejected/,
 * /incompatibilities/, /verify/, /reports/) and /methodology/ when the built
 * site has one. Chromium must be at /usr/bin/chromium: the suite fails (never
 * skips) without it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sitemapPaths } from './browser.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';
import { measureOverflow } from './overflow.ts';
import { PHONE, TASK_WIDTHS, walkPages, type Walk } from './page-checks.ts';
import { KINDS, pagesByKind, type Kind } from './page-kinds.ts';

let site: DemoSite;
let walk: Walk;
/** Every page, by kind, in sitemap order. */
let pages: Map<Kind, string[]>;
/** Whether the built site has /methodology/ (issue 13 adds it; checked like every other page once it exists). */
let hasMethodology = false;
/** The pages copy.browser.test.ts walked: sitemap.xml's and /verify/. */
let copyPages: string[];
/** The demo's task pages, from sitemap.xml. */
let taskPages: string[];

beforeAll(async () => {
  site = await openDemoSite();
  const sitemap = await sitemapPaths(site.out);
  hasMethodology = existsSync(join(site.out, 'methodology', 'index.html'));
  pages = pagesByKind(sitemap, hasMethodology);
  // /verify/ once: copy.browser.test.ts added it to the sitemap's pages, which since list it.
  copyPages = [...new Set([...sitemap, '/verify/'])];
  taskPages = sitemap.filter((p) => /^\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/$/.test(p));
  walk = await walkPages(site, site.server.origin, {
    copyWithoutJs: copyPages,
    taskWidths: taskPages,
    phoneOverflow: [...pages.values()].flat(),
  });
}, 900_000);

afterAll(() => site?.close(), 60_000);

/** The pages of a kind; the demo has every kind, so none is checked vacuously. */
function pagesOf(kind: Kind): string[] {
  const list = pages.get(kind) ?? [];
  if (list.length === 0) throw new Error(`the demo site has no ${kind} page`);
  return list;
}

describe('the walk', () => {
  it('loaded every page once per browser, each answering 200, and no page opened a dialog', () => {
    const all = [...pages.values()].flat();
    expect(walk.loads.jsOn).toBe(all.length);
    expect(walk.loads.jsOff).toBe(new Set([...copyPages, ...taskPages]).size);
    for (const lane of ['jsOn', 'jsOff'] as const) {
      for (const [path, status] of walk.status[lane]) expect(status, `${path} (${lane})`).toBe(200);
      expect(walk.dialogs[lane]).toEqual([]);
    }
  });
});

describe('without JavaScript (copy.browser.test.ts)', () => {
  it('no Copy button is visible on any page, every status is empty, and every digest still shows its full value on demand', () => {
    expect(walk.errors.copyWithoutJs).toEqual([]);
    expect([...walk.facts.copyWithoutJs.keys()]).toEqual(copyPages);
    let digests = 0;
    for (const [path, f] of walk.facts.copyWithoutJs) {
      const n = f.digests;
      digests += n;
      expect(f.copyButtons, path).toBe(n);
      for (const visible of f.buttonsVisible) expect(visible, path).toBe(false);
      expect(f.copyRoleButtons, path).toBe(0);
      for (const status of f.statuses) expect(status, path).toBe('');
      expect(f.fullValues.filter((t) => /^sha256:[0-9a-f]{64}$/.test(t)).length, path).toBe(n);
    }
    // The board, plan, cohort, retained report, leaderboard and /verify/ pages each have one.
    expect(digests).toBeGreaterThan(site.report.boards.length + site.report.cohorts.length);
  });
});

describe('no page scrolls sideways at 390x844 (ux.browser.test.ts)', () => {
  for (const kind of KINDS) {
    it(`${kind}: every page fits 390 px`, () => {
      if (kind === 'methodology' && !hasMethodology) {
        expect(existsSync(join(site.out, 'methodology'))).toBe(false);
        return;
      }
      const list = pagesOf(kind);
      expect(walk.errors.phoneOverflow.filter((e) => list.some((p) => e.startsWith(`${p}: `)))).toEqual([]);
      const problems: string[] = [];
      for (const path of list) {
        expect(walk.status.jsOn.get(path), path).toBe(200);
        const o = walk.facts.phoneOverflow.get(path);
        expect(o, path).toBeDefined();
        expect(o!.innerWidth, path).toBe(PHONE.width);
        if (o!.scrollWidth > o!.innerWidth) {
          const who = o!.offenders.map((e) => `${e.selector} (width ${e.width}, right edge ${e.right})`).join('; ');
          problems.push(`${path}: document ${o!.scrollWidth} px wide at ${o!.innerWidth}: ${who || 'no element found'}`);
        }
      }
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }

  it('the overflow check sees what it looks for (not vacuous): a planted wide element and a planted unbreakable line are named; the same inside a scroll box is not', async () => {
    await withPage(site.jsOn, async (page) => {
      await page.setViewportSize(PHONE);
      await page.setContent(
        '<!doctype html><html><body style="margin:0"><main id="main">' +
          '<div class="wide" style="width:900px">w</div>' +
          '<p class="line" style="white-space:nowrap">' + 'x'.repeat(200) + '</p>' +
          '<div style="overflow-x:auto"><div class="hidden" style="width:3000px">s</div></div>' +
          '</main></body></html>',
      );
      const o = await measureOverflow(page);
      expect(o.scrollWidth).toBeGreaterThan(PHONE.width);
      const named = o.offenders.map((e) => e.selector).join('\n');
      expect(named).toContain('main#main > div.wide');
      expect(named).toContain('main#main > p.line text');
      expect(named).not.toContain('hidden');
      expect(o.offenders.find((e) => e.selector === 'main#main > div.wide:nth-of-type(1)')).toEqual({ selector: 'main#main > div.wide:nth-of-type(1)', width: 900, right: 900 });
    });
  });
});

describe('task pages, JavaScript off (tasks.browser.test.ts)', () => {
  it('no task page of the demo is wider than the viewport at 390 and 1280 px', () => {
    expect(taskPages.length).toBeGreaterThan(10);
    expect(walk.errors.taskWidths).toEqual([]);
    expect([...walk.facts.taskWidths.keys()]).toEqual(taskPages);
    const wide: string[] = [];
    for (const [path, widths] of walk.facts.taskWidths) {
      expect(widths.map((w) => w.width), path).toEqual([...TASK_WIDTHS]);
      for (const { width, scrollWidth } of widths) if (scrollWidth > width) wide.push(`${width}px ${path}: ${scrollWidth}px`);
    }
    expect(wide).toEqual([]);
  });
});
