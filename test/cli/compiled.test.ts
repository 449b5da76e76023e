/**
 * The CLI runs as compiled JavaScript (lib/), with no TypeScript loader at run
 * time (issue 11 point 2): every relative import in lib/ names a .js file,
 * zod is loaded as one bundled module (lib/vendor/zod.js, with its license)
 * rather than as the package's ~95 files, and the compiled worker thread
 * verifies as the main thread does.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const lib = join(root, 'lib');

describe('lib/ (the compiled CLI)', () => {
  it('imports no TypeScript file and no loader', async () => {
    const files = (await readdir(lib, { recursive: true })).filter((f) => f.endsWith('.js'));
    expect(files).toContain(join('cli', 'main.js'));
    for (const file of files) {
      const text = await readFile(join(lib, file), 'utf8');
      expect(text, file).not.toMatch(/from\s+["']\.{1,2}\/[^"']*\.ts["']|import\(\s*["']\.{1,2}\/[^"']*\.ts["']\s*\)/);
      expect(text, file).not.toMatch(/["']tsx(\/[^"']*)?["']/);
    }
    const bin = await readFile(join(root, 'bin', 'ledgerboard.mjs'), 'utf8');
    expect(bin).not.toMatch(/tsx/);
  });

  it('loads zod from its one bundled module, never from the package', async () => {
    const files = (await readdir(lib, { recursive: true })).filter((f) => f.endsWith('.js') && !f.startsWith('vendor'));
    let importers = 0;
    for (const file of files) {
      const text = await readFile(join(lib, file), 'utf8');
      expect(text, file).not.toMatch(/from\s*["']zod[/"']|import\(\s*["']zod/);
      if (/from\s*["'](\.\.\/)+vendor\/zod\.js["']|from\s*["']\.\/vendor\/zod\.js["']/.test(text)) importers += 1;
    }
    expect(importers).toBeGreaterThanOrEqual(10);
    const license = await readFile(join(lib, 'vendor', 'zod.LICENSE'), 'utf8');
    expect(license).toMatch(/^zod \d+\.\d+\.\d+ /);
    expect(license).toMatch(/MIT License/);
    // A process that verifies the demo resolves no module inside node_modules/zod.
    const hook = `data:text/javascript,${encodeURIComponent("export async function resolve(s, c, n) { const r = await n(s, c); if (r.url.includes('/node_modules/zod/')) process.stderr.write('ZOD ' + r.url + '\\n'); return r; }")}`;
    const { stderr, stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--experimental-loader', hook, join(root, 'bin', 'ledgerboard.mjs'), 'verify', join(root, 'content', 'bundles')], { cwd: root });
    expect(stdout).toMatch(/4 verified/);
    expect(stderr).not.toMatch(/ZOD /);
  });

  it('verifies on a compiled worker thread exactly as on the main thread', async () => {
    const script = `
      const { verifyPaths } = await import(${JSON.stringify(new URL('../../lib/pipeline/verify-paths.js', import.meta.url).href)});
      const dirs = [${JSON.stringify(join(root, 'content', 'bundles'))}, ${JSON.stringify(join(root, 'content', 'examples'))}];
      const show = (rs) => rs.map((r) => [r.verification.bundle_id, r.verification.status, r.verification.findings.map((f) => f.code)]);
      const threaded = show(await verifyPaths(dirs, undefined, { workers: 2 }));
      const single = show(await verifyPaths(dirs, undefined, { workers: 0 }));
      process.stdout.write(JSON.stringify({ threaded, single }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root, maxBuffer: 1 << 26 });
    const { threaded, single } = JSON.parse(stdout) as { threaded: unknown[]; single: unknown[] };
    expect(threaded.length).toBeGreaterThanOrEqual(6);
    expect(threaded).toEqual(single);
  });
});
