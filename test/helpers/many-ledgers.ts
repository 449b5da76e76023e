/**
 * Test helper: `count` small valid bundles (test/helpers/bundle-builder.ts's
 * FORMAT.md 3.2 example), each on a ledger of its own (its own name and
 * digest: one board per bundle), written under one directory as
 * `b<i>/`. What issue 25 (High 4) builds at 10^4 to show that nothing the
 * build holds grows into one string or array past what V8 allows.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { digestBytes } from '../../src/json/canonical.ts';
import { sealBundle, validBundle } from './bundle-builder.ts';

/** Writes the bundles; returns the directory holding them. */
export async function writeManyLedgers(dir: string, count: number): Promise<string> {
  for (let i = 0; i < count; i++) {
    const model = validBundle();
    model.plan.ledger.name = `ledger-${i}`;
    model.plan.title = `bundle ${i}`;
    // Another prompt digest on the first task: another ledger.jsonl, so another ledger digest.
    model.ledger[0]!.prompt_sha256 = digestBytes(`prompt ${i}`);
    const sealed = sealBundle(model);
    const at = join(dir, `b${i}`);
    await mkdir(at, { recursive: true });
    for (const [path, bytes] of sealed.disk) {
      if (path.includes('/')) await mkdir(dirname(join(at, path)), { recursive: true });
      await writeFile(join(at, path), bytes);
    }
  }
  return dir;
}
