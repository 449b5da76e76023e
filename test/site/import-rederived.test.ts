/**
 * Imports re-derived by the build (issue 24, item 4), on a built site of
 * three copies of a demo Inspect import:
 *
 * - as imported: verified, counted; the notice credits the tool and says the
 *   import was re-derived, and the plan page says a gap from the log's figure
 *   is the mapping;
 * - every grade flipped to pass, resealed: IMPORT_MISMATCH, invalid, not
 *   counted, on /rejected/ with what differs;
 * - claiming ledgerboard 9.9.9 (plan id and manifest re-derived):
 *   IMPORT_NOT_REPRODUCED, verified, counted; its plan page says "not
 *   re-derived: the bundle says it was made by ledgerboard 9.9.9" and never
 *   that the gap is the mapping.
 */
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestHex } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { VERSION } from '../../src/version.ts';
import { buildSite } from '../browser/browser.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { bundleFiles, claimTool, DEMO_INSPECT, flipGradesToPass, planIdOf, writeImported } from '../helpers/imported-bundle.ts';
import { textOf } from '../helpers/page-text.ts';

let out = '';
let report: Report;
const ids: Record<'asImported' | 'flipped' | 'claimed', { plan: string; bundle: string }> = {} as never;

const page = async (path: string) => textOf(await readFile(join(out, path, 'index.html'), 'utf8'));
const bundleIdOf = async (dir: string) => (JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { bundle_id: string }).bundle_id;

beforeAll(async () => {
  const work = await makeTempDir('ledgerboard-import-rederived-');
  const bundles = join(work, 'bundles');
  await cp(DEMO_INSPECT, join(bundles, 'as-imported'), { recursive: true });
  ids.asImported = { plan: planIdOf(await bundleFiles(DEMO_INSPECT)), bundle: await bundleIdOf(DEMO_INSPECT) };
  const flipped = await bundleFiles(DEMO_INSPECT);
  flipGradesToPass(flipped);
  const flippedDir = await writeImported(flipped);
  await cp(flippedDir, join(bundles, 'flipped'), { recursive: true });
  ids.flipped = { plan: planIdOf(flipped), bundle: await bundleIdOf(flippedDir) };
  const claimed = await bundleFiles(DEMO_INSPECT);
  claimTool(claimed, { name: 'ledgerboard', version: '9.9.9' });
  const claimedDir = await writeImported(claimed);
  await cp(claimedDir, join(bundles, 'claimed'), { recursive: true });
  ids.claimed = { plan: planIdOf(claimed), bundle: await bundleIdOf(claimedDir) };
  out = join(work, 'site');
  await buildSite({ bundles, out });
  report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
}, 240_000);

afterAll(removeTempDirs);

const entry = (bundle: string) => report.bundles.find((b) => b.bundle_id === bundle)!;

describe('an import as imported', () => {
  it('is verified and counted, with no IMPORT_* finding; its page credits the tool as re-derived and explains the gap as the mapping', async () => {
    const b = entry(ids.asImported.bundle);
    expect([b.status, b.counted]).toEqual(['verified', true]);
    expect(b.findings.filter((f) => f.code.startsWith('IMPORT_'))).toEqual([]);
    const text = await page(`plans/${digestHex(ids.asImported.plan)}`);
    expect(text).toContain(`from an Inspect AI eval log by ledgerboard ${VERSION} (re-derived: this build ran that import again on the kept originals and got this bundle)`);
    expect(text).toContain('is the mapping, not an error');
  });
});

describe('an import whose grades were flipped to pass', () => {
  it('is IMPORT_MISMATCH, invalid, not counted, and /rejected/ shows what differs', async () => {
    const b = entry(ids.flipped.bundle);
    expect([b.status, b.counted]).toEqual(['invalid', false]);
    const found = b.findings.filter((f) => f.code === 'IMPORT_MISMATCH');
    expect(found.map((f) => [f.severity, f.file])).toEqual([['error', 'grades/1.json']]);
    expect(found[0]!.message).toMatch(/^grades\/1\.json differs: 1 of 3 verdicts re-derive differently/);
    const rejected = await page('rejected');
    expect(rejected).toContain('IMPORT_MISMATCH');
    expect(rejected).toContain('grades/1.json differs: 1 of 3 verdicts re-derive differently');
  });
});

describe('an import claiming another ledgerboard version', () => {
  it('is IMPORT_NOT_REPRODUCED, verified and counted; its plan page names the claim as a claim, never as a credit', async () => {
    const b = entry(ids.claimed.bundle);
    expect([b.status, b.counted]).toEqual(['verified', true]);
    expect(b.findings.filter((f) => f.code.startsWith('IMPORT_')).map((f) => [f.code, f.severity, f.file])).toEqual([['IMPORT_NOT_REPRODUCED', 'warning', 'plan.json']]);
    const text = await page(`plans/${digestHex(ids.claimed.plan)}`);
    // "<strong>not re-derived</strong>: the bundle says ...": the tags dropped leave a space before the colon.
    expect(text).toMatch(/\(\s*not re-derived\s*: the bundle says it was made by ledgerboard 9\.9\.9\)/);
    expect(text).not.toContain('by ledgerboard 9.9.9 (re-derived');
    expect(text).not.toContain('is the mapping, not an error');
  });
});
