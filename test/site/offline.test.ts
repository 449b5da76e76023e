/**
 * Offline copies (`ledgerboard build --offline`, src/site/build/offline.ts,
 * docs/site.md "Offline copies"): every internal link of every page
 * relative to the page's own file, directory links naming index.html, so
 * the output opens from a folder; canonical and citation URLs stay
 * absolute; verify.mjs passes on it; the same evidence gives the same
 * bytes; and the render cache never mixes offline and online pages.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseHTML } from 'linkedom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { SiteBuildResult } from '../../src/site/build/build-site.ts';
import { OFFLINE_VERIFY_NOTE, offlinePage, relativeLinks } from '../../src/site/build/offline.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { testCache } from '../helpers/cache-store.ts';
import { regularFiles } from '../helpers/site-fixture.ts';
import { runCli } from '../helpers/cli.ts';

afterAll(removeTempDirs);

describe('relativeLinks and offlinePage', () => {
  it('write root-relative href and src values relative to the page, directories as index.html, and nothing else', () => {
    const html = [
      '<link rel="canonical" href="https://example.org/board/">',
      '<link rel="stylesheet" href="/site.css">',
      '<a href="/">home</a> <a href="/boards/ab/">board</a> <a href="/methodology/#trust">trust</a> <a href="/?q=x">query</a>',
      '<a href="/blobs/0f">blob</a> <script src="/copy.js" defer></script>',
      '<a href="https://other.example/x">out</a> <a href="//cdn.example/x">protocol-relative</a> <a href="#top">top</a>',
      '<p>text href=&#34;/not-an-attribute&#34; and /boards/ in prose</p> <code data-x="/boards/">data</code>',
    ].join('\n');
    expect(relativeLinks(html, 'boards/ab/tasks/cd/index.html')).toBe(
      [
        '<link rel="canonical" href="https://example.org/board/">',
        '<link rel="stylesheet" href="../../../../site.css">',
        '<a href="../../../../index.html">home</a> <a href="../../../../boards/ab/index.html">board</a> <a href="../../../../methodology/index.html#trust">trust</a> <a href="../../../../index.html?q=x">query</a>',
        '<a href="../../../../blobs/0f">blob</a> <script src="../../../../copy.js" defer></script>',
        '<a href="https://other.example/x">out</a> <a href="//cdn.example/x">protocol-relative</a> <a href="#top">top</a>',
        '<p>text href=&#34;/not-an-attribute&#34; and /boards/ in prose</p> <code data-x="/boards/">data</code>',
      ].join('\n'),
    );
    // Dot segments (a publisher's notes may link "/../../x") resolve as a browser would, never above the copy's root.
    expect(relativeLinks('<a href="/../../../etc/passwd">a</a><a href="/a/%2e%2E/%2e%2e/b?x#y">b</a><a href="/a\\..\\..\\c">c</a><a href="/a/b/..">d</a><a href="/./">e</a>', 'boards/ab/index.html')).toBe(
      '<a href="../../etc/passwd">a</a><a href="../../b?x#y">b</a><a href="../../c">c</a><a href="../../a/index.html">d</a><a href="../../index.html">e</a>',
    );
    // At the root: no "../" at all.
    expect(relativeLinks('<a href="/">h</a><a href="/reports/">r</a>', 'index.html')).toBe('<a href="index.html">h</a><a href="reports/index.html">r</a>');
  });

  it('makes the module script classic and deferred, and puts the note before the first verifier section only', () => {
    const page = '<main id="main"><h1>Verify</h1><section id="rederive" data-rederive-root data-x="1">a</section><section data-verify-root>b</section></main><script type="module" src="/leaderboard.js"></script>';
    const offline = offlinePage(page, 'verify/index.html');
    expect(offline).toBe(`<main id="main"><h1>Verify</h1>${OFFLINE_VERIFY_NOTE}<section id="rederive" data-rederive-root data-x="1">a</section><section data-verify-root>b</section></main><script src="../leaderboard.js" defer></script>`);
    expect(offline.split('data-offline-note').length - 1).toBe(1);
    // A page without a verifier gets no note.
    expect(offlinePage('<main><p>x</p></main>', 'index.html')).toBe('<main><p>x</p></main>');
  });
});

type Results = Awaited<ReturnType<typeof verifyPaths>>;

/** Every file of a built site, by its `/`-separated path. */
async function siteBytes(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const path of await regularFiles(dir)) files.set(path, await readFile(join(dir, path)));
  return files;
}

/** The paths whose bytes differ between two sites (or that only one has). */
function differing(a: ReadonlyMap<string, Buffer>, b: ReadonlyMap<string, Buffer>): string[] {
  const paths = new Set([...a.keys(), ...b.keys()]);
  return [...paths].filter((p) => !(a.has(p) && b.has(p) && a.get(p)!.equals(b.get(p)!))).sort();
}

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

function runNode(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) => {
      const code = (error as (Error & { code?: unknown }) | null)?.code;
      done({ status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
    });
  });
}

describe('an offline build', () => {
  let work: string;
  let results: Results;
  // A base path: an offline copy ignores it for its own links (relative work under any prefix), and keeps it in its absolute URLs.
  const config = Config.parse({ title: 'Offline board', site_url: 'https://example.org/board/' });
  // At the root of an origin: the whole render is kept in the cache (render-cache.ts; under a base path it is not).
  const rootConfig = Config.parse({ title: 'Offline board', site_url: 'https://example.org/' });
  const build = (outDir: string, offline: boolean, cache?: string, c: Config = config): Promise<SiteBuildResult> =>
    buildSiteOf(buildReport(results, c), results, c, {
      retainedDir: join(work, 'no-retained'),
      outDir,
      sourceDate: null,
      log: () => undefined,
      ...(offline ? { offline: true } : {}),
      ...(cache === undefined ? {} : { renderCache: testCache(cache) }),
    });
  let online: Map<string, Buffer>;
  let offline: Map<string, Buffer>;

  beforeAll(async () => {
    work = await makeTempDir('lb-offline-');
    const second = validBundle();
    second.plan.title = 'A SECOND PLAN';
    results = await verifyPaths([await writeModel(validBundle()), await writeModel(second)]);
    await build(join(work, 'online'), false);
    await build(join(work, 'offline'), true);
    online = await siteBytes(join(work, 'online'));
    offline = await siteBytes(join(work, 'offline'));
  }, 300_000);

  it('links every page only to files of the copy, relative to the page, directories as index.html', async () => {
    const out = resolve(work, 'offline');
    const pages = [...offline.keys()].filter((p) => p.endsWith('.html'));
    expect(pages.length).toBeGreaterThan(10);
    let checked = 0;
    const problems: string[] = [];
    for (const page of pages) {
      const { document } = parseHTML(offline.get(page)!.toString('utf8'));
      const pageUrl = pathToFileURL(join(out, page));
      for (const element of document.querySelectorAll('[href], [src]')) {
        for (const name of ['href', 'src']) {
          const value = element.getAttribute(name);
          if (value === null) continue;
          if (/^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('#')) continue;
          if (value.startsWith('/')) {
            problems.push(`${page}: ${name}="${value}" starts with "/"`);
            continue;
          }
          const target = new URL(value, pageUrl);
          if (target.pathname.endsWith('/')) {
            problems.push(`${page}: ${name}="${value}" names a directory`);
            continue;
          }
          const file = fileURLToPath(target);
          if (!file.startsWith(out + sep)) problems.push(`${page}: ${name}="${value}" leaves the copy`);
          else if (!(await stat(file).then((s) => s.isFile(), () => false))) problems.push(`${page}: ${name}="${value}" names no file of the copy`);
          checked++;
        }
      }
    }
    expect(problems).toEqual([]);
    // Every page links at least its stylesheet, the home page and the methodology.
    expect(checked).toBeGreaterThan(pages.length * 3);
    // The online build of the same evidence links root-relative under the base path: the check above would fail on it.
    expect(online.get('index.html')!.toString('utf8')).toContain('href="/board/site.css"');
    expect(offline.get('index.html')!.toString('utf8')).toContain('href="site.css"');
  });

  it('keeps canonical and citation URLs absolute, under site_url', () => {
    for (const [page, bytes] of offline) {
      if (!page.endsWith('.html')) continue;
      const { document } = parseHTML(bytes.toString('utf8'));
      const path = page === 'index.html' ? '' : page.slice(0, -'index.html'.length);
      expect(document.querySelector('link[rel="canonical"]')?.getAttribute('href'), page).toBe(`https://example.org/board/${path}`);
      expect(document.querySelector('meta[name="citation_public_url"]')?.getAttribute('content'), page).toBe(`https://example.org/board/${path}`);
    }
    const bibtex = parseHTML(offline.get('index.html')!.toString('utf8')).document.querySelector('.cite pre code')!.textContent!;
    expect(bibtex).toContain('https://example.org/board/');
  });

  it('says on the verify page that the in-browser checks cannot run from file://, and runs the leaderboard script as a classic one', () => {
    const verify = offline.get('verify/index.html')!.toString('utf8');
    expect(verify.split('data-offline-note').length - 1).toBe(1);
    expect(verify.indexOf('data-offline-note')).toBeLessThan(verify.indexOf('data-rederive-root'));
    expect(online.get('verify/index.html')!.toString('utf8')).not.toContain('data-offline-note');
    // Every page with the in-browser verifier (the plan pages too) says it once, and only those.
    const verifierPages = [...offline].filter(([p, b]) => p.endsWith('.html') && b.includes('data-verify-root'));
    expect(verifierPages.map(([p]) => p)).toContain('verify/index.html');
    expect(verifierPages.some(([p]) => p.startsWith('plans/'))).toBe(true);
    for (const [p, b] of offline) if (p.endsWith('.html')) expect(b.toString('utf8').split('data-offline-note').length - 1, p).toBe(verifierPages.some(([q]) => q === p) ? 1 : 0);
    const index = offline.get('index.html')!.toString('utf8');
    expect(index).toContain('<script src="leaderboard.js" defer></script>');
    expect(index).not.toContain('type="module"');
  });

  it('differs from the online build only in its pages; its data files, evidence and verifiers are the same bytes', () => {
    expect([...offline.keys()]).toEqual([...online.keys()]);
    const changed = differing(online, offline);
    expect(changed.length).toBeGreaterThan(10);
    expect(changed.filter((p) => !p.endsWith('.html'))).toEqual([]);
  });

  it('passes node verify.mjs <copy>', async () => {
    const out = join(work, 'offline');
    const run = await runNode([join(out, 'verify.mjs'), out]);
    expect(run.stderr + run.stdout).not.toMatch(/MISMATCH/);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/figures on \d+ pages are the re-derived report's/);
  }, 120_000);

  it.each([
    ['under a base path', 'board'],
    ['at the root of an origin (the whole render kept too)', 'root'],
  ])('shares a render cache with online builds without mixing their pages, %s: each build gives its no-cache bytes', async (_, which) => {
    const c = which === 'root' ? rootConfig : config;
    let [expectOnline, expectOffline] = [online, offline];
    if (which === 'root') {
      await build(join(work, 'root-online'), false, undefined, c);
      await build(join(work, 'root-offline'), true, undefined, c);
      [expectOnline, expectOffline] = [await siteBytes(join(work, 'root-online')), await siteBytes(join(work, 'root-offline'))];
      expect(expectOnline.get('index.html')!.toString('utf8')).toContain('href="/site.css"');
    }
    const cache = join(work, `cache-${which}`);
    const out = join(work, `cached-${which}`);
    const drop = async (...kinds: string[]) => {
      for (const name of await readdir(cache)) if (kinds.some((k) => name.startsWith(`${k}-`))) await rm(join(cache, name));
    };
    const first = await build(out, false, cache, c);
    expect(first.rendered!.length).toBeGreaterThan(10);
    expect(differing(expectOnline, await siteBytes(out))).toEqual([]);
    // Only at the root is the whole render kept; it is Astro's output before any link is rewritten.
    expect((await readdir(cache)).some((n) => n.startsWith('render-'))).toBe(which === 'root');
    // The same inputs, offline, into an output that holds the online site: not left as it is, and the offline bytes.
    await build(out, true, cache, c);
    expect(differing(expectOffline, await siteBytes(out))).toEqual([]);
    // And back: the online bytes, through the output stamp and whole-render entries ...
    await build(out, false, cache, c);
    expect(differing(expectOnline, await siteBytes(out))).toEqual([]);
    // ... and through the page listing alone (no page taken from the other mode's output).
    await drop('site', 'render');
    const again = await build(out, true, cache, c);
    expect(again.rendered!.length).toBeGreaterThan(10);
    expect(differing(expectOffline, await siteBytes(out))).toEqual([]);
    await drop('site', 'render');
    await build(out, false, cache, c);
    expect(differing(expectOnline, await siteBytes(out))).toEqual([]);
    // An offline build with nothing kept renders every page, and keeps no whole render: an online build after it
    // (its output stamp and page listing gone) takes no offline page from the cache.
    await drop('site', 'render', 'pages');
    await build(out, true, cache, c);
    expect(differing(expectOffline, await siteBytes(out))).toEqual([]);
    expect((await readdir(cache)).some((n) => n.startsWith('render-'))).toBe(false);
    await drop('site', 'pages');
    await build(out, false, cache, c);
    expect(differing(expectOnline, await siteBytes(out))).toEqual([]);
  }, 600_000);

  it('is what `ledgerboard build --offline` writes (its help names the flag)', async () => {
    const dir = await makeTempDir('lb-offline-cli-');
    const bundles = join(dir, 'bundles');
    await mkdir(bundles);
    for (const [i, source] of results.map((r) => r.path).entries()) await cp(source, join(bundles, `b${i}`), { recursive: true });
    await writeFile(join(dir, 'ledgerboard.config.json'), JSON.stringify({ title: 'Offline board', site_url: 'https://example.org/board/', bundles_dir: 'bundles' }));
    const out = join(dir, 'site');
    const run = await runCli(['build', '--offline', '--config', join(dir, 'ledgerboard.config.json'), '--out', out, '--no-cache']);
    expect(run.code, run.stderr).toBe(0);
    const index = await readFile(join(out, 'index.html'), 'utf8');
    expect(index).toContain('<link rel="stylesheet" href="site.css">');
    expect(index).toContain('<link rel="canonical" href="https://example.org/board/">');
    expect(index).not.toMatch(/\s(?:href|src)="\/(?!\/)/);
    const help = await runCli(['build', '--help']);
    expect(help.stdout + help.stderr).toContain('--offline');
  }, 300_000);
});
