/**
 * The per-page checks of the demo site, read in one walk.
 *
 * Several suites looked at every page of the same demo build, each loading
 * every page on its own. Here each check is a named entry of one registry:
 * whether it needs JavaScript on or off, the viewport it reads at, and what
 * it reads of a loaded page (as few round trips to the browser as it can).
 * `walkPages` loads each page once per browser (JavaScript on, JavaScript
 * off) and runs on it every check that lists that page; the suite asserts
 * over the facts afterwards (test/browser/demo-pages.browser.test.ts), each
 * check in its own tests with the page named in every assertion.
 */
import type { Page } from 'playwright-core';
import type { BrowserSession } from './browser.ts';
import { measureOverflow } from './overflow.ts';

/** A phone: the width issue 13 measured at. */
export const PHONE = { width: 390, height: 844 } as const;
/** The browser sessions' own viewport (test/browser/browser.ts). */
export const DESKTOP = { width: 1280, height: 900 } as const;
/** The widths a task page must fit (issue 28 item 5), at a height of 900. */
export const TASK_WIDTHS = [1280, 390] as const;

/** What the digests' Copy control shows of a page without JavaScript (copy.browser.test.ts; public/copy.js). */
export interface CopyFacts {
  /** `.digest` elements. */
  digests: number;
  /** `.digest button.copy` elements. */
  copyButtons: number;
  /** Whether each `button.copy` is visible, as Playwright's isVisible tells (a non-empty box, visibility visible, checkVisibility). */
  buttonsVisible: boolean[];
  /** Buttons whose accessible name starts with "Copy" (Playwright's getByRole: hidden ones not counted). */
  copyRoleButtons: number;
  /** The text of each `[data-copy-status]`. */
  statuses: string[];
  /** The text of each `.digest details code.digest-full`. */
  fullValues: string[];
}

async function readCopyFacts(page: Page): Promise<CopyFacts> {
  const facts = await page.evaluate(() => {
    // Playwright's isVisible (injectedScript isElementVisible): checkVisibility, visibility visible, a non-empty box.
    const visible = (e: Element): boolean => {
      if (!e.checkVisibility() || getComputedStyle(e).visibility !== 'visible') return false;
      const rect = e.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0;
    };
    return {
      digests: document.querySelectorAll('.digest').length,
      copyButtons: document.querySelectorAll('.digest button.copy').length,
      buttonsVisible: [...document.querySelectorAll('button.copy')].map(visible),
      statuses: [...document.querySelectorAll('[data-copy-status]')].map((s) => s.textContent ?? ''),
      fullValues: [...document.querySelectorAll('.digest details code.digest-full')].map((c) => c.textContent ?? ''),
    };
  });
  // Roles and accessible names as Playwright computes them (one query, not re-implemented here).
  return { ...facts, copyRoleButtons: await page.getByRole('button', { name: /^Copy/ }).count() };
}

/** A page's document width at each of TASK_WIDTHS (tasks.browser.test.ts). */
export type PageWidths = { width: number; scrollWidth: number }[];

async function readWidths(page: Page): Promise<PageWidths> {
  const widths: PageWidths = [];
  for (const width of TASK_WIDTHS) {
    // A new viewport lays the loaded page out again (its media queries included): no reload needed.
    await page.setViewportSize({ width, height: DESKTOP.height });
    widths.push({ width, scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth) });
  }
  return widths;
}

/** One per-page check: the browser it needs, the viewport it reads at, and what it reads of a loaded page. */
export interface PageCheck<F> {
  /** JavaScript on (true) or off. */
  js: boolean;
  /** Set before the check reads (the page is loaded at the first check's viewport). */
  viewport: { width: number; height: number };
  read(page: Page): Promise<F>;
}

/** The registry, in the order each page runs them. */
export const PAGE_CHECKS = {
  // JavaScript off: no Copy button visible or named, every status empty, every digest's full value in its details.
  copyWithoutJs: { js: false, viewport: DESKTOP, read: readCopyFacts },
  // JavaScript off: a task page's width at 1280 and 390 px (no wider than the viewport).
  taskWidths: { js: false, viewport: DESKTOP, read: readWidths },
  // JavaScript on, loaded at 390x844: the document's width and what sticks out.
  phoneOverflow: { js: true, viewport: PHONE, read: measureOverflow },
} satisfies Record<string, PageCheck<unknown>>;

/** A check's name. */
export type CheckName = keyof typeof PAGE_CHECKS;
/** What a check reads of one page. */
export type FactsOf<K extends CheckName> = Awaited<ReturnType<(typeof PAGE_CHECKS)[K]['read']>>;

/** What one walk read: each check's facts by page, each page's HTTP status per browser, and what went wrong. */
export interface Walk {
  facts: { [K in CheckName]: Map<string, FactsOf<K>> };
  /** The status of each page's load, by path, in the JavaScript-on and -off browsers (null: no response). */
  status: { jsOn: Map<string, number | null>; jsOff: Map<string, number | null> };
  /** Per check, the pages whose load or read threw: `path: message`. */
  errors: Record<CheckName, string[]>;
  /** Dialogs a page opened, per browser: `path: message`. */
  dialogs: { jsOn: string[]; jsOff: string[] };
  /** Page loads, per browser. */
  loads: { jsOn: number; jsOff: number };
}

const NAMES = Object.keys(PAGE_CHECKS) as CheckName[];

/**
 * Loads each page listed in `plan` once in each browser it needs and runs on it every check listing it, the two
 * browsers side by side. A page that fails to load or a read that throws is recorded against its checks, never thrown.
 */
export async function walkPages(sessions: { jsOn: BrowserSession; jsOff: BrowserSession }, origin: string, plan: { [K in CheckName]: readonly string[] }): Promise<Walk> {
  const walk: Walk = {
    facts: Object.fromEntries(NAMES.map((n) => [n, new Map()])) as Walk['facts'],
    status: { jsOn: new Map(), jsOff: new Map() },
    errors: Object.fromEntries(NAMES.map((n) => [n, []])) as unknown as Walk['errors'],
    dialogs: { jsOn: [], jsOff: [] },
    loads: { jsOn: 0, jsOff: 0 },
  };
  const lane = async (js: boolean): Promise<void> => {
    const key = js ? 'jsOn' : 'jsOff';
    const names = NAMES.filter((n) => PAGE_CHECKS[n].js === js);
    const wanted = new Map(names.map((n) => [n, new Set(plan[n])]));
    const paths = [...new Set(names.flatMap((n) => plan[n]))];
    const page = await sessions[key].context.newPage();
    let current = '';
    page.on('dialog', (d) => {
      walk.dialogs[key].push(`${current}: ${d.message()}`);
      void d.dismiss().catch(() => undefined);
    });
    const fit = async (viewport: { width: number; height: number }): Promise<void> => {
      const now = page.viewportSize();
      if (now?.width !== viewport.width || now.height !== viewport.height) await page.setViewportSize(viewport);
    };
    try {
      for (const path of paths) {
        current = path;
        const checks = names.filter((n) => wanted.get(n)!.has(path));
        try {
          await fit(PAGE_CHECKS[checks[0]!].viewport);
          const response = await page.goto(origin + path, { waitUntil: 'load' });
          walk.loads[key]++;
          walk.status[key].set(path, response?.status() ?? null);
        } catch (error) {
          for (const n of checks) walk.errors[n].push(`${path}: ${(error as Error).message}`);
          continue;
        }
        for (const n of checks) {
          try {
            await fit(PAGE_CHECKS[n].viewport);
            (walk.facts[n] as Map<string, unknown>).set(path, await PAGE_CHECKS[n].read(page));
          } catch (error) {
            walk.errors[n].push(`${path}: ${(error as Error).message}`);
          }
        }
      }
    } finally {
      await page.close();
    }
  };
  await Promise.all([lane(true), lane(false)]);
  return walk;
}
