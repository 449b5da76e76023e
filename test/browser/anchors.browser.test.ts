/**
 * Anchored freezes and the freeze log as a reader sees them (issue 30), in
 * Chromium with JavaScript off, on test/helpers/anchored-site.ts's small
 * site (the demo has neither until its bundles carry tokens and its config a
 * log): a plan page's anchor sentence, its token downloadable; the
 * leaderboard's count leading to /freeze-log/, whose ledger sections count
 * the plans never published. No request leaves 127.0.0.1.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type BrowserSession } from './browser.ts';
import { serveStatic, type StaticServer } from './static-server.ts';
import { withPage } from './demo-site.ts';
import { buildAnchoredSite, BEFORE_GEN_TIME, FIRST_ATTEMPT, PINNED_AUTHORITY, UNPUBLISHED, type AnchoredSite } from '../helpers/anchored-site.ts';
import { PLAN_CREATED_AT, removeTempDirs } from '../helpers/bundle-builder.ts';

let site: AnchoredSite;
let server: StaticServer;
let jsOff: BrowserSession;

beforeAll(async () => {
  site = await buildAnchoredSite();
  server = await serveStatic(site.out);
  jsOff = await launchBrowser({ javaScriptEnabled: false });
}, 300_000);

afterAll(async () => {
  await Promise.allSettled([jsOff?.close(), server?.close()]);
  await removeTempDirs();
}, 60_000);

/** An element's text as shown, runs of white space as one. */
const shown = (s: string | null): string => (s ?? '').replace(/\s+/g, ' ').trim();

describe('anchors and the freeze log, JavaScript off', () => {
  it("a plan page says when it was frozen and anchored, before its first attempt, and its token downloads", { timeout: 60_000 }, async () => {
    await withPage(jsOff, async (page) => {
      await page.goto(`${server.origin}/plans/${site.before}/`);
      const sentence = shown(await page.locator('[data-anchor="before"]').innerText());
      expect(sentence).toBe(`frozen ${PLAN_CREATED_AT}; anchored by ${PINNED_AUTHORITY} at ${BEFORE_GEN_TIME}, before the first attempt at ${FIRST_ATTEMPT} (a pinned authority). What an anchor shows; check it with a root you trust.`);
      expect(await page.locator('[data-anchor="before"] a', { hasText: 'check it with a root you trust' }).getAttribute('href')).toBe('/verify/#anchors');
      const token = page.locator('[data-anchor-tokens] a', { hasText: 'anchors/tsa.tsr' });
      expect(await token.getAttribute('href')).toBe(site.tokens.before);
      const answer = await page.request.get(`${server.origin}${site.tokens.before}`);
      expect(answer.status()).toBe(200);
      // A DER TimeStampResp: a SEQUENCE.
      expect((await answer.body())[0]).toBe(0x30);
      expect(shown(await page.locator('[data-freeze-log]').innerText())).toBe("This plan is in the site's freeze log.");
      await page.goto(`${server.origin}/plans/${site.after}/`);
      expect(shown(await page.locator('[data-anchor="after"]').innerText())).toContain(': the anchor shows the plan existed then, not that it was frozen before it ran (an authority this site does not pin).');
      expect(shown(await page.locator('[data-freeze-log="absent"]').innerText())).toContain('This plan is not in the freeze log');
    });
    expect(jsOff.external).toEqual([]);
  });

  it('the leaderboard links /freeze-log/, which counts the plans frozen and never published per ledger', { timeout: 60_000 }, async () => {
    await withPage(jsOff, async (page) => {
      await page.goto(`${server.origin}/`);
      expect(shown(await page.locator('[data-anchor-count]').innerText())).toBe('1 of 2 counted plans anchored before their first attempt, by a pinned authority');
      const link = page.locator('a[data-freeze-log-link]');
      await Promise.all([page.waitForURL(`${server.origin}/freeze-log/`), link.click()]);
      expect(await page.textContent('main > h1')).toBe('Freeze log');
      const ledger = page.locator(`[data-freeze-ledger="${site.report.bundles[0]!.plan!.ledger.digest.slice(7)}"]`);
      expect(await ledger.getAttribute('data-unpublished')).toBe('2');
      expect(shown(await ledger.locator('[data-freeze-ledger-text]').innerText())).toBe('3 plans frozen, 1 published, 2 frozen on 2026-09-10 and 2026-09-12 and never published.');
      // The unpublished plans by id, the full id a click away (a <details>, no script).
      const items = ledger.locator('[data-freeze-unpublished] > li');
      expect(await items.evaluateAll((li) => li.map((x) => x.getAttribute('data-plan-id')))).toEqual([UNPUBLISHED.first, UNPUBLISHED.second]);
      await items.first().locator('summary').click();
      expect(shown(await items.first().locator('p').innerText())).toContain(`Plan id ${UNPUBLISHED.first}`);
      // The hostile title is text: no image element of the log's making.
      expect(await page.locator('main img').count()).toBe(0);
      expect(shown(await page.locator('[data-freeze-log-total]').innerText())).toBe('4 plans frozen, 1 published, 3 never published');
      // On a phone, neither page scrolls sideways (full ids and digests wrap).
      await page.setViewportSize({ width: 390, height: 844 });
      for (const path of ['/freeze-log/', `/plans/${site.after}/`]) {
        await page.goto(`${server.origin}${path}`);
        await page.locator('[data-freeze-ledger] details > summary').evaluateAll((s) => s.forEach((x) => (x as HTMLElement).click()));
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      }
    });
    expect(jsOff.external).toEqual([]);
  });
});
