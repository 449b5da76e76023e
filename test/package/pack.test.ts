/**
 * The package as a user gets it (issue 11 point 2): `npm pack` holds what a
 * user needs and nothing else, and installed from the tarball into an empty
 * directory, `npx ledgerboard build` builds a site from that directory's own
 * config and evidence, running the compiled CLI (no TypeScript loader).
 * Installing needs the npm registry or a warm npm cache (CI's `npm ci` fills it).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

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
    for (const needed of ['bin/ledgerboard.mjs', 'lib/cli/main.js', 'lib/pipeline/verify-worker.js', 'public/verify.mjs', 'public/schema/config.json', 'src/pages/index.astro', 'astro.config.mjs', 'package.json', 'LICENSE', 'README.md']) {
      expect(paths, needed).toContain(needed);
    }
    for (const path of paths) expect(path).not.toMatch(/^(test|content|scripts|docs|examples|\.ci|node_modules|dist)\//);
    expect(paths.filter((p) => p.startsWith('lib/') && p.endsWith('.ts'))).toEqual([]);
    expect(pack!.size).toBeLessThan(1024 * 1024);

    // An empty directory, the tarball installed, the demo's frozen evidence copied in, a config of its own.
    const board = await mkdtemp(join(tmpdir(), 'lb-board-'));
    temps.push(board);
    await writeFile(join(board, 'package.json'), '{ "name": "my-board", "private": true }\n');
    await run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', join(out, pack!.filename)], { cwd: board, maxBuffer: 1 << 26 });
    await mkdir(join(board, 'evidence'));
    await cp(join(root, 'content', 'bundles'), join(board, 'evidence'), { recursive: true });
    await writeFile(join(board, 'ledgerboard.config.json'), '{ "title": "my board", "bundles_dir": "evidence", "retained_reports_dir": "history" }\n');
    const built = await run(npm, ['exec', '--', 'ledgerboard', 'build', '--out', 'site'], { cwd: board, maxBuffer: 1 << 26, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(built.stdout).toContain('4 bundles: 4 verified');
    const report = JSON.parse(await readFile(join(board, 'site', 'report.json'), 'utf8')) as { config: { title: string }; bundles: unknown[] };
    expect(report.config.title).toBe('my board');
    expect(report.bundles).toHaveLength(4);
    // The site re-derives with its own dependency-free verifier.
    const verified = await run(process.execPath, [join(board, 'site', 'verify.mjs'), join(board, 'site')], { maxBuffer: 1 << 26 });
    expect(verified.stdout).toMatch(/\n[0-9]+ checks, 0 mismatches\n$/);
  });
});
