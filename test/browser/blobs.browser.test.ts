/**
 * Evidence files never run as script on the site's origin (issue 10, item 1;
 * docs/site.md "Evidence: blobs and bundle directories").
 *
 * One verified and one rejected bundle (plan.json `{}`, nothing listed) each
 * hold `.html`, `.htm`, `.xhtml`, `.svg`, `.xml`, `.js` and `.mjs` files and a
 * root `index.html`, every one a script payload that would open a dialog,
 * set a window flag and request /pwned-<name> from the site. The site is
 * built with the CLI and served by a static server that types files by
 * extension as real static hosts do (an extensionless file is
 * application/octet-stream). Every URL the site links for the bundles is
 * opened in Chromium: no dialog, no flag, no /pwned request, and every page
 * of the site is still the site's own.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { buildSite, launchBrowser, requireChromium, ROOT, settle, sitemapPaths, type BrowserSession } from './browser.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

const TITLE = 'blob test site';

/** A payload per file name: a dialog, a window flag, and a request the server records. */
function payload(name: string): string {
  const tag = name.replace(/[^a-z0-9]/gi, '-');
  const js = `window.pwned=1;alert(document.domain);fetch('/pwned-${tag}')`;
  if (name.endsWith('.js') || name.endsWith('.mjs')) return `${js}\n`;
  if (name.endsWith('.svg')) return `<svg xmlns="http://www.w3.org/2000/svg" onload="${js}"><script>${js}</script></svg>\n`;
  if (name.endsWith('.xhtml') || name.endsWith('.xml')) {
    return `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><script>${js}</script><img src="x" onerror="${js}"/></body></html>\n`;
  }
  return `<!doctype html><title>shadowed</title><h1>SHADOWED ${name}</h1><script>${js}</script><img src=x onerror="${js}">\n`;
}

const NAMES = ['index.html', 'evil.html', 'page.htm', 'doc.xhtml', 'image.svg', 'feed.xml', 'code.js', 'module.mjs', 'sub/index.html', 'verify.mjs', 'report.json'];

let out: string;
let server: StaticServer;
let session: BrowserSession;
let pages: string[];
/** Every href on every page of the site, as URL paths on the site. */
let linked: string[];

async function regularFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
}

beforeAll(async () => {
  requireChromium();
  const work = await makeTempDir('ledgerboard-blobs-browser-');
  const bundles = join(work, 'evidence');
  await mkdir(bundles);

  // A verified bundle listing every hostile file.
  const model = validBundle();
  model.plan.title = 'verified bundle with hostile files';
  for (const name of NAMES) model.extra.set(name, new TextEncoder().encode(payload(name)));
  const verified = await writeModel(model);
  await mkdir(join(bundles, 'verified'));
  for (const file of await regularFiles(verified)) {
    await mkdir(join(bundles, 'verified', ...file.split('/').slice(0, -1)), { recursive: true });
    await writeFile(join(bundles, 'verified', ...file.split('/')), await readFile(join(verified, ...file.split('/'))));
  }

  // A rejected junk directory: plan.json is {}, and the hostile files (plus x.html) are listed nowhere.
  const junk = join(bundles, 'junk');
  await mkdir(join(junk, 'sub'), { recursive: true });
  await writeFile(join(junk, 'plan.json'), '{}');
  for (const name of [...NAMES, 'x.html']) await writeFile(join(junk, ...name.split('/')), `${payload(name)}<!-- rejected -->\n`);

  out = join(work, 'site');
  const config = join(work, 'config.json');
  await writeFile(config, JSON.stringify({ title: TITLE, site_url: 'https://blobs.example/' }));
  await buildSite({ bundles, out, config });

  pages = [...new Set([...(await sitemapPaths(out)), '/rejected/', '/incompatibilities/', '/verify/'])];
  [server, session] = await Promise.all([serveStatic(out), launchBrowser({ javaScriptEnabled: true })]);

  const hrefs = new Set<string>();
  for (const path of pages) {
    const html = await (await fetch(server.origin + path)).text();
    for (const m of html.matchAll(/href="([^"]*)"/g)) {
      const href = m[1]!.replace(/&amp;/g, '&');
      if (href.startsWith('/')) hrefs.add(href);
    }
  }
  linked = [...hrefs].sort();
}, 240_000);

afterAll(async () => {
  await Promise.allSettled([session?.close(), server?.close()]);
  await removeTempDirs();
}, 60_000);

describe('no evidence file runs as script or shadows a page', () => {
  it('the static server types files as a real static host does', async () => {
    const blob = linked.find((l) => l.startsWith('/blobs/'))!;
    expect((await fetch(server.origin + blob)).headers.get('content-type')).toBe('application/octet-stream');
    expect((await fetch(`${server.origin}/`)).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('the site links every hostile file of both bundles, each at /blobs/<sha256-hex>', async () => {
    const rejected = await (await fetch(`${server.origin}/rejected/`)).text();
    expect(rejected).toContain('x.html');
    const evidence = linked.filter((l) => l.startsWith('/blobs/') || l.startsWith('/bundles/'));
    for (const l of evidence) expect(l).toMatch(/^(\/blobs\/[0-9a-f]{64}|\/bundles\/[0-9a-f]{64}\/(manifest|files)\.json)$/);
    // 11 files in the verified bundle, 12 in the rejected one, all distinct bytes: at least 23 blobs linked.
    expect(evidence.filter((l) => l.startsWith('/blobs/')).length).toBeGreaterThanOrEqual(2 * NAMES.length + 1);
    const files = await regularFiles(out);
    for (const name of [...NAMES, 'x.html']) {
      const base = name.split('/').pop()!;
      expect(files.filter((f) => f.startsWith('blobs/') || f.startsWith('bundles/')).some((f) => f.endsWith(base) && !/^(bundles\/[0-9a-f]{64}\/(manifest|files)\.json)$/.test(f))).toBe(false);
    }
  });

  it('opening every URL the site links: no dialog, no window flag, no request from a payload', { timeout: 180_000 }, async () => {
    const page = await session.context.newPage();
    const dialogs: string[] = [];
    const flags: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(`${page.url()}: ${dialog.type()} ${dialog.message()}`);
      void dialog.dismiss().catch(() => undefined);
    });
    try {
      for (const href of linked) {
        // A download (application/octet-stream) aborts the navigation: that is the point, not a failure.
        await page.goto(server.origin + href, { waitUntil: 'load' }).catch(() => null);
        // What the page does on its own (a payload's onload, onerror, autofocus) has run by then.
        await settle(page).catch(() => undefined);
        const flag = await page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned).catch(() => undefined);
        if (flag !== undefined) flags.push(`${href}: window.pwned = ${String(flag)}`);
      }
      await settle(page).catch(() => undefined);
    } finally {
      await page.close();
    }
    expect(dialogs).toEqual([]);
    expect(flags).toEqual([]);
    expect(server.requests.filter((r) => r.startsWith('/pwned'))).toEqual([]);
  });

  it('every page is still the site\'s own: /, /index.html and the rest carry the site title, never a payload', async () => {
    for (const path of [...pages, '/index.html']) {
      const response = await fetch(server.origin + path);
      expect(response.status, path).toBe(200);
      const html = await response.text();
      expect(html, path).toContain(`class="brand">${TITLE}</a>`);
      expect(html, path).not.toContain('SHADOWED');
      expect(html, path).not.toContain('window.pwned');
    }
    expect(await (await fetch(`${server.origin}/index.html`)).text()).toBe(await (await fetch(`${server.origin}/`)).text());
    // A bundle's root index.html is not the page of its directory: /bundles/<hex>/ is no page at all.
    const dirs = await readdir(join(out, 'bundles'));
    expect(dirs.length).toBe(2);
    for (const hex of dirs) expect((await fetch(`${server.origin}/bundles/${hex}/`)).status, hex).toBe(404);
    // The site's own verify.mjs and report.json are not the bundles' files of those names.
    expect(await (await fetch(`${server.origin}/verify.mjs`)).text()).toBe(await readFile(join(ROOT, 'lib', 'site-verifier', 'verify.mjs'), 'utf8'));
    expect(JSON.parse(await (await fetch(`${server.origin}/report.json`)).text())).toHaveProperty('report_id');
  });
});
