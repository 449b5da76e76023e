/**
 * A site under a base path (issue 11 point 4): built with site_url
 * `https://user.github.io/board/` and served under /board/ by a plain static
 * server, every internal link reachable from the leaderboard answers 200 and
 * stays under /board/, the in-browser verifier reaches `match` on a plan page
 * and on /verify/, and `node verify.mjs <server>/board/` exits 0.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSite, type SiteServer } from '../../src/site/build/serve.ts';
import { buildSite, launchBrowser, requireChromium, ROOT, type BrowserSession } from './browser.ts';
import { crawlSite } from './crawl.ts';

const BASE = '/board/';
let dir: string;
let out: string;
let server: SiteServer;
let session: BrowserSession;

beforeAll(async () => {
  requireChromium();
  dir = await mkdtemp(join(tmpdir(), 'lb-base-'));
  out = join(dir, 'site');
  const config = join(dir, 'ledgerboard.config.json');
  await writeFile(
    config,
    JSON.stringify({
      title: 'widget-bugs under a path',
      site_url: 'https://user.github.io/board',
      bundles_dir: [join(ROOT, 'content', 'bundles'), join(ROOT, 'content', 'imported', 'bundles')],
      retained_reports_dir: join(ROOT, 'content', 'reports'),
    }),
  );
  await buildSite({ out, config });
  server = await serveSite({ root: out, basePath: BASE });
  session = await launchBrowser({ javaScriptEnabled: true });
}, 300_000);

afterAll(async () => {
  await session?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a site under /board/', () => {
  // The crawl loads every page (about 620): 140 s alone on 2 cores, over 300 s while other files run beside it.
  it('every internal link from the leaderboard, followed to the end, answers 200 under the base', { timeout: 600_000 }, async () => {
    const { seen, broken, outside } = await crawlSite(session.context, new URL(server.url).origin, BASE, BASE);
    expect(broken).toEqual([]);
    expect(outside).toEqual([]);
    expect(session.external).toEqual([]);
    // Every page kind was reached.
    for (const kind of ['boards/', 'cohorts/', 'plans/', 'blobs/', 'bundles/', 'reports/', 'rejected/', 'incompatibilities/', 'verify/']) {
      expect([...seen].some((p) => p.startsWith(`${BASE}${kind}`)), kind).toBe(true);
    }
    expect(seen.size).toBeGreaterThan(100);
  });

  it('the in-browser verifier reaches match on a plan page and on /verify/', { timeout: 120_000 }, async () => {
    const report = (await (await fetch(new URL('report.json', server.url))).json()) as { bundles: { counted: boolean; plan_id: string | null }[] };
    const plan = report.bundles.find((b) => b.counted && b.plan_id !== null)!.plan_id!.slice(7);
    const page = await session.context.newPage();
    for (const target of [`${BASE}verify/`, `${BASE}plans/${plan}/`]) {
      const before = server.requests.length;
      await page.goto(new URL(target, server.url).href);
      await page.click('[data-verify-root] button[data-verify]');
      await page.waitForFunction(() => ['match', 'mismatch', 'error'].includes(document.querySelector('[data-verify-root]')?.getAttribute('data-verify-status') ?? ''), undefined, { timeout: 60_000 });
      expect(await page.getAttribute('[data-verify-root]', 'data-verify-status'), target).toBe('match');
      // It fetched the published files under the base (the page, then its checks' files).
      expect(server.requests.length - before, target).toBeGreaterThan(2);
    }
    await page.close();
    expect(server.requests.filter((r) => !r.startsWith(BASE))).toEqual([]);
  });

  it('the re-derivation on /verify/ (its worker under the base) reaches match, every request under /board/', { timeout: 180_000 }, async () => {
    const page = await session.context.newPage();
    const before = server.requests.length;
    await page.goto(new URL(`${BASE}verify/`, server.url).href);
    await page.click('button[data-rederive]');
    await page.waitForFunction(() => !['idle', 'running'].includes(document.querySelector('[data-rederive-root]')?.getAttribute('data-rederive-status') ?? ''), undefined, { timeout: 150_000 });
    expect(await page.getAttribute('[data-rederive-root]', 'data-rederive-status'), (await page.textContent('[data-rederive-live]')) ?? '').toBe('match');
    await page.close();
    const requests = server.requests.slice(before);
    expect(requests).toContain(`${BASE}verify-worker.js`);
    expect(requests).toContain(`${BASE}report.json`);
    expect(requests.filter((r) => !r.startsWith(BASE))).toEqual([]);
  });

  it('node verify.mjs <server>/board/ re-derives everything and exits 0', { timeout: 120_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(out, 'verify.mjs'), server.url], { maxBuffer: 1 << 26 });
    expect(stdout).toMatch(/\n[0-9]+ checks, 0 mismatches\n$/);
  });
});
