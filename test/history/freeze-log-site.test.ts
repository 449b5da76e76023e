/**
 * The freeze log through a real build (issue 30): a board whose config names
 * a freeze log, one plan published and one frozen and never published;
 * `retain` keeps a copy, `build` publishes /freeze-log.jsonl byte for byte
 * with the copy and its list, the report's freeze_log says which plan is
 * published, and `verify-site` and the site's own verify.mjs re-derive the
 * report byte for byte; the same site with a line removed from
 * /freeze-log.jsonl is a MISMATCH for both.
 */
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { runCli } from '../helpers/cli.ts';
import { copySite } from '../helpers/forge-site.ts';
import { makeTempDir, removeTempDirs, sealBundle, validBundle, writeModel } from '../helpers/bundle-builder.ts';

let site: string;
let out: string;
let log: string;
let publishedPlan: string;
const unpublishedPlan = `sha256:${'ab'.repeat(32)}`;

beforeAll(async () => {
  site = await makeTempDir('lb-freeze-log-site-');
  out = join(site, 'out');
  await mkdir(join(site, 'evidence'));
  await mkdir(join(site, 'history'));
  const model = validBundle();
  const sealed = sealBundle(model);
  publishedPlan = sealed.planId;
  await cp(await writeModel(model), join(site, 'evidence', 'v'), { recursive: true });
  const line = (plan_id: string, created_at: string, title: string) =>
    `${canonicalJson({ anchor_digest: null, created_at, ledger_digest: sealed.plan.ledger.digest, plan_id, schema: 'ledgerboard.freeze-log.v1', title })}\n`;
  log = line(unpublishedPlan, '2020-01-01T00:00:00Z', 'a plan frozen and never published') + line(publishedPlan, sealed.plan.created_at, sealed.plan.title);
  await writeFile(join(site, 'history', 'freeze-log.jsonl'), log);
  const config = join(site, 'lb.json');
  await writeFile(config, JSON.stringify({ title: 'freeze log test', bundles_dir: 'evidence', retained_reports_dir: 'history', freeze_log: 'history/freeze-log.jsonl' }));
  const retained = await runCli(['retain', '--config', config]);
  expect(retained.code, retained.stderr).toBe(0);
  const built = await runCli(['build', '--config', config, '--out', out, '--no-cache']);
  expect(built.code, built.stderr).toBe(0);
}, 300_000);

afterAll(removeTempDirs);

describe('the freeze log on a built site', () => {
  it('publishes the log byte for byte, the retained copy and its list; the report lists both plans, one published', async () => {
    expect(await readFile(join(out, 'freeze-log.jsonl'), 'utf8')).toBe(log);
    const hex = digestBytes(log).slice(7);
    expect(await readFile(join(out, 'freeze-logs', `${hex}.jsonl`), 'utf8')).toBe(log);
    expect(await readFile(join(out, 'freeze-logs.json'), 'utf8')).toBe(`{"copies":["${hex}"],"schema":"ledgerboard.freeze-logs.v1"}\n`);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.freeze_log!.digest).toBe(digestBytes(log));
    expect(report.freeze_log!.plans.map((p) => [p.plan_id, p.published])).toEqual([
      [unpublishedPlan, false],
      [publishedPlan, true],
    ]);
  });

  it('verify-site re-derives it byte for byte; with a line removed from /freeze-log.jsonl it is a MISMATCH', { timeout: 120_000 }, async () => {
    const faithful = await runCli(['verify-site', out]);
    expect(faithful.stdout.split('\n').filter((l) => l.startsWith('MISMATCH'))).toEqual([]);
    expect(faithful.stdout).toMatch(/freeze log.*read back: 2 lines, checked against 1 retained copy \(0 findings\)/);

    const forged = await copySite(out);
    await writeFile(join(forged, 'freeze-log.jsonl'), log.slice(log.indexOf('\n') + 1));
    const run = await runCli(['verify-site', forged]);
    expect(run.code).toBe(1);
    const mismatches = run.stdout.split('\n').filter((l) => l.startsWith('MISMATCH'));
    expect(mismatches.join('\n')).toMatch(/freeze_log/);

    // The site's own verify.mjs (bundled from the same code, run as a stranger runs it) says the same.
    const script = (dir: string) => spawnSync(process.execPath, [join(dir, 'verify.mjs'), dir], { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 26 });
    const own = script(out);
    expect(own.stdout.split('\n').filter((l) => l.startsWith('MISMATCH')), own.stderr).toEqual([]);
    expect(own.status).toBe(0);
    const ownForged = script(forged);
    expect(ownForged.status).toBe(1);
    expect(ownForged.stdout.split('\n').filter((l) => l.startsWith('MISMATCH')).join('\n')).toMatch(/freeze_log/);
  });
});
