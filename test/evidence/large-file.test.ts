/**
 * Hashing streams (issue "Trust under attack", point 3): a bundle with a
 * 2 GiB artifact verifies in a fresh process whose peak RSS stays under
 * 200 MiB. The artifact is a sparse file (2 GiB of zeros that take no disk),
 * read through the same code path as any file.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { sealBundle, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import { compareUtf8 } from '../../src/json/compare.ts';
import { withSelfId } from '../../src/evidence/seal.ts';

afterAll(removeTempDirs);

const root = fileURLToPath(new URL('../..', import.meta.url));
const SIZE = 2 * 1024 ** 3;

/** sha256 of `size` zero bytes, streamed. */
function zeroDigest(size: number): string {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(1 << 20);
  for (let done = 0; done < size; done += chunk.length) hash.update(done + chunk.length <= size ? chunk : chunk.subarray(0, size - done));
  return `sha256:${hash.digest('hex')}`;
}

it('a 2 GiB artifact verifies with under 200 MiB peak RSS', { timeout: 180_000 }, async () => {
  const model = validBundle();
  const dir = await writeModel(model);
  const path = join(dir, 'artifacts', 'big.bin');
  const handle = await open(path, 'w');
  await handle.truncate(SIZE);
  await handle.close();
  // Reseal the manifest over the sealed files plus the big one (whose bytes are never held in memory).
  const sealed = sealBundle(model);
  const entries = [...sealed.files].map(([p, bytes]) => ({ path: p, sha256: digestBytes(bytes), bytes: bytes.length }));
  entries.push({ path: 'artifacts/big.bin', sha256: zeroDigest(SIZE), bytes: SIZE });
  entries.sort((a, b) => compareUtf8(a.path, b.path));
  const manifest = withSelfId({ schema: 'ledgerboard.manifest.v1', bundle_id: '', plan_id: sealed.planId, files: entries }, 'bundle_id');
  await writeFile(join(dir, 'manifest.json'), canonicalJson(manifest));

  const child = `
    import { verifyPaths } from ${JSON.stringify(join(root, 'src', 'pipeline', 'verify-paths.ts'))};
    const [r] = await verifyPaths([${JSON.stringify(dir)}]);
    console.log(JSON.stringify({ status: r.verification.status, findings: r.verification.findings, maxRssKiB: process.resourceUsage().maxRSS }));
  `;
  // Through sh, so the child's ru_maxrss does not start from this (large) test process's (docs/benchmarks.md).
  const { stdout } = await promisify(execFile)('/bin/sh', ['-c', '"$@"; exit $?', 'sh', process.execPath, '--import', 'tsx', '--input-type=module', '-e', child], { cwd: root });
  const result = JSON.parse(stdout) as { status: string; findings: unknown[]; maxRssKiB: number };
  expect(result.findings).toEqual([]);
  expect(result.status).toBe('verified');
  expect(result.maxRssKiB / 1024).toBeLessThan(200);
  console.log(`2 GiB artifact: verified, peak RSS ${(result.maxRssKiB / 1024).toFixed(1)} MiB`);
});
