/**
 * Model pages of the demo site in Chromium (issue 29 item 10):
 *
 * - a leaderboard row's "all boards" link opens its model's page, which
 *   lists exactly the report's cohorts of that model; the page does not
 *   scroll sideways at 1280x800 (its table fits) nor at 390x844;
 * - the leaderboard's interval bars still draw their track (and the delta's
 *   zero line), now from site.css: measured as the bars' background layers
 *   and their height;
 * - every model and agent page's table fits at 1280 px, and none scrolls
 *   sideways at 390 px.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';

let site: DemoSite;
let report: Report;

beforeAll(async () => {
  site = await openDemoSite();
  report = site.report;
}, 240_000);

afterAll(() => site?.close(), 60_000);

describe('model pages', () => {
  it('"all boards" on the first leaderboard row opens its model page: its cohorts, no sideways scroll at 1280 and 390 px', async () => {
    await withPage(site.jsOff, async (page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${site.server.origin}/`);
      const row = page.locator('main table.board-table tbody tr').first();
      const cohortHref = (await row.locator('th[scope="row"] a').first().getAttribute('href'))!;
      const cohort = report.cohorts.find((c) => `/cohorts/${c.cohort_id.slice(7)}/` === cohortHref)!;
      await row.getByRole('link', { name: 'all boards' }).click();
      await page.waitForURL(/\/models\/[0-9a-f]{16}\/$/);
      expect(await page.locator('h1').textContent()).toBe(`Model ${cohort.subject.model}`);
      const listed = await page.$$eval('table[data-subject-cohorts] tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-cohort')));
      expect(listed.sort()).toEqual(report.cohorts.filter((c) => c.subject.model === cohort.subject.model).map((c) => c.cohort_id.slice(7)).sort());
      const wide = await page.$eval('table[data-subject-cohorts]', (table) => ({ wrap: table.parentElement!.clientWidth, table: table.scrollWidth, doc: document.documentElement.scrollWidth }));
      expect(wide.table).toBeLessThanOrEqual(wide.wrap);
      expect(wide.doc).toBeLessThanOrEqual(1280);
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    });
  });

  it('every model and agent page: its table fits at 1280x800 (the long names and board titles wrap), nothing scrolls sideways at 390x844', async () => {
    await withPage(site.jsOff, async (page) => {
      await page.goto(`${site.server.origin}/models/`);
      const paths = await page.$$eval('main ul[data-subject-index] a', (as) => as.map((a) => a.getAttribute('href')!));
      expect(paths.length).toBe(new Set(report.cohorts.map((c) => c.subject.model)).size + new Set(report.cohorts.map((c) => c.subject.agent.name)).size);
      for (const [width, height] of [[1280, 800], [390, 844]] as const) {
        await page.setViewportSize({ width, height });
        for (const path of paths) {
          await page.goto(site.server.origin + path);
          const m = await page.$eval('table[data-subject-cohorts]', (table) => ({ wrap: table.parentElement!.clientWidth, table: table.scrollWidth, doc: document.documentElement.scrollWidth }));
          if (width === 1280) expect(m.table, path).toBeLessThanOrEqual(m.wrap);
          expect(m.doc, `${path} at ${width}`).toBeLessThanOrEqual(width);
        }
      }
    });
  }, 120_000);

  it("the leaderboard's interval bars draw their track, and the delta bars their zero line, from site.css", async () => {
    await withPage(site.jsOff, async (page) => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${site.server.origin}/`);
      const bars = await page.$$eval('main table.board-table svg.ci', (svgs) =>
        svgs.map((svg) => ({ delta: svg.closest('td')!.classList.contains('delta'), layers: (getComputedStyle(svg).backgroundImage.match(/linear-gradient/g) ?? []).length, height: svg.getBoundingClientRect().height, rects: svg.querySelectorAll('rect').length })),
      );
      expect(bars.length).toBeGreaterThan(0);
      for (const bar of bars) {
        expect(bar.layers).toBe(bar.delta ? 2 : 1);
        expect(bar.height).toBeGreaterThan(5);
        // The range and the point only: the track and the zero line are no longer repeated per row.
        expect(bar.rects).toBe(2);
      }
    });
  });
});
