/**
 * Which bundle a plan page shows (issue 10, item 8): only a bundle that
 * verified on its own. A rejected bundle claiming a counted plan and the
 * bundle id sha256:000...0 (first in bundle-id order) does not take the page.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { planBundle } from '../../src/site/model/view.ts';
import { removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const ZERO = `sha256:${'0'.repeat(64)}`;

afterAll(removeTempDirs);

describe('plan pages', () => {
  it('a rejected bundle claiming a counted plan and bundle id 000...0 does not take the plan page', async () => {
    const real = validBundle();
    real.plan.title = 'the real plan';
    const realDir = await writeModel(real);
    const plan = JSON.parse(await readFile(join(realDir, 'plan.json'), 'utf8')) as { plan_id: string };
    const realId = (JSON.parse(await readFile(join(realDir, 'manifest.json'), 'utf8')) as { bundle_id: string }).bundle_id;

    const forged = validBundle();
    forged.plan.title = 'FORGED TITLE';
    forged.plan.plan_id = plan.plan_id;
    forged.notes = 'FORGED NOTES\n';
    const forgedDir = await writeModel(forged, { keepPlanId: true, editManifest: (m) => void (m.bundle_id = ZERO), keepBundleId: true });

    const results = await verifyPaths([realDir, forgedDir]);
    const config = Config.parse({});
    const report = buildReport(results, config);
    expect(report.bundles.map((b) => [b.bundle_id, b.status])).toEqual([
      [ZERO, 'invalid'],
      [realId, 'verified'],
    ]);
    const model = await modelOf(report, results, publishedOf(report, results), config);
    const shown = planBundle(model, plan.plan_id.slice(7))!;
    expect(shown.bundle_id).toBe(realId);
    expect(shown.page?.plan.title).toBe('the real plan');
    expect(shown.page?.notesHtml).not.toContain('FORGED');
    expect(Object.keys(model.plans)).toEqual([plan.plan_id.slice(7)]);
    // The forgery is linked from the plan page as another bundle naming the plan, under its content digest.
    expect(model.otherClaims[plan.plan_id.slice(7)]!.map((i) => [model.bundles[i]!.bundle_id, model.bundles[i]!.dirHex])).toEqual([[ZERO, report.bundles[0]!.content_digest.slice(7)]]);
    // Only the bundle a plan page shows has the page's parts (the forged notes are never rendered).
    expect(model.bundles.filter((b) => b.page !== null)).toEqual([shown]);
  });

  it('a plan claimed only by rejected bundles has no page', async () => {
    const forged = validBundle();
    forged.plan.title = 'only forged';
    const dir = await writeModel(forged, { editManifest: (m) => void (m.bundle_id = ZERO), keepBundleId: true });
    const results = await verifyPaths([dir]);
    const config = Config.parse({});
    const report = buildReport(results, config);
    const model = await modelOf(report, results, publishedOf(report, results), config);
    expect(model.bundles[0]!.status).toBe('invalid');
    expect(model.plans).toEqual({});
  });
});
