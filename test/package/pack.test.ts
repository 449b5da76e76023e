/**
 * The package as a user gets it (issue 11 points 2 to 4, issue 29 points 1
 * and 8): `npm pack` holds what a user needs and nothing else, and its size
 * is the one the README states; the README's board quick-start, its
 * commands extracted from the README text as written (placeholders filled),
 * run with no terminal (stdin ignored) beside the packed tarball: npx
 * installs it and `init` scaffolds a board under a base path, `npm install`,
 * `npm run build` of the empty board; then the demo's evidence is copied in,
 * the board builds with the compiled CLI (no TypeScript loader), and served
 * under /my-board/ every internal link answers 200 and verify.mjs exits 0.
 * Installing needs the npm registry or a warm npm cache (CI's `npm ci` fills
 * it; the commands run with npm_config_prefer_offline).
 */
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { serveSite } from '../../src/site/build/serve.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const temps: string[] = [];
/** Temporary directories whose name npx's cache entries hold: those entries (a full install each) are removed too. */
const npxMarkers: string[] = [];
afterAll(async () => {
  for (const marker of npxMarkers) temps.push(...(await npxCopiesOf(marker)));
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** `npm pack` of the checkout, once for the whole file: the tarball's directory and npm's description of it. */
let packing: Promise<{ out: string; pack: PackResult }> | undefined;
function packed(): Promise<{ out: string; pack: PackResult }> {
  packing ??= (async () => {
    const out = await mkdtemp(join(tmpdir(), 'lb-pack-'));
    temps.push(out);
    // --ignore-scripts: lib/ is already compiled from these sources (test/global-setup.ts).
    const { stdout } = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: root, maxBuffer: 1 << 26 });
    return { out, pack: (JSON.parse(stdout) as PackResult[])[0]! };
  })();
  return packing;
}

/** Runs a shell script as a user's terminal would not: stdin ignored (no TTY anywhere), output captured. */
function shNoTty(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-e', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');

/**
 * The README's board quick-start as shell lines (a line ending in "\\" joined with the next), up to and including
 * `npm run build`: what runs without a server or a git remote. Comment lines are kept out; `<user>` and `<repo>`, which
 * the README says to replace, are filled in.
 */
function quickStart(user: string, repo: string): string[] {
  const block = /<!-- board-quick-start:start -->\n```sh\n([\s\S]*?)```\n<!-- board-quick-start:end -->/.exec(readme);
  if (!block) throw new Error('README has no board-quick-start block');
  const lines = block[1]!.replace(/\\\n\s*/g, '').split('\n');
  const until = lines.findIndex((l) => l.startsWith('npm run build'));
  expect(until).toBeGreaterThan(0);
  return lines
    .slice(0, until + 1)
    .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'))
    .map((l) => l.replaceAll('<user>', user).replaceAll('<repo>', repo));
}

describe('npm pack', () => {
  it('holds the compiled CLI, the site sources, the public files and the docs the CLI cites, and no tests, demo evidence or benchmarks; its size is the README\'s', { timeout: 120_000 }, async () => {
    const { pack } = await packed();
    const paths = pack.files.map((f) => f.path);
    for (const needed of ['bin/ledgerboard.mjs', 'lib/cli/main.js', 'lib/pipeline/verify-worker.js', 'lib/site-verifier/verify.mjs', 'lib/site-verifier/verify-worker.js', 'public/schema/config.json', 'src/pages/index.astro', 'astro.config.mjs', 'package.json', 'LICENSE', 'README.md', 'docs/format.md']) {
      expect(paths, needed).toContain(needed);
    }
    for (const path of paths) expect(path).not.toMatch(/^(test|content|scripts|examples|\.ci|node_modules|dist)\//);
    // Of docs/, only the Markdown package.json's "files" names (test/package/docs-shipped.test.ts: the ones the CLI help cites); no screenshots.
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(paths.filter((p) => p.startsWith('docs/')).sort()).toEqual(pkg.files.filter((f) => f.startsWith('docs/')).sort());
    expect(paths.filter((p) => p.startsWith('lib/') && p.endsWith('.ts'))).toEqual([]);
    // 2.5 MiB: the CLI and site sources, the cited docs and the two bundled site verifiers, verify.mjs and verify-worker.js (about 2.1 MB each
    // unpacked since the verifier checks time-stamp anchors: the ASN.1 parsers of src/anchor are in both).
    expect(pack.size).toBeLessThan(2.5 * 1024 * 1024);
    // The README states the tarball's size in MB to one decimal ("about 1.9 MB"): that rounding of the real size.
    const stated = /`ledgerboard-0\.1\.0\.tgz` \(about ([0-9]+\.[0-9]) MB\)/.exec(readme);
    expect(stated, 'the README states the tarball size as "(about N.N MB)"').not.toBeNull();
    expect((pack.size / 1e6).toFixed(1)).toBe(stated![1]);
  });

  it('runs the README\'s board quick-start as written, with no terminal; the empty board builds, then the demo evidence builds and verifies under /my-board/', { timeout: 600_000 }, async () => {
    const { out, pack } = await packed();
    // Beside a checkout called ledgerboard holding the tarball `npm pack` made, as the README's first line expects.
    const parent = await mkdtemp(join(tmpdir(), 'lb-quick-'));
    temps.push(parent);
    await mkdir(join(parent, 'ledgerboard'));
    await cp(join(out, pack.filename), join(parent, 'ledgerboard', pack.filename));
    const lines = quickStart('someone', 'my-board');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['mkdir', 'npx', 'npm', 'npm']);
    expect(lines[1]).toMatch(/^npx --yes /);
    // npx's own cache gets a copy per tarball path: removed after (its package.json holds this temporary directory's name).
    npxMarkers.push(basename(parent));
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
    delete env.npm_config_yes;

    // Without --yes, npx with no terminal refuses (what the README used to say): the condition this test runs in.
    const asked = await shNoTty([lines[0]!, lines[1]!.replace(/^npx --yes /, 'npx ')].join('\n'), parent, env);
    expect(asked.code).not.toBe(0);
    expect(asked.stderr).toContain('npx canceled due to missing packages and no YES option');
    await rm(join(parent, 'my-board'), { recursive: true, force: true });

    const quick = await shNoTty(lines.join('\n'), parent, env);
    expect(quick.stderr, quick.stderr.slice(-4000)).not.toMatch(/npm error/);
    expect(quick.code).toBe(0);
    // Progress while npx and npm install: a line per package (--loglevel=http).
    expect(quick.stderr.match(/^npm http (?:fetch|cache) /gm)?.length ?? 0).toBeGreaterThan(100);
    expect(quick.stdout).toContain('created  ledgerboard.config.json');
    expect(quick.stdout).toContain('created  package.json');
    expect(quick.stdout).toContain('0 bundles: 0 verified');
    const board = join(parent, 'my-board');
    const pkg = JSON.parse(await readFile(join(board, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies).toEqual({ ledgerboard: `file:vendor/${pack.filename}` });
    expect(await readFile(join(board, 'node_modules', 'ledgerboard', 'package.json'), 'utf8')).toContain('"name": "ledgerboard"');
    const emptyIndex = await readFile(join(board, 'dist', 'index.html'), 'utf8');
    expect(emptyIndex).toContain('No evidence yet: here is how to add some');
    expect(emptyIndex).toContain('href="/my-board/');

    // The demo's frozen evidence copied in, built with the installed, compiled CLI.
    await cp(join(root, 'content', 'bundles'), join(board, 'evidence'), { recursive: true });
    const built = await shNoTty('npm run build', board, env);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout).toContain('4 bundles: 4 verified');
    const report = JSON.parse(await readFile(join(board, 'dist', 'report.json'), 'utf8')) as { config: { title: string; site_url: string }; bundles: unknown[] };
    expect(report.config).toMatchObject({ title: 'my-board leaderboard', site_url: 'https://someone.github.io/my-board/' });
    expect(report.bundles).toHaveLength(4);

    // Served under its base path as a static host would: every internal link of every page answers 200, and the
    // site's own dependency-free verifier re-derives everything from there.
    const server = await serveSite({ root: join(board, 'dist'), basePath: '/my-board/' });
    try {
      const origin = new URL(server.url).origin;
      const seen = new Set<string>();
      const queue = ['/my-board/'];
      const broken: string[] = [];
      while (queue.length > 0) {
        const path = queue.shift()!;
        if (seen.has(path)) continue;
        seen.add(path);
        const response = await fetch(origin + path);
        if (response.status !== 200 || !path.startsWith('/my-board/')) broken.push(`${path}: ${response.status}`);
        if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) continue;
        for (const [, href] of (await response.text()).matchAll(/\s(?:href|src)="([^"]*)"/g)) {
          const url = new URL(href!.replace(/&amp;/g, '&'), origin + path);
          if (url.origin === origin) queue.push(url.pathname);
        }
      }
      expect(broken).toEqual([]);
      expect(seen.size).toBeGreaterThan(50);
      const verified = await run(process.execPath, [join(board, 'dist', 'verify.mjs'), server.url], { maxBuffer: 1 << 26 });
      expect(verified.stdout).toMatch(/\n[0-9]+ checks, 0 mismatches\n$/);
    } finally {
      await server.close();
    }
  });
});

/** The directories of npx's cache (<npm cache>/_npx/<hash>) whose package.json names a path holding `marker`. */
async function npxCopiesOf(marker: string): Promise<string[]> {
  const cache = (await run(npm, ['config', 'get', 'cache'])).stdout.trim();
  const npx = join(cache, '_npx');
  const found: string[] = [];
  for (const name of await readdir(npx).catch(() => [] as string[])) {
    const text = await readFile(join(npx, name, 'package.json'), 'utf8').catch(() => '');
    if (text.includes(marker)) found.push(join(npx, name));
  }
  return found;
}
