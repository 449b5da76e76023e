/**
 * content/imported/bundles is exactly what `npm run import-demo` writes from
 * content/imported/logs (a fresh import, compared byte for byte), and every
 * committed bundle verifies.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_IMPORTS, demoInputs, importDemo } from '../../scripts/import-demo.ts';
import { listTree, tempDirs, verifyDir } from './helpers.ts';

const COMMITTED = new URL('../../content/imported/', import.meta.url).pathname;
const temp = tempDirs();

describe('the committed imported bundles', () => {
  let out: string;
  let lines: string[];
  beforeAll(async () => {
    out = await temp();
    lines = await importDemo(out);
  });

  it('are what a fresh import writes, byte for byte', async () => {
    const generated = await listTree(join(out, 'bundles'));
    const committed = await listTree(join(COMMITTED, 'bundles'));
    expect(committed).toEqual(generated);
    const differing: string[] = [];
    for (const path of generated.filter((p) => p.split('/').length > 1)) {
      const a = await readFile(join(out, 'bundles', path)).catch(() => null);
      if (a === null) continue; // a directory
      if (!a.equals(await readFile(join(COMMITTED, 'bundles', path)))) differing.push(path);
    }
    expect(differing, 'run `npm run import-demo` after an intended change').toEqual([]);
  });

  it('hold one verified bundle per demo input, except the expected failures and those left out', async () => {
    let expected = 0;
    for (const demo of DEMO_IMPORTS) {
      const inputs = await demoInputs(demo);
      for (const name of [...Object.keys(demo.expectedFailures ?? {}), ...Object.keys(demo.leftOut ?? {})]) expect(inputs, `${demo.format}: ${name}`).toContain(name);
      expected += inputs.length - Object.keys(demo.expectedFailures ?? {}).length - Object.keys(demo.leftOut ?? {}).length;
    }
    expect(lines.filter((l) => l.includes('not imported, as expected'))).toHaveLength(DEMO_IMPORTS.reduce((n, d) => n + Object.keys(d.expectedFailures ?? {}).length, 0));
    expect(lines.filter((l) => l.startsWith('inspect logs/log_formats.json: left out of the demo'))).toHaveLength(1);
    const dirs = (await listTree(join(COMMITTED, 'bundles'))).filter((p) => !p.includes('/'));
    expect(dirs).toHaveLength(expected);
    expect(expected).toBeGreaterThanOrEqual(11);
    for (const dir of dirs) expect((await verifyDir(join(COMMITTED, 'bundles', dir))).status, dir).toBe('verified');
  });
});
