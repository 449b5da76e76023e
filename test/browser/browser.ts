/**
 * Browser-test helpers: Debian's Chromium through playwright-core (a fresh
 * temporary profile per context, never a shared one), building a site with
 * the CLI, and reading a site's sitemap.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where CI installs Chromium (Debian's chromium package). */
export const CHROMIUM = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Throws (never skips) when Chromium is missing: the browser tests must run wherever the suite runs. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium was not found at ${CHROMIUM}. The browser tests (test/browser) need it and never skip: ` +
        'install Debian\'s "chromium" package (apt-get install chromium), as CI does.',
    );
  }
}

/** A persistent browser context on a fresh temporary profile; close() also removes the profile. */
export interface BrowserSession {
  context: BrowserContext;
  /** Requests to anywhere but 127.0.0.1, in order: each was aborted (the tests never touch the network). */
  external: string[];
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh profile directory; requests leaving 127.0.0.1 are recorded and aborted, but for
 * file:// URLs under `files` (a directory: an offline copy opened from a folder), when given.
 */
export async function launchBrowser(options: { javaScriptEnabled: boolean; files?: string }): Promise<BrowserSession> {
  requireChromium();
  const profile = await mkdtemp(join(tmpdir(), 'ledgerboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    javaScriptEnabled: options.javaScriptEnabled,
    viewport: { width: 1280, height: 900 },
  });
  const external: string[] = [];
  const files = options.files === undefined ? null : pathToFileURL(join(options.files, '/')).href;
  await context.route(
    (url) => url.hostname !== '127.0.0.1' && url.protocol !== 'data:' && url.protocol !== 'about:' && !(files !== null && url.protocol === 'file:' && url.href.startsWith(files)),
    async (route) => {
      external.push(route.request().url());
      await route.abort('blockedbyclient');
    },
  );
  return {
    context,
    external,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Runs `ledgerboard build` (without `bundles`: the config's directories); rejects with the CLI's output when it fails. */
export async function buildSite(args: { bundles?: string; out: string; config?: string }): Promise<string> {
  const argv = ['bin/ledgerboard.mjs', 'build', ...(args.bundles !== undefined ? ['--bundles', args.bundles] : []), '--out', args.out];
  if (args.config !== undefined) argv.push('--config', args.config);
  try {
    const { stderr } = await promisify(execFile)(process.execPath, argv, {
      cwd: ROOT,
      env: { ...process.env, TZ: 'UTC', NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' },
      maxBuffer: 1 << 26,
    });
    return stderr;
  } catch (error) {
    const e = error as Error & { stdout?: string; stderr?: string };
    throw new Error(`ledgerboard build failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/**
 * Waits until what a loaded page does on its own has run: two animation
 * frames (autofocus and the rendering update that fires focus events) and
 * then one task (handlers queued by onload, onerror or focus). The hostile
 * pages' payloads fire there; a test waits for this instead of sleeping.
 */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0)))));
}

/** The URL paths of every page in a built site's sitemap.xml. */
export async function sitemapPaths(outDir: string): Promise<string[]> {
  const xml = await readFile(join(outDir, 'sitemap.xml'), 'utf8');
  const unescape = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  const paths = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => new URL(unescape(m[1]!)).pathname);
  if (paths.length === 0) throw new Error(`${outDir}/sitemap.xml lists no page`);
  return paths;
}
