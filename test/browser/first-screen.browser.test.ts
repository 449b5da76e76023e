/**
 * The leaderboard's first screen (issue 29, items 3 and 7), over the demo as
 * `npm run build` makes it, in Chromium:
 *
 * - the first board's first row is within the first viewport, at 1280x800
 *   and at 390x844, with JavaScript on and off: the y of its top (and of the
 *   bottom of its subject cell) is measured and must be below the viewport's
 *   height; the evidence added since a retained report (normal growth) is on
 *   /reports/#grown, and /#grown still leads there;
 * - the filter matches the model and agent only, at the start of a word:
 *   `sage` keeps exactly the rows whose model or agent has a word starting
 *   with it (lumen/sage-...), not system_message, and hides the baselines
 *   unless they match (`acme` keeps the acme/base baselines).
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report, ReportBoard, ReportCohort } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { leaderboardLayout } from '../../src/site/views/board-names.ts';
import { shortIdentity } from '../../src/site/views/format.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

let site: DemoSite;
let report: Report;

beforeAll(async () => {
  site = await openDemoSite();
  report = site.report;
}, 240_000);

afterAll(() => site?.close(), 60_000);

/** Where the first board's first row is on a freshly loaded page (page coordinates, CSS px). */
async function firstRow(page: Page): Promise<{ top: number; subjectBottom: number; href: string }> {
  return page.$eval('main table.board-table tbody tr', (tr) => {
    const subject = tr.querySelector('th[scope="row"]')!;
    return {
      top: tr.getBoundingClientRect().top + window.scrollY,
      subjectBottom: subject.getBoundingClientRect().bottom + window.scrollY,
      href: subject.querySelector('a')?.getAttribute('href') ?? '',
    };
  });
}

describe('the first result is above the fold', () => {
  for (const js of ['on', 'off'] as const) {
    for (const viewport of VIEWPORTS) {
      it(`at ${viewport.width}x${viewport.height}, JavaScript ${js}: the first board's first row starts and its subject ends within the viewport`, async () => {
        await withPage(js === 'on' ? site.jsOn : site.jsOff, async (page) => {
          await page.setViewportSize(viewport);
          await page.goto(`${site.server.origin}/`);
          const row = await firstRow(page);
          // The row measured is the first board's best-ranked cohort, as the report orders them.
          const first = leaderboardLayout(boardsInOrder(report)).frozen[0]!;
          expect(row.href).toBe(`/cohorts/${hex(first.cohorts[0]!)}/`);
          console.log(`first row at ${viewport.width}x${viewport.height}, JavaScript ${js}: top ${row.top}, subject bottom ${row.subjectBottom}`);
          expect(row.top).toBeGreaterThan(0);
          expect(row.top).toBeLessThan(viewport.height);
          expect(row.subjectBottom).toBeLessThan(viewport.height);
        });
      });
    }
  }

  it('the evidence added since a retained report is listed on /reports/#grown, and /#grown leads there', async () => {
    await withPage(site.jsOff, async (page) => {
      await page.goto(`${site.server.origin}/reports/`);
      const items = await page.$$eval('section[aria-labelledby="grown"] li', (lis) => lis.map((li) => li.textContent ?? ''));
      expect(await page.textContent('#grown')).toBe('Evidence added since a retained report');
      expect(items).toHaveLength(5);
      await page.goto(`${site.server.origin}/`);
      expect(await page.locator('section[aria-labelledby="grown"]').count()).toBe(0);
      const link = page.locator('#grown a[href="/reports/#grown"]');
      expect(await link.textContent()).toBe('5 plans');
      await link.click();
      await page.waitForURL('**/reports/#grown');
      expect(await page.textContent('#grown')).toBe('Evidence added since a retained report');
    });
  });
});

/** The cohorts of the page's rows in page order: frozen boards, the imported runs table, imported boards of several cohorts. */
function pageOrder(): ReportCohort[] {
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const layout = leaderboardLayout(boardsInOrder(report));
  return [...layout.frozen, ...layout.runs, ...layout.imported].flatMap((b: ReportBoard) => b.cohorts.map((id) => cohorts.get(id)!));
}

/** The cohort hrefs of the rows shown (not hidden), in page order. */
async function shownRows(page: Page): Promise<string[]> {
  return page.$$eval('main table.board-table tbody tr', (trs) =>
    trs.filter((tr) => !(tr as HTMLElement).hidden && (tr as HTMLElement).offsetParent !== null).map((tr) => tr.querySelector('th[scope="row"] a')?.getAttribute('href') ?? ''),
  );
}

describe('the filter matches model and agent names only, at the start of a word', () => {
  it('"sage" keeps the lumen/sage rows and no system_message row; "acme" keeps the acme baselines; the label says what is matched', async () => {
    await withPage(site.jsOn, async (page) => {
      await page.goto(`${site.server.origin}/`);
      const label = (await page.textContent('form[data-board-filter] label:has(input[name="q"])'))!.replace(/\s+/g, ' ').trim();
      expect(label).toBe('Model or agent name (start of a word)');
      const href = (c: ReportCohort) => `/cohorts/${hex(c.cohort_id)}/`;
      const all = pageOrder();
      const wordStart = (text: string, term: string) => new RegExp(`(^|[^\\p{L}\\p{N}])${term}`, 'u').test(text.toLowerCase());
      const subjectOf = (c: ReportCohort) => `${shortIdentity(c.subject.model)} ${shortIdentity(c.subject.agent.name)} ${shortIdentity(c.subject.agent.version)}`;

      await page.fill('form[data-board-filter] input[name="q"]', 'sage');
      const sage = await shownRows(page);
      const sages = all.filter((c) => c.subject.model.includes('/sage-'));
      expect(sages.length).toBeGreaterThanOrEqual(3);
      expect(sage).toEqual(sages.map(href));
      expect(sage).toEqual(all.filter((c) => wordStart(subjectOf(c), 'sage')).map(href));
      // The imported runs' agent is "system_message > generate": "sage" is inside a word there, so none of them is kept.
      const systemMessage = all.filter((c) => c.subject.agent.name.includes('system_message'));
      expect(systemMessage.length).toBeGreaterThan(5);
      for (const c of systemMessage) expect(sage).not.toContain(href(c));
      expect(await page.textContent('form[data-board-filter] output')).toBe(`${sages.length} of ${all.length} rows`);

      await page.fill('form[data-board-filter] input[name="q"]', 'acme');
      const acme = await shownRows(page);
      const baselines = all.filter((c) => c.subject.role === 'baseline' && c.subject.model.startsWith('acme/'));
      expect(baselines.length).toBeGreaterThan(0);
      expect(acme).toEqual(all.filter((c) => c.subject.model.startsWith('acme/')).map(href));
      for (const c of baselines) expect(acme).toContain(href(c));

      // A verdict is not matched as text (the menu filters by verdict): "pass" keeps no row.
      await page.fill('form[data-board-filter] input[name="q"]', 'pass');
      expect(await shownRows(page)).toEqual([]);
    });
  });
});
