/**
 * verify.mjs is the project's own re-derivation code bundled into one file
 * (scripts/bundle-verifier.mjs, run by `npm run compile`): it imports
 * nothing but Node's standard library, the same sources give the same bytes
 * wherever they are bundled, and the compiled package holds the file the
 * sources make (so a site publishes the script of the code that built it).
 */
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { REPO_ROOT } from '../helpers/hang-guard.ts';

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

afterAll(removeTempDirs);

describe('verify.mjs, the bundle', () => {
  it('imports and requires only Node built-in modules', async () => {
    const text = await readFile(join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs'), 'utf8');
    const specifiers = [
      ...[...text.matchAll(/^\s*import\s[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
      ...[...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
      ...[...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!),
    ];
    expect(specifiers.length).toBeGreaterThan(3);
    expect(specifiers.filter((s) => !BUILTINS.has(s))).toEqual([]);
  });

  it('is the same bytes when bundled again elsewhere, and holds no path of the machine that bundled it', async () => {
    const { bundleNodeVerifier } = (await import(join(REPO_ROOT, 'scripts', 'bundle-verifier.mjs'))) as { bundleNodeVerifier(root: string, out: string): Promise<void> };
    const out = await makeTempDir('ledgerboard-bundle-');
    await bundleNodeVerifier(REPO_ROOT, out);
    const again = await readFile(join(out, 'site-verifier', 'verify.mjs'));
    const compiled = await readFile(join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs'));
    expect(again.equals(compiled)).toBe(true);
    expect(compiled.toString('utf8')).not.toContain(REPO_ROOT);
  });
});
