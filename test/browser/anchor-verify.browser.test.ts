/**
 * Anchors on /verify/ (issue 30, item 3; docs/site.md "Time-stamp anchors"
 * and "Re-deriving in the browser"). A small site of its own, built with the
 * compiled CLI: one bundle anchored by a throw-away test TSA
 * (test/helpers/tsa-tokens.ts) before its first attempt, one not anchored,
 * and a config pinning the TSA's root (`timestamp_roots`). Served and opened
 * in Chromium:
 *
 * - JavaScript off: the section lists the anchored bundle's authority and
 *   time and that the site's pinned root matches, links the root published
 *   at /timestamp-roots/<hex>.pem, and says the root check needs JavaScript;
 * - the re-derivation in the browser checks the token's signatures with Web
 *   Crypto and matches (the token `pinned`, its openssl command named);
 * - a reader's own root, pasted or chosen as a file: the TSA's root chains,
 *   another authority's root does not, and text that is no certificate is
 *   an error; axe-core finds no violation after a check.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePinnedRoots, rootDigest } from '../../src/anchor/check.ts';
import { certificatePem } from '../../src/anchor/pem.ts';
import { removeTempDirs, writeModel } from '../helpers/bundle-builder.ts';
import { futureBundle, planHexOf, tokenAt, withTokens } from '../helpers/anchored-bundle.ts';
import { makeTsa, type Tsa } from '../helpers/tsa-tokens.ts';
import { buildSite, launchBrowser, requireChromium, ROOT, type BrowserSession } from './browser.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const GEN_TIME = '2030-09-14T13:00:00Z';
const AUTHORITY = 'CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\, Time,C=XX';
let work: string;
let tsa: Tsa;
let stranger: Tsa;
let rootHex: string;
let server: StaticServer;
let jsOn: BrowserSession;
let jsOff: BrowserSession;

beforeAll(async () => {
  requireChromium();
  tsa = makeTsa();
  stranger = makeTsa({ rootSubject: '/C=XX/O=Elsewhere/CN=Another Root', signerKey: 'ec' });
  work = await mkdtemp(join(tmpdir(), 'ledgerboard-anchor-browser-'));
  const anchored = futureBundle();
  anchored.plan.title = 'an anchored plan';
  const plain = futureBundle();
  plain.plan.title = 'a plan never anchored';
  const sources = [await writeModel(withTokens(anchored, { 'tsa.example.tsr': tokenAt(tsa, planHexOf(anchored), GEN_TIME) })), await writeModel(plain)];
  await mkdir(join(work, 'evidence'));
  for (const [i, source] of sources.entries()) await cp(source, join(work, 'evidence', `bundle-${i}`), { recursive: true });
  await writeFile(join(work, 'root.pem'), tsa.rootPem);
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ title: 'anchored board', bundles_dir: 'evidence', site_url: 'https://anchored.example/', timestamp_roots: ['root.pem'] }));
  await buildSite({ out: join(work, 'site'), config });
  rootHex = rootDigest(parsePinnedRoots(tsa.rootPem)[0]!).slice(7);
  server = await serveStatic(join(work, 'site'));
  jsOn = await launchBrowser({ javaScriptEnabled: true });
  jsOff = await launchBrowser({ javaScriptEnabled: false });
}, 600_000);

afterAll(async () => {
  await jsOn?.close();
  await jsOff?.close();
  await server?.close();
  tsa?.remove();
  stranger?.remove();
  await removeTempDirs();
  if (work) await rm(work, { recursive: true, force: true });
});

async function withVerifyPage<T>(session: BrowserSession, run: (page: Page) => Promise<T>): Promise<T> {
  const page = await session.context.newPage();
  try {
    await page.goto(`${server.origin}/verify/`);
    return await run(page);
  } finally {
    await page.close();
  }
}

/** Pastes a PEM text (or leaves the text area as a chosen file filled it), presses the button, waits for the answer. */
async function checkRoot(page: Page, pem: string | null): Promise<{ status: string; live: string; lines: { result: string; text: string }[] }> {
  if (pem !== null) await page.fill('[data-anchor-pem]', pem);
  await page.click('button[data-anchor-check]');
  await page.waitForFunction(() => !['idle', 'running'].includes(document.querySelector('[data-anchor-root]')!.getAttribute('data-anchor-status')!), undefined, { timeout: 60_000 });
  return page.evaluate(() => {
    const root = document.querySelector('[data-anchor-root]')!;
    return {
      status: root.getAttribute('data-anchor-status')!,
      live: root.querySelector('[data-anchor-live]')!.textContent!,
      lines: [...root.querySelectorAll('[data-anchor-results] li')].map((li) => ({ result: li.getAttribute('data-anchor-line')!, text: li.textContent! })),
    };
  });
}

describe('anchors on /verify/', () => {
  it('the build publishes the pinned root at /timestamp-roots/<hex>.pem, one PEM block made from its DER', async () => {
    expect(await readFile(join(work, 'site', 'timestamp-roots', `${rootHex}.pem`), 'utf8')).toBe(certificatePem(parsePinnedRoots(tsa.rootPem)[0]!.der));
    const report = JSON.parse(await readFile(join(work, 'site', 'report.json'), 'utf8')) as { config: { timestamp_roots?: string[] } };
    expect(report.config.timestamp_roots).toEqual([`sha256:${rootHex}`]);
  });

  it('without JavaScript: the anchored bundle, its authority and time, that the site\'s root matches, and the root\'s link', async () => {
    await withVerifyPage(jsOff, async (page) => {
      const section = (await page.locator('#anchors').innerText()).replace(/\s+/g, ' ');
      expect(section).toContain('1 bundle carries an RFC 3161 time-stamp over its plan id');
      expect(section).toContain(`an anchored plan`);
      expect(section).toContain(AUTHORITY);
      expect(section).toContain(GEN_TIME);
      expect(section).toContain('matches: the signer chains to it');
      expect(section).not.toContain('a plan never anchored');
      expect(section).toContain('Not run yet: this needs JavaScript.');
      expect(await page.locator(`#anchors a[href="/timestamp-roots/${rootHex}.pem"]`).count()).toBe(1);
      // On a phone the page never widens: the table scrolls inside its labelled region.
      await page.setViewportSize({ width: 390, height: 844 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await page.locator('#anchors .table-wrap[role="region"] table.anchors').count()).toBe(1);
    });
  });

  it('the re-derivation in the browser checks the token with Web Crypto: match, the anchor pinned, its openssl command', async () => {
    await withVerifyPage(jsOn, async (page) => {
      await page.click('button[data-rederive]');
      await page.waitForFunction(() => !['idle', 'running'].includes(document.querySelector('[data-rederive-root]')!.getAttribute('data-rederive-status')!), undefined, { timeout: 120_000 });
      const status = await page.getAttribute('[data-rederive-root]', 'data-rederive-status');
      const lines = await page.$$eval('[data-rederive-results] li', (items) => items.map((li) => li.textContent!));
      expect(lines.filter((l) => l.startsWith('MISMATCH'))).toEqual([]);
      expect(status).toBe('match');
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ok {2}anchor sha256:[0-9a-f]{64} "anchors/tsa\\.example\\.tsr": the imprint is SHA-256 of the plan id's 32 bytes and the signature checks: stamped ${GEN_TIME} by .* \\(pinned\\)$`)));
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^info {2}anchor sha256:[0-9a-f]{64} check "anchors/tsa\\.example\\.tsr" with a root you trust: curl -fsSo token\\.tsr ${server.origin.replace(/[.]/g, '\\.')}/blobs/[0-9a-f]{64} && openssl ts -verify -digest [0-9a-f]{64} -token_in -in token\\.tsr -CAfile <your-root\\.pem>$`)));
      expect(lines).toContainEqual(`ok  timestamp root /timestamp-roots/${rootHex}.pem the pinned time-stamp root "CN=Test Root CA,O=Ledgerboard Test,C=XX": its certificate's SHA-256 is its name, sha256:${rootHex}`);
    });
  }, 180_000);

  it('a reader\'s own root: the TSA\'s chains, another authority\'s does not, and text that is no certificate is an error', async () => {
    await withVerifyPage(jsOn, async (page) => {
      expect(await page.locator('[data-anchor-live]').innerText()).toBe('Not run yet.');
      const ours = await checkRoot(page, tsa.rootPem);
      expect(ours.status).toBe('chains');
      expect(ours.live).toBe('Your root CN=Test Root CA,O=Ledgerboard Test,C=XX: 1 of 1 token chains to it.');
      expect(ours.lines).toEqual([{ result: 'chains', text: expect.stringMatching(new RegExp(`^an anchored plan \\(sha256:[0-9a-f]{64}\\), anchors/tsa\\.example\\.tsr: chains to your root \\(stamped ${GEN_TIME} by ".*", whose certificate chains to your root\\)$`)) }]);
      const theirs = await checkRoot(page, stranger.rootPem);
      expect(theirs.status).toBe('other-root');
      expect(theirs.lines.map((l) => l.result)).toEqual(['other-root']);
      const junk = await checkRoot(page, '-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n');
      expect(junk.status).toBe('error');
      expect(junk.live).toMatch(/^error: not a PEM certificate/);
    });
  }, 120_000);

  it('axe-core finds no violation on /verify/ after a root was checked', async () => {
    await withVerifyPage(jsOn, async (page) => {
      await checkRoot(page, tsa.rootPem);
      await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; nodes: { html: string }[] }[] }> } }).axe;
        return (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`);
      });
      expect(violations).toEqual([]);
    });
  }, 120_000);

  it('a root chosen as a file fills the text area and checks the same', async () => {
    await withVerifyPage(jsOn, async (page) => {
      await page.setInputFiles('[data-anchor-file]', join(work, 'root.pem'));
      await page.waitForFunction(() => (document.querySelector('[data-anchor-pem]') as HTMLTextAreaElement).value.includes('BEGIN CERTIFICATE'));
      expect((await checkRoot(page, null)).status).toBe('chains');
    });
  }, 120_000);
});
