/**
 * The site's cross-cutting UX acceptance checks (issue 13, "Done when"), over
 * the demo exactly as `npm run build` makes it, in a real browser (Debian's
 * Chromium through playwright-core):
 *
 * - no page scrolls sideways on a phone: at a 390x844 viewport,
 *   `document.documentElement.scrollWidth <= window.innerWidth` on EVERY page
 *   (a failure names the elements that stick out, with their width and right
 *   edge);
 * - no page's `<title>` holds a run of 12 or more hex digits (pages are titled
 *   by names, never by hashes);
 * - axe-core finds no violation of any impact (minor and moderate included,
 *   best practices such as `landmark-unique` included) in the light and the
 *   dark colour scheme, on every page kind.
 *
 * The pages are those of sitemap.xml plus the fixed pages (/rejected/,
 * /incompatibilities/, /verify/, /reports/) and /methodology/ when the built
 * site has one. Each page kind is one test, which lists every problem on every
 * page of that kind before failing. Chromium must be at /usr/bin/chromium: the
 * suite fails (never skips) without it.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/bundle-builder.ts';
import { launchBrowser, requireChromium, ROOT, sitemapPaths, type BrowserSession } from './browser.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

/** A phone: the width the issue measured at. */
const PHONE = { width: 390, height: 844 } as const;
const DESKTOP = { width: 1280, height: 900 } as const;
const SCHEMES = ['light', 'dark'] as const;
const HASH_RUN = /[0-9a-f]{12,}/i;

/** Every kind of page the site has; each must be present in the demo (methodology once the site has it). */
const KINDS = ['leaderboard', 'board', 'task', 'cohort', 'plan', 'report', 'reports', 'incompatibilities', 'rejected', 'verify', 'methodology', 'compare', 'transcript', 'model', 'agent', 'models', 'freeze-log'] as const;
type Kind = (typeof KINDS)[number];

function kindOf(path: string): Kind {
  if (path === '/') return 'leaderboard';
  if (/^\/boards\/[0-9a-f]{64}\/compare\/[0-9a-f]{64}\/[0-9a-f]{64}\/$/.test(path)) return 'compare';
  if (/^\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/$/.test(path)) return 'task';
  if (/^\/transcripts\/[0-9a-f]{64}\/[0-9a-f]{64}\/$/.test(path)) return 'transcript';
  const m = /^\/(boards|cohorts|plans|reports)\/[0-9a-f]{64}\/$/.exec(path);
  if (m) return ({ boards: 'board', cohorts: 'cohort', plans: 'plan', reports: 'report' } as const)[m[1] as 'boards' | 'cohorts' | 'plans' | 'reports'];
  // Model and agent pages (src/site/model/models.ts): 16 hex digits of the name's SHA-256, or 64 when another name shares them.
  const subject = /^\/(models|agents)\/(?:[0-9a-f]{16}|[0-9a-f]{64})\/$/.exec(path);
  if (subject) return subject[1] === 'models' ? 'model' : 'agent';
  const fixed = /^\/(reports|incompatibilities|rejected|verify|methodology|models|freeze-log)\/$/.exec(path);
  if (fixed) return fixed[1] as Kind;
  throw new Error(`a page of no known kind: ${path} (add its kind to test/browser/ux.browser.test.ts)`);
}

let out: string;
let server: StaticServer;
let session: BrowserSession;
/** Every page, by kind, in sitemap order. */
const pages = new Map<Kind, string[]>();
/** Whether the built site has /methodology/ (issue 13 adds it; checked like every other page once it exists). */
let hasMethodology = false;

beforeAll(async () => {
  requireChromium();
  out = await sharedDemoBuild();
  hasMethodology = existsSync(join(out, 'methodology', 'index.html'));
  const fixed = ['/rejected/', '/incompatibilities/', '/verify/', '/reports/', '/freeze-log/', ...(hasMethodology ? ['/methodology/'] : [])];
  for (const path of new Set([...(await sitemapPaths(out)), ...fixed])) {
    const kind = kindOf(path);
    pages.set(kind, [...(pages.get(kind) ?? []), path]);
  }
  [server, session] = await Promise.all([serveStatic(out), launchBrowser({ javaScriptEnabled: true })]);
}, 240_000);

afterAll(async () => {
  await Promise.allSettled([session?.close(), server?.close()]);
  await removeTempDirs();
}, 60_000);

/** The pages of a kind; the demo has every kind, so none is checked vacuously. */
function pagesOf(kind: Kind): string[] {
  const list = pages.get(kind) ?? [];
  if (list.length === 0) throw new Error(`the demo site has no ${kind} page`);
  return list;
}

/** What sticks out of the viewport: the widest element past the right edge and the innermost ones (not inside a scroll box). */
interface Overflow {
  scrollWidth: number;
  innerWidth: number;
  offenders: { selector: string; width: number; right: number }[];
}

async function measureOverflow(page: Page): Promise<Overflow> {
  return page.evaluate(() => {
    const innerWidth = window.innerWidth;
    const selector = (el: Element): string => {
      const parts: string[] = [];
      for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
        if (e.id) {
          parts.unshift(`${e.tagName.toLowerCase()}#${e.id}`);
          break;
        }
        const classes = [...e.classList].slice(0, 2).map((c) => `.${c}`).join('');
        const parent = e.parentElement;
        const same = parent ? [...parent.children].filter((c) => c.tagName === e!.tagName) : [];
        const nth = same.length > 1 ? `:nth-of-type(${same.indexOf(e) + 1})` : '';
        parts.unshift(`${e.tagName.toLowerCase()}${classes}${nth}`);
      }
      return parts.join(' > ');
    };
    // An element or text inside a box that scrolls or clips horizontally cannot widen the document.
    const clipped = (el: Node): boolean => {
      for (let e = el.parentElement; e && e !== document.body && e !== document.documentElement; e = e.parentElement) {
        if (getComputedStyle(e).overflowX !== 'visible') return true;
      }
      return false;
    };
    const past = [...document.body.querySelectorAll('*')]
      .map((el) => ({ el, what: selector(el), rect: el.getBoundingClientRect() }))
      .filter(({ el, rect }) => rect.right > innerWidth + 0.5 && rect.width > 0 && !clipped(el));
    const pastSet = new Set(past.map((p) => p.el));
    const innermost = past.filter(({ el }) => ![...el.querySelectorAll('*')].some((c) => pastSet.has(c)));
    // Text that runs past its element's box (an unbreakable word in a paragraph) widens the page while its element does not.
    const texts: { el: Element; what: string; rect: DOMRect }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || pastSet.has(parent) || clipped(node)) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      const rect = range.getBoundingClientRect();
      if (rect.right > innerWidth + 0.5 && rect.width > 0) {
        texts.push({ el: parent, what: `${selector(parent)} text ${JSON.stringify((node.textContent ?? '').trim().slice(0, 40))}`, rect });
      }
    }
    const widest = [...past, ...texts].sort((a, b) => b.rect.width - a.rect.width).slice(0, 1);
    const leaves = [...innermost, ...texts].sort((a, b) => b.rect.right - a.rect.right).slice(0, 4);
    const offenders = [...new Set([...widest, ...leaves])].map(({ what, rect }) => ({
      selector: what,
      width: Math.round(rect.width),
      right: Math.round(rect.right),
    }));
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth, offenders };
  });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string }[];
}

async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 160) })) }));
  });
}

const describeAxe = (where: string, violations: AxeViolation[]): string[] =>
  violations.map((v) => `${where}: [${v.impact}] ${v.id}: ${v.help}: ${v.nodes.length} node(s): ${v.nodes.slice(0, 3).map((n) => `${JSON.stringify(n.target)} ${n.html}`).join(' | ')}`);

/**
 * The pages of a kind axe runs on: the first in sitemap order and the largest
 * (the most content: the longest lists, the most charts), once each when they are one.
 */
async function axePagesOf(kind: Kind): Promise<string[]> {
  const list = pagesOf(kind);
  const sized = await Promise.all(list.map(async (p) => ({ p, bytes: (await stat(join(out, p, 'index.html'))).size })));
  const largest = sized.reduce((a, b) => (b.bytes > a.bytes ? b : a)).p;
  return [...new Set([list[0]!, largest])];
}

async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
  const page = await session.context.newPage();
  try {
    return await run(page);
  } finally {
    await page.close();
  }
}

async function open(page: Page, path: string): Promise<void> {
  const response = await page.goto(server.origin + path, { waitUntil: 'load' });
  expect(response?.status(), path).toBe(200);
}

describe('the demo has every page kind', () => {
  it('sitemap.xml plus the fixed pages give every kind (methodology only once the site has it)', () => {
    const expected = KINDS.filter((k) => k !== 'methodology' || hasMethodology);
    expect([...pages.keys()].sort()).toEqual([...expected].sort());
    const total = [...pages.values()].reduce((n, l) => n + l.length, 0);
    expect(total).toBeGreaterThan(20);
  });
});

describe('no page scrolls sideways at 390x844', () => {
  for (const kind of KINDS) {
    it(`${kind}: every page fits 390 px`, { timeout: 120_000 }, async () => {
      if (kind === 'methodology' && !hasMethodology) {
        expect(existsSync(join(out, 'methodology'))).toBe(false);
        return;
      }
      const problems: string[] = [];
      await withPage(async (page) => {
        await page.setViewportSize(PHONE);
        for (const path of pagesOf(kind)) {
          await open(page, path);
          const o = await measureOverflow(page);
          expect(o.innerWidth, path).toBe(PHONE.width);
          if (o.scrollWidth > o.innerWidth) {
            const who = o.offenders.map((e) => `${e.selector} (width ${e.width}, right edge ${e.right})`).join('; ');
            problems.push(`${path}: document ${o.scrollWidth} px wide at ${o.innerWidth}: ${who || 'no element found'}`);
          }
        }
      });
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }
});

describe('the overflow check sees what it looks for (not vacuous)', () => {
  it('a planted wide element and a planted unbreakable line are named; the same inside a scroll box is not', async () => {
    await withPage(async (page) => {
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

describe('page titles are names, never hashes', () => {
  it('no <title> holds 12 or more hex digits in a row', async () => {
    const problems: string[] = [];
    let read = 0;
    for (const list of pages.values()) {
      for (const path of list) {
        const html = await readFile(join(out, path, 'index.html'), 'utf8');
        // The document's own title (SVG charts carry <title> elements of their own, in the body).
        const head = html.slice(0, html.indexOf('</head>'));
        const titles = [...head.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]!);
        expect(titles, path).toHaveLength(1);
        read += 1;
        if (HASH_RUN.test(titles[0]!)) problems.push(`${path}: <title>${titles[0]}</title>`);
      }
    }
    expect(read).toBe([...pages.values()].reduce((n, l) => n + l.length, 0));
    expect(problems, problems.join('\n')).toEqual([]);
  });

  it('the check sees a hash when there is one (not vacuous)', () => {
    expect(HASH_RUN.test('Board c895cd60f302 · widget-bugs')).toBe(true);
    expect(HASH_RUN.test('widget-bugs · offline-tools policy · grader 1.2.1')).toBe(false);
  });
});

describe('axe-core: no violation of any impact, light and dark', () => {
  it('reports a moderate best-practice rule (two regions with one name: landmark-unique), so minor and moderate ones count', async () => {
    await withPage(async (page) => {
      await page.setContent(
        '<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1>' +
          '<div role="region" aria-label="Table" tabindex="0"><table><tr><th>a</th></tr></table></div>' +
          '<div role="region" aria-label="Table" tabindex="0"><table><tr><th>b</th></tr></table></div></main></body></html>',
      );
      const violations = await axeViolations(page);
      expect(violations.map((v) => [v.id, v.impact])).toContainEqual(['landmark-unique', 'moderate']);
    });
  });

  for (const kind of KINDS) {
    it(`${kind}: no violation in either colour scheme`, { timeout: 180_000 }, async () => {
      if (kind === 'methodology' && !hasMethodology) {
        expect(existsSync(join(out, 'methodology'))).toBe(false);
        return;
      }
      const problems: string[] = [];
      const checked: string[] = [];
      await withPage(async (page) => {
        await page.setViewportSize(DESKTOP);
        for (const path of await axePagesOf(kind)) {
          for (const colorScheme of SCHEMES) {
            await page.emulateMedia({ colorScheme });
            await open(page, path);
            expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), `${path} ${colorScheme}`).toBe(colorScheme === 'dark');
            problems.push(...describeAxe(`${path} (${colorScheme})`, await axeViolations(page)));
            checked.push(`${path} ${colorScheme}`);
          }
        }
      });
      expect(checked.length).toBeGreaterThanOrEqual(2);
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }
});
