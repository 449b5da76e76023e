/**
 * An offline copy (`ledgerboard build --offline`, docs/site.md "Offline
 * copies") in Chromium:
 *
 * - opened from file://, the reader follows links leaderboard -> board ->
 *   cohort -> task page -> back, each page with site.css applied, the
 *   leaderboard's script running, and no failed request; /verify/ says that
 *   its checks cannot run from file://, and its buttons say so when pressed;
 * - served under a sub-path (/mirror/sub/) by a plain static server, every
 *   internal link reachable from the leaderboard answers 200 under the
 *   sub-path, and the in-browser verifier and re-derivation reach match.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { serveSite, type SiteServer } from '../../src/site/build/serve.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { launchBrowser, requireChromium, type BrowserSession } from './browser.ts';
import { crawlSite } from './crawl.ts';

const MIRROR = '/mirror/sub/';
let out: string;
let server: SiteServer;
let session: BrowserSession;

beforeAll(async () => {
  requireChromium();
  const work = await makeTempDir('lb-offline-browser-');
  out = join(work, 'site');
  const second = validBundle();
  second.plan.title = 'A SECOND PLAN';
  const results = await verifyPaths([await writeModel(validBundle()), await writeModel(second)]);
  const config = Config.parse({ title: 'Offline board', site_url: 'https://example.org/board/' });
  await buildSiteOf(buildReport(results, config), results, config, { retainedDir: join(work, 'none'), outDir: out, sourceDate: null, log: () => undefined, offline: true });
  server = await serveSite({ root: out, basePath: MIRROR });
  session = await launchBrowser({ javaScriptEnabled: true, files: out });
}, 300_000);

afterAll(async () => {
  await session?.close();
  await server?.close();
  await removeTempDirs();
});

/** What a page loaded: its URL, whether site.css applies (a custom property and a rule of it), and the requests that failed. */
async function loaded(page: Page): Promise<{ url: string; cssLine: string; navBorder: string }> {
  return page.evaluate(() => ({
    url: location.href,
    cssLine: getComputedStyle(document.documentElement).getPropertyValue('--line').trim(),
    navBorder: getComputedStyle(document.querySelector('nav')!).borderBottomStyle,
  }));
}

/** Clicks the first link matching `selector` and waits for the page it opens. */
async function follow(page: Page, selector: string): Promise<void> {
  const link = page.locator(selector).first();
  expect(await link.count(), selector).toBe(1);
  await Promise.all([page.waitForEvent('load'), link.click()]);
}

describe('an offline copy opened from file://', () => {
  it('leaderboard -> board -> cohort -> task page -> back: every page styled, no failed request', { timeout: 120_000 }, async () => {
    const page = await session.context.newPage();
    const failed: string[] = [];
    const errors: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText ?? ''}`));
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    const root = pathToFileURL(join(out, 'index.html')).href;
    await page.goto(root);
    const seen: string[] = [];
    const check = async (kind: RegExp) => {
      const at = await loaded(page);
      expect(at.url, kind.source).toMatch(kind);
      expect(at.cssLine, at.url).toMatch(/^#[0-9a-f]{6}$/);
      expect(at.navBorder, at.url).toBe('solid');
      seen.push(at.url);
    };
    await check(/^file:\/\/.*\/site\/index\.html$/);
    // The leaderboard's script ran (a classic script: module scripts are refused from file://): it shows the filter form.
    expect(await page.locator('form[data-board-filter]').isVisible()).toBe(true);
    await follow(page, 'main a[href^="boards/"][href$="/index.html"]');
    await check(/\/site\/boards\/[0-9a-f]{64}\/index\.html$/);
    await follow(page, 'main a[href^="../../cohorts/"][href$="/index.html"]');
    await check(/\/site\/cohorts\/[0-9a-f]{64}\/index\.html$/);
    await follow(page, 'main a[href*="/tasks/"][href$="/index.html"]');
    await check(/\/site\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/index\.html$/);
    await page.goBack();
    await check(/\/site\/cohorts\/[0-9a-f]{64}\/index\.html$/);
    // The top navigation back home, from a page two levels down.
    await follow(page, 'nav a[href="../../index.html"]');
    await check(/^file:\/\/.*\/site\/index\.html$/);
    expect(seen).toHaveLength(6);
    // The filter works from file:// too: it hides every row for a name no row has, and keeps the query in the URL.
    const rows = page.locator('table.board-table tbody tr');
    const shown = () => rows.evaluateAll((all) => all.filter((r) => !(r as HTMLElement).hidden).length);
    expect(await shown()).toBeGreaterThan(1);
    await page.fill('form[data-board-filter] input[name="q"]', 'zzzz-no-such-name');
    await page.waitForFunction(() => location.search === '?q=zzzz-no-such-name');
    expect(await shown()).toBe(0);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    expect(session.external).toEqual([]);
    await page.close();
  });

  it('/verify/ says its checks cannot run from file://, before its first check, and so do its buttons when pressed', { timeout: 60_000 }, async () => {
    const page = await session.context.newPage();
    await page.goto(pathToFileURL(join(out, 'verify', 'index.html')).href);
    const note = page.locator('[data-offline-note]');
    expect(await note.count()).toBe(1);
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toContain('node verify.mjs .');
    expect((await loaded(page)).cssLine).toMatch(/^#[0-9a-f]{6}$/);
    // What the note warns of: pressed anyway, the check ends in error (a fetch from file:// is refused), never in match.
    await page.click('[data-verify-root] button[data-verify]');
    await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 60_000 });
    expect(await page.getAttribute('[data-verify-root]', 'data-verify-status')).toBe('error');
    expect(await page.locator('[data-verify-root]').first().textContent()).toContain('a page opened from a file:// address cannot fetch files; run node verify.mjs .');
    // And the re-derivation says so at once, instead of a worker that fails without a word.
    await page.click('button[data-rederive]');
    await page.waitForFunction(() => document.querySelector('[data-rederive-root]')?.getAttribute('data-rederive-status') === 'error', undefined, { timeout: 30_000 });
    expect(await page.textContent('[data-rederive-live]')).toContain('a page opened from a file:// address cannot start the re-derivation');
    await page.close();
  });
});

describe(`the same copy served under ${MIRROR}`, () => {
  it('every internal link from the leaderboard, followed to the end, answers 200 under the sub-path', { timeout: 300_000 }, async () => {
    const { seen, broken, outside } = await crawlSite(session.context, new URL(server.url).origin, MIRROR, MIRROR);
    expect(broken).toEqual([]);
    expect(outside).toEqual([]);
    for (const kind of ['boards/', 'cohorts/', 'plans/', 'blobs/', 'bundles/', 'verify/', 'site.css', 'leaderboard.js']) {
      expect([...seen].some((p) => p.startsWith(`${MIRROR}${kind}`)), kind).toBe(true);
    }
    // Directory links name their index.html: no page was reached as a bare directory but the root.
    expect([...seen].filter((p) => p.endsWith('/') && p !== MIRROR)).toEqual([]);
    expect(seen.size).toBeGreaterThan(30);
  });

  it('the in-browser verifier and the re-derivation on /verify/ reach match, every request under the sub-path', { timeout: 180_000 }, async () => {
    const page = await session.context.newPage();
    const before = server.requests.length;
    await page.goto(new URL(`${MIRROR}verify/index.html`, server.url).href);
    await page.click('[data-verify-root] button[data-verify]');
    await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 60_000 });
    expect(await page.getAttribute('[data-verify-root]', 'data-verify-status')).toBe('match');
    await page.click('button[data-rederive]');
    await page.waitForFunction(() => !['idle', 'running'].includes(document.querySelector('[data-rederive-root]')?.getAttribute('data-rederive-status') ?? ''), undefined, { timeout: 150_000 });
    expect(await page.getAttribute('[data-rederive-root]', 'data-rederive-status'), (await page.textContent('[data-rederive-live]')) ?? '').toBe('match');
    await page.close();
    const requests = server.requests.slice(before);
    expect(requests).toContain(`${MIRROR}verify-worker.js`);
    expect(requests).toContain(`${MIRROR}report.json`);
    expect(requests.filter((r) => !r.startsWith(MIRROR))).toEqual([]);
  });
});
