/**
 * The model reaches Astro as data of one render (a virtual module served by
 * a Vite plugin of that build), not through a global: two builds of the
 * demo in one process write the same bytes, and a build of another board
 * between them takes nothing from the demo and gives it nothing.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleDirs, Config, configPath, loadConfigFile } from '../../src/config/config.ts';
import { checkHistoryIn } from '../../src/history/compare.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { regularFiles } from '../helpers/site-fixture.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const outs: string[] = [];
afterAll(async () => {
  for (const dir of outs) await rm(dir, { recursive: true, force: true });
  await removeTempDirs();
});

async function buildDemo(out: string): Promise<void> {
  const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
  const retainedDir = configPath(loaded, loaded.config.retained_reports_dir);
  const history = await checkHistoryIn(await verifyPaths(bundleDirs(loaded)), retainedDir);
  const report = buildReport(history.results, loaded.config);
  await buildSiteOf(report, history.results, loaded.config, { retainedDir, history, outDir: out, sourceDate: null, log: () => undefined });
}

async function buildOther(out: string): Promise<void> {
  const model = validBundle();
  model.plan.title = 'OTHER-PLAN-TITLE';
  const results = await verifyPaths([await writeModel(model)]);
  const config = Config.parse({ title: 'OTHER-BOARD-TITLE', site_url: 'https://other.example/' });
  await buildSiteOf(buildReport(results, config), results, config, { retainedDir: join(out, 'no-retained'), outDir: out, log: () => undefined });
}

/** Every file of a site: path to bytes. */
async function siteBytes(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const path of await regularFiles(dir)) files.set(path, await readFile(join(dir, path)));
  return files;
}

describe('two builds in one process', () => {
  it('give the same bytes for the same inputs, with a build of another board between them that shares nothing', { timeout: 180_000 }, async () => {
    const dir = await makeTempDir('lb-two-builds-');
    outs.push(dir);
    await buildDemo(join(dir, 'first'));
    await buildOther(join(dir, 'other'));
    await buildDemo(join(dir, 'second'));
    const [first, other, second] = await Promise.all(['first', 'other', 'second'].map((n) => siteBytes(join(dir, n))));
    expect([...second!.keys()]).toEqual([...first!.keys()]);
    for (const [path, bytes] of first!) expect(second!.get(path)!.equals(bytes), path).toBe(true);
    const pages = (files: Map<string, Buffer>) => [...files].filter(([p]) => p.endsWith('.html')).map(([, v]) => v.toString('utf8')).join('\n');
    const demoText = pages(first!);
    const otherText = pages(other!);
    expect(otherText).toContain('OTHER-BOARD-TITLE');
    expect(otherText).toContain('OTHER-PLAN-TITLE');
    expect(otherText).not.toContain('widget-bugs leaderboard (demo)');
    expect(otherText).not.toContain('https://ledgerboard.example/');
    expect(demoText).toContain('widget-bugs leaderboard (demo)');
    expect(demoText).not.toContain('OTHER-');
    expect(demoText).not.toContain('https://other.example/');
  });
});
