/**
 * Badges checked by the site's own verify.mjs (issue 29 item 11), run as a
 * stranger runs it (a child `node` process) on a built site: unedited, every
 * badge is the re-derived report's (exit 0); one badge's rate edited is a
 * MISMATCH naming the badge, the figure and both texts (exit 1); a badge
 * that says "signed" on a site that publishes no attestation is a MISMATCH
 * (exit 1). The cohort page carries the embed snippets. A site whose report
 * is signed (keygen, sign, build): every badge says "signed", and verify.mjs
 * passes them.
 */
import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { badgeSvg, readBadgeFigures } from '../../src/site/views/badge.ts';
import { buildSite } from '../browser/browser.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';
import { copySite, replaceInFile } from '../helpers/forge-site.ts';
import { runCli } from '../helpers/cli.ts';

interface Run {
  code: number;
  stdout: string;
}

/** `node <site>/verify.mjs <site>`. */
function runScript(site: string): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [join(site, 'verify.mjs'), site], { encoding: 'utf8', timeout: 180_000, maxBuffer: 1 << 26 }, (error, stdout) => {
      const code = (error as (Error & { code?: unknown }) | null)?.code;
      done({ code: error ? (typeof code === 'number' ? code : -1) : 0, stdout });
    });
  });
}

let site: string;
let report: Report;
let work: string;

beforeAll(async () => {
  work = await makeTempDir('ledgerboard-badges-');
  await cp(await writeModel(validBundle()), join(work, 'bundles', 'b0'), { recursive: true });
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ title: 'badges', site_url: 'https://badges.example/board/' }));
  site = join(work, 'site');
  await buildSite({ bundles: join(work, 'bundles'), out: site, config });
  report = JSON.parse(await readFile(join(site, 'report.json'), 'utf8')) as Report;
}, 300_000);
afterAll(removeTempDirs);

describe('the badges of a built site', () => {
  it('one per cohort, the report\'s figures; the cohort page embeds it with a link back', async () => {
    expect(report.cohorts.length).toBeGreaterThanOrEqual(2);
    for (const c of report.cohorts) {
      const hex = c.cohort_id.slice(7);
      const svg = await readFile(join(site, 'badges', `${hex}.svg`), 'utf8');
      expect(svg).toBe(badgeSvg(report, c, false));
      const page = await readFile(join(site, 'cohorts', hex, 'index.html'), 'utf8');
      // The image (under the base path) and both snippets, escaped as text in <pre><code>.
      expect(page).toContain(`<img src="/board/badges/${hex}.svg"`);
      expect(page).toContain(`<code data-embed="html">&lt;a href=&quot;https://badges.example/board/cohorts/${hex}/&quot;&gt;&lt;img src=&quot;https://badges.example/board/badges/${hex}.svg&quot;`);
      expect(page).toContain(`](https://badges.example/board/badges/${hex}.svg)](https://badges.example/board/cohorts/${hex}/)</code>`);
    }
  });

  it('unedited: verify.mjs exits 0 and says every badge is the re-derived report\'s', async () => {
    const run = await runScript(site);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(`ok  badge /badges/ all ${report.cohorts.length} badges show the re-derived report's rate, interval and rank range and name /report.json's id, byte for byte`);
  }, 200_000);

  it('one badge\'s rate edited: verify.mjs exits 1 with a MISMATCH naming the badge and both rates', async () => {
    const dir = await copySite(site);
    const c = report.cohorts.find((x) => x.headline.rate !== null)!;
    const file = join(dir, 'badges', `${c.cohort_id.slice(7)}.svg`);
    const rate = readBadgeFigures(await readFile(file, 'utf8')).get('rate')!;
    const forged = rate === '99.9%' ? '98.8%' : '99.9%';
    expect(await replaceInFile(file, `<tspan data-figure="rate">${rate}</tspan>`, `<tspan data-figure="rate">${forged}</tspan>`)).toBe(true);
    const run = await runScript(dir);
    expect(run.code, run.stdout).toBe(1);
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('MISMATCH'));
    expect(lines).toEqual([`MISMATCH badge /badges/${c.cohort_id.slice(7)}.svg rate: the badge shows "${forged}", the re-derived report gives "${rate}"`]);
  }, 200_000);

  it('a badge that says "signed" on a site with no attestation: exit 1, said so', async () => {
    const dir = await copySite(site);
    const c = report.cohorts[0]!;
    await writeFile(join(dir, 'badges', `${c.cohort_id.slice(7)}.svg`), badgeSvg(report, c, true));
    const run = await runScript(dir);
    expect(run.code, run.stdout).toBe(1);
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('MISMATCH'));
    expect(lines).toEqual([`MISMATCH badge /badges/${c.cohort_id.slice(7)}.svg says "signed", but the site publishes no attestation of report ${report.report_id.slice(7, 19)} by a key in /keys.json`]);
  }, 200_000);
});

describe('the badges of a signed site', () => {
  it('keygen, sign, build: every badge says "signed"; verify.mjs exits 0 and passes them', async () => {
    const config = join(work, 'signed.config.json');
    await writeFile(config, JSON.stringify({ title: 'badges', site_url: 'https://badges.example/', bundles_dir: join(work, 'bundles') }));
    const made = await runCli(['keygen', '-o', join(work, 'keys'), '--config', config]);
    const keyid = /^key id ([0-9a-f]{64})$/m.exec(made.stdout)![1]!;
    expect((await runCli(['sign', '--key', join(work, 'keys', `ledgerboard-${keyid}.key`), '--config', config, '--no-cache'])).code).toBe(0);
    const dist = join(work, 'signed-site');
    expect((await runCli(['build', '--config', config, '--out', dist, '--no-cache'])).code).toBe(0);
    const signed = JSON.parse(await readFile(join(dist, 'report.json'), 'utf8')) as Report;
    for (const c of signed.cohorts) {
      const svg = await readFile(join(dist, 'badges', `${c.cohort_id.slice(7)}.svg`), 'utf8');
      expect(readBadgeFigures(svg).get('signed')).toBe('signed');
      expect(svg).toBe(badgeSvg(signed, c, true));
    }
    const run = await runScript(dist);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toContain(`ok  badge /badges/ all ${signed.cohorts.length} badges show the re-derived report's rate, interval and rank range and name /report.json's id, byte for byte`);
  }, 300_000);
});
