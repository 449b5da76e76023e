/**
 * The package as a user gets it (issue 11 points 2 to 4): `npm pack` holds
 * what a user needs and nothing else; installed from the tarball into an
 * empty directory, `npx ledgerboard init` scaffolds a board under a base path,
 * the demo's evidence is copied in, `npx ledgerboard build` builds the site
 * with the compiled CLI (no TypeScript loader), and served under /board/
 * every internal link answers 200 and verify.mjs exits 0.
 * Installing needs the npm registry or a warm npm cache (CI's `npm ci` fills it).
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { serveSite } from '../../src/site/build/serve.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

describe('npm pack', () => {
  it('holds the compiled CLI, the site sources and the public files, and no tests, demo evidence, docs or benchmarks', { timeout: 600_000 }, async () => {
    const out = await mkdtemp(join(tmpdir(), 'lb-pack-'));
    temps.push(out);
    // --ignore-scripts: lib/ is already compiled from these sources (test/global-setup.ts).
    const { stdout } = await run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: root, maxBuffer: 1 << 26 });
    const [pack] = JSON.parse(stdout) as PackResult[];
    const paths = pack!.files.map((f) => f.path);
    for (const needed of ['bin/ledgerboard.mjs', 'lib/cli/main.js', 'lib/pipeline/verify-worker.js', 'lib/site-verifier/verify.mjs', 'lib/site-verifier/verify-worker.js', 'public/schema/config.json', 'src/pages/index.astro', 'astro.config.mjs', 'package.json', 'LICENSE', 'README.md']) {
      expect(paths, needed).toContain(needed);
    }
    for (const path of paths) expect(path).not.toMatch(/^(test|content|scripts|docs|examples|\.ci|node_modules|dist)\//);
    expect(paths.filter((p) => p.startsWith('lib/') && p.endsWith('.ts'))).toEqual([]);
    // 2 MiB: the CLI and site sources (about 0.95 MiB) and the two bundled site verifiers, verify.mjs and verify-worker.js (about 0.26 MiB each, gzipped).
    expect(pack!.size).toBeLessThan(2 * 1024 * 1024);

    // An empty directory, the tarball installed, `ledgerboard init` under a base path, the demo's frozen evidence copied in.
    const board = await mkdtemp(join(tmpdir(), 'lb-board-'));
    temps.push(board);
    await writeFile(join(board, 'package.json'), '{ "name": "my-board", "private": true }\n');
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(out, pack!.filename)], { cwd: board, maxBuffer: 1 << 26 });
    const env = { ...process.env, NODE_OPTIONS: '' };
    const init = await run(npm, ['exec', '--', 'ledgerboard', 'init', '--title', 'my board', '--site-url', 'https://user.github.io/board/'], { cwd: board, env });
    expect(init.stdout).toContain('created  ledgerboard.config.json');
    expect(init.stdout).toContain('kept     package.json');
    await cp(join(root, 'content', 'bundles'), join(board, 'evidence'), { recursive: true });
    const built = await run(npm, ['exec', '--', 'ledgerboard', 'build'], { cwd: board, maxBuffer: 1 << 26, env });
    expect(built.stdout).toContain('4 bundles: 4 verified');
    const report = JSON.parse(await readFile(join(board, 'dist', 'report.json'), 'utf8')) as { config: { title: string; site_url: string }; bundles: unknown[] };
    expect(report.config).toMatchObject({ title: 'my board', site_url: 'https://user.github.io/board/' });
    expect(report.bundles).toHaveLength(4);

    // Served under its base path as a static host would: every internal link of every page answers 200, and the
    // site's own dependency-free verifier re-derives everything from there.
    const server = await serveSite({ root: join(board, 'dist'), basePath: '/board/' });
    try {
      const origin = new URL(server.url).origin;
      const seen = new Set<string>();
      const queue = ['/board/'];
      const broken: string[] = [];
      while (queue.length > 0) {
        const path = queue.shift()!;
        if (seen.has(path)) continue;
        seen.add(path);
        const response = await fetch(origin + path);
        if (response.status !== 200 || !path.startsWith('/board/')) broken.push(`${path}: ${response.status}`);
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
