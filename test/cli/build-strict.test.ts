/**
 * `ledgerboard build --strict`: the site is still built, every bundle
 * published, and the exit status is 1 when any bundle is not verified
 * (invalid, no_verdict: a limit, a missing file or an INTERNAL_ERROR alike).
 */
import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
afterAll(removeTempDirs);

it('build --strict with an invalid and an over-limit bundle: exit 1, the site built with both on /rejected/', { timeout: 180_000 }, async () => {
  const site = await makeTempDir('lb-strict-');
  await cp(await writeModel(validBundle()), join(site, 'evidence', 'good'), { recursive: true });
  await cp(join(root, 'content', 'examples', 'invalid'), join(site, 'evidence', 'invalid'), { recursive: true });
  const big = validBundle();
  big.plan.title = 'notes over the limit';
  big.notes = `${'x'.repeat(300)}\n`;
  await cp(await writeModel(big), join(site, 'evidence', 'big'), { recursive: true });
  await writeFile(join(site, 'lb.json'), JSON.stringify({ bundles_dir: 'evidence', limits: { notes_bytes: 200 } }));
  const out = join(site, 'out');
  const code = await promisify(execFile)(process.execPath, [join(root, 'bin', 'ledgerboard.mjs'), 'build', '--strict', '--config', join(site, 'lb.json'), '--out', out], {
    cwd: site,
    env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 1 << 26,
  }).then(
    () => 0,
    (e: { code: number }) => e.code,
  );
  expect(code).toBe(1);
  const rejected = await readFile(join(out, 'rejected', 'index.html'), 'utf8');
  expect(rejected).toContain('LIMIT_EXCEEDED');
  expect(rejected).toContain('UNKNOWN_MEMBER');
  const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { bundles: { status: string; counted: boolean }[] };
  expect(report.bundles.map((b) => b.status).sort()).toEqual(['invalid', 'no_verdict', 'verified']);
  expect(report.bundles.filter((b) => b.counted)).toHaveLength(1);
});
