/**
 * REWRITTEN_EVIDENCE on the site: after `retain`, a plan re-published with a
 * rewritten file is flagged on the leaderboard and its plan page (with the
 * file-by-file classes), and the retained report keeps its old numbers at its
 * own URL.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { addArtifact, makeTempDir, removeTempDirs, validBundle, writeModel, type BundleModel } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let site: string;
let out: string;
let retainedHex: string;
let planHex: string;

function version1(): BundleModel {
  const model = validBundle();
  addArtifact(model, 'artifacts/run.log', 'step 1\n');
  return model;
}

beforeAll(async () => {
  site = await makeTempDir('lb-history-site-');
  out = join(site, 'out');
  await mkdir(join(site, 'evidence'));
  await cp(await writeModel(version1()), join(site, 'evidence', 'v'), { recursive: true });
  const config = join(site, 'lb.json');
  await writeFile(config, JSON.stringify({ title: 'history test', bundles_dir: 'evidence', retained_reports_dir: 'history' }));
  const { code, stdout } = await runCli(['retain', '--config', config]);
  expect(code).toBe(0);
  retainedHex = /retained sha256:([0-9a-f]{64})/.exec(stdout)![1]!;
  planHex = (JSON.parse(await readFile(join(site, 'evidence', 'v', 'plan.json'), 'utf8')) as { plan_id: string }).plan_id.slice(7);

  const rewritten = version1();
  rewritten.notes = 'These notes were rewritten after publication.\n';
  rewritten.artifacts.set('artifacts/run.log', new TextEncoder().encode('step 1\nstep 2\n'));
  await rm(join(site, 'evidence', 'v'), { recursive: true });
  await cp(await writeModel(rewritten), join(site, 'evidence', 'v'), { recursive: true });
  await promisify(execFile)(process.execPath, [join(root, 'bin', 'ledgerboard.mjs'), 'build', '--config', config, '--out', out], {
    cwd: site,
    env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 1 << 26,
  });
}, 180_000);

afterAll(removeTempDirs);

describe('a rewritten re-publish on the site', () => {
  it('the leaderboard names the plan under "Rewritten evidence" and counts nothing', async () => {
    const html = await readFile(join(out, 'index.html'), 'utf8');
    expect(html).toContain('Rewritten evidence');
    expect(html).toContain(`/plans/${planHex}/`);
    expect(html).toMatch(/0 of 1 bundles counted/);
  });

  it('the plan page shows the finding and every changed file with its class', async () => {
    const html = await readFile(join(out, 'plans', planHex, 'index.html'), 'utf8');
    expect(html).toContain('REWRITTEN_EVIDENCE');
    expect(html).toContain('<h2>History</h2>');
    expect(html).toMatch(/<code>NOTES\.md<\/code><\/td><td>rewritten \(the old bytes are not a prefix of the new\)/);
    expect(html).toMatch(/<code>artifacts\/run\.log<\/code><\/td><td>appended \(the old bytes are a prefix of the new\)/);
  });

  it('the retained report keeps the old numbers at its own URL, byte for byte', async () => {
    const retained = await readFile(join(site, 'history', `${retainedHex}.json`), 'utf8');
    expect(await readFile(join(out, 'reports', `${retainedHex}.json`), 'utf8')).toBe(retained);
    const old = JSON.parse(retained) as { cohorts: { subject: { model: string }; headline: { resolved: number; graded: number } }[] };
    expect(old.cohorts.length).toBeGreaterThan(0);
    const page = await readFile(join(out, 'reports', retainedHex, 'index.html'), 'utf8');
    for (const c of old.cohorts) expect(page).toMatch(new RegExp(`${c.subject.model}.*?\\(${c.headline.resolved}/${c.headline.graded}\\)`, 's'));
    const current = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { cohorts: unknown[] };
    expect(current.cohorts).toEqual([]);
  });
});
