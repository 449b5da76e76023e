/**
 * The digests' "Copy" control (issue 13, item 1; src/components/Digest.astro,
 * public/copy.js), in Chromium on the demo as `npm run build` makes it:
 *
 * - with JavaScript, each digest has a visible "Copy" button; clicking it puts
 *   the FULL value (`sha256:` and 64 hex digits, 71 characters) on the
 *   clipboard, read back with navigator.clipboard.readText, and the polite
 *   status beside it says "Copied" (only that digest's);
 * - without clipboard access (navigator.clipboard missing) it opens the
 *   digest's details, selects the full value and says so;
 * - without JavaScript no Copy button is visible on any page with a digest,
 *   and the status regions are empty: checked on every page by the one walk
 *   of test/browser/demo-pages.browser.test.ts (moved there);
 * - the script is a file under 1 KB, loaded once per page from the layout
 *   (<script src defer>, no inline script).
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { ROOT, type BrowserSession } from './browser.ts';
import type { StaticServer } from './static-server.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');

let site: DemoSite;
let out: string;
let server: StaticServer;
let report: Report;
let jsOn: BrowserSession;

beforeAll(async () => {
  site = await openDemoSite();
  ({ out, server, report, jsOn } = site);
  await jsOn.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
}, 240_000);

afterAll(() => site?.close(), 60_000);

const planPath = (): { path: string; planId: string; bundleId: string } => {
  const b = report.bundles.find((x) => x.counted && x.plan_id !== null && x.bundle_id !== null);
  if (!b) throw new Error('no counted bundle with a bundle id');
  return { path: `/plans/${hex(b.plan_id!)}/`, planId: b.plan_id!, bundleId: b.bundle_id! };
};

describe('Copy with JavaScript', () => {
  it('a board page: Copy puts the full 71-character board id on the clipboard and the status says Copied', async () => {
    const board = report.boards[0]!;
    await withPage(jsOn, async (page) => {
      await page.goto(`${server.origin}/boards/${hex(board.board_id)}/`);
      const digest = page.locator('.digest', { has: page.locator('.label', { hasText: 'Board id' }) });
      const button = digest.getByRole('button', { name: 'Copy board id' });
      expect(await button.isVisible()).toBe(true);
      const status = digest.getByRole('status');
      expect(await status.textContent()).toBe('');
      // Something else on the clipboard first, so the value read back is the click's.
      await page.evaluate(() => navigator.clipboard.writeText('before'));
      await button.click();
      await expect.poll(() => status.textContent()).toBe('Copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toBe(board.board_id);
      expect(copied).toHaveLength(71);
      expect(copied).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(await status.getAttribute('aria-live')).toBe('polite');
    });
  });

  it('a plan page with two digests: each button copies its own value, and only its own status speaks', async () => {
    const { path, planId, bundleId } = planPath();
    await withPage(jsOn, async (page) => {
      await page.goto(server.origin + path);
      const buttons = page.locator('.digest button.copy');
      expect(await buttons.count()).toBe(2);
      const statuses = page.locator('.digest [data-copy-status]');
      await page.getByRole('button', { name: 'Copy bundle id' }).click();
      await expect.poll(() => statuses.allTextContents()).toEqual(['', 'Copied']);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(bundleId);
      await page.getByRole('button', { name: 'Copy plan id' }).click();
      await expect.poll(() => statuses.nth(0).textContent()).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(planId);
    });
  });

  it('without clipboard access: the details open and the full value is selected, and the status says so', async () => {
    const { path, planId } = planPath();
    await withPage(jsOn, async (page) => {
      await page.addInitScript(() => Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined }));
      await page.goto(server.origin + path);
      const digest = page.locator('.digest').first();
      expect(await digest.locator('details').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      await digest.getByRole('button', { name: 'Copy plan id' }).click();
      await expect.poll(() => digest.getByRole('status').textContent()).toBe('Selected: press Ctrl+C to copy');
      expect(await digest.locator('details').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      expect(await page.evaluate(() => getSelection()?.toString())).toBe(planId);
    });
  });
});

describe('the script', () => {
  it('is one file under 1 KB, loaded once per page from <head> with <script src defer>, no inline script', async () => {
    expect((await stat(join(ROOT, 'public', 'copy.js'))).size).toBeLessThan(1024);
    expect(await readFile(join(out, 'copy.js'), 'utf8')).toBe(await readFile(join(ROOT, 'public', 'copy.js'), 'utf8'));
    for (const path of ['/', `/boards/${hex(report.boards[0]!.board_id)}/`, planPath().path, '/methodology/']) {
      const html = await readFile(join(out, path, 'index.html'), 'utf8');
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.filter((s) => s.includes('copy.js')), path).toEqual(['<script src="/copy.js" defer>']);
      expect(html.indexOf('/copy.js'), path).toBeLessThan(html.indexOf('</head>'));
    }
  });
});
