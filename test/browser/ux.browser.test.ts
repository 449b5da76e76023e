/**
 * The site's cross-cutting UX acceptance checks (issue 13, "Done when"), over
 * the demo exactly as `npm run build` makes it, in a real browser (Debian's
 * Chromium through playwright-core):
 *
 * - no page scrolls sideways on a phone (390x844): checked on EVERY page, one
 *   test per kind, by the one walk of test/browser/demo-pages.browser.test.ts;
 * - no page's `<title>` holds a run of 12 or more hex digits (pages are titled
 *   by names, never by hashes);
 * - axe-core finds no violation of any impact (minor and moderate included,
 *   best practices such as `landmark-unique` included) in the light and the
 *   dark colour scheme, on every page kind.
 *
 * The pages are those of sitemap.xml plus the fixed pages (/rejected/,
 * /incompatibilities/, /verify/, /reports/) and /methodology/ when the built
 * site has one (test/browser/page-kinds.ts). Each page kind is one test, which
 * lists every problem on every page of that kind before failing. Chromium must be at /usr/bin/chromium: the
 * suite fails (never skips) without it.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../helpers/bundle-builder.ts';
import { launchBrowser, requireChromium, ROOT, sitemapPaths, type BrowserSession } from './browser.ts';
import { KINDS, pagesByKind, type Kind } from './page-kinds.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const DESKTOP = { width: 1280, height: 900 } as const;
const SCHEMES = ['light', 'dark'] as const;
const HASH_RUN = /[0-9a-f]{12,}/i;

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
  for (const [kind, list] of pagesByKind(await sitemapPaths(out), hasMethodology)) pages.set(kind, list);
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

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string }[];
}

/** Puts axe-core on the loaded page (once per load). */
async function injectAxe(page: Page): Promise<void> {
  await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
}

/** axe-core's violations on the page as it is now (injectAxe first). */
async function runAxe(page: Page): Promise<AxeViolation[]> {
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html.slice(0, 160) })) }));
  });
}

async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await injectAxe(page);
  return runAxe(page);
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
          // One load per page: the colour scheme applies to the loaded page (its media queries), as a reload would.
          await page.emulateMedia({ colorScheme: SCHEMES[0] });
          await open(page, path);
          await injectAxe(page);
          for (const colorScheme of SCHEMES) {
            await page.emulateMedia({ colorScheme });
            expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), `${path} ${colorScheme}`).toBe(colorScheme === 'dark');
            problems.push(...describeAxe(`${path} (${colorScheme})`, await runAxe(page)));
            checked.push(`${path} ${colorScheme}`);
          }
        }
      });
      expect(checked.length).toBeGreaterThanOrEqual(2);
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }
});
