/**
 * Writing side of the format, for the demo generator, tests and
 * `ledgerboard seal` / `freeze`: seal a set of files into a bundle directory
 * with a manifest. The pure half (ids, the manifest, its canonical bytes) is
 * manifest.ts, re-exported here.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { compareUtf8 } from '../json/compare.ts';
import { sealManifest, type BundleFiles } from './manifest.ts';

export * from './manifest.ts';

/** Writes files and their manifest into a directory (created if needed). Returns the manifest bytes. */
export async function writeBundle(dir: string, files: BundleFiles, planId: string): Promise<Buffer> {
  const manifest = sealManifest(files, planId);
  for (const [path, bytes] of [...files].sort((a, b) => compareUtf8(a[0], b[0]))) {
    const target = join(dir, ...path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, bytes);
  }
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'manifest.json'), manifest);
  return manifest;
}
