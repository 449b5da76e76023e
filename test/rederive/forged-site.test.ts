/**
 * Issue 24, "Done when": a built site forged each of these ways, with every
 * id re-derived (test/helpers/forge-site.ts), is a MISMATCH naming the
 * member for the site's own verify.mjs (run as a stranger runs it, a child
 * `node` process) and for `ledgerboard verify-site` (the installed code):
 * a verdict, a rate and its interval, a bundle's status and counted flag, a
 * pair's winner and a rank range, a what-changed diff, a CSV cell, a cohort
 * JSON file, a figure in a page. The faithful site re-derives with 0
 * mismatches. (The in-browser verifier's forged run: test/browser/rederive.browser.test.ts.)
 */
import { execFile } from 'node:child_process';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestHex } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { figureKey } from '../../src/site/model/page-figures.ts';
import { buildSite } from '../browser/browser.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { runCli } from '../helpers/cli.ts';
import { copySite, forgeReport, replaceInFile } from '../helpers/forge-site.ts';
import { REPO_ROOT } from '../helpers/hang-guard.ts';

const SCRIPT_NAME = 'verify.mjs';

interface Run {
  code: number;
  stdout: string;
}

/** `node <site>/verify.mjs <site>`: the script the site itself publishes. */
function runScript(site: string): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [join(site, SCRIPT_NAME), site], { encoding: 'utf8', timeout: 120_000, maxBuffer: 1 << 26 }, (error, stdout) => {
      const code = (error as (Error & { code?: unknown }) | null)?.code;
      done({ code: error ? (typeof code === 'number' ? code : -1) : 0, stdout });
    });
  });
}

/** Both verifiers on one site: their exit codes and MISMATCH lines. */
async function verifyBoth(site: string): Promise<{ script: Run; cli: Run; mismatches: [string[], string[]] }> {
  const [script, cli] = await Promise.all([runScript(site), runCli(['verify-site', site]).then((r) => ({ code: r.code, stdout: r.stdout }))]);
  const lines = (run: Run) => run.stdout.split('\n').filter((l) => l.startsWith('MISMATCH'));
  return { script, cli, mismatches: [lines(script), lines(cli)] };
}

let site: string;
let report: Report;

beforeAll(async () => {
  // The demo's frozen evidence with the two example bundles that do not verify (invalid, no_verdict), and its history.
  const work = await makeTempDir('ledgerboard-forge-');
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(
    config,
    JSON.stringify({
      title: 'forgery fixture',
      site_url: 'https://ledgerboard.example/',
      bundles_dir: [join(REPO_ROOT, 'content', 'bundles'), join(REPO_ROOT, 'content', 'examples')],
      retained_reports_dir: join(REPO_ROOT, 'content', 'reports'),
    }),
  );
  site = join(work, 'site');
  await buildSite({ out: site, config });
  report = JSON.parse(await readFile(join(site, 'report.json'), 'utf8')) as Report;
}, 300_000);
afterAll(removeTempDirs);

/** A candidate cohort with a verdict (on a board with a baseline). */
const candidate = (r: Report) => r.cohorts.find((c) => c.verdict !== null && c.headline.rate !== null)!;

describe('the faithful site', () => {
  it('re-derives with 0 mismatches from both verifiers: the report byte for byte, the derived files, the page figures', async () => {
    expect(report.bundles.some((b) => b.status === 'invalid')).toBe(true);
    const { script, cli, mismatches } = await verifyBoth(site);
    expect(mismatches).toEqual([[], []]);
    expect(script.code).toBe(0);
    expect(cli.code).toBe(0);
    for (const run of [script, cli]) {
      expect(run.stdout).toMatch(/^ok {2}report \/report\.json re-derived from the evidence, byte for byte: \d+ bundles verified again/m);
      expect(run.stdout).toContain('ok  csv /leaderboard.csv is what the re-derived report gives, byte for byte');
      expect(run.stdout).toMatch(/^ok {2}page \/ \d+ figures on \d+ pages are the re-derived report's$/m);
      expect(run.stdout).toMatch(/^re-derived by ledgerboard \S+ \(the report names ledgerboard \S+\)$/m);
    }
    // The CLI compares the site's script with its own.
    expect(cli.stdout).toMatch(/^ok {2}verify\.mjs \/verify\.mjs is the script ledgerboard \S+ makes/m);
  });
});

describe('a forged site is a MISMATCH naming the member, for verify.mjs and verify-site', () => {
  const expectMismatch = async (dir: string, pattern: RegExp) => {
    const { script, cli, mismatches } = await verifyBoth(dir);
    expect(script.code, script.stdout).toBe(1);
    expect(cli.code, cli.stdout).toBe(1);
    for (const lines of mismatches) expect(lines.some((l) => pattern.test(l)), lines.join('\n')).toBe(true);
  };

  it('a verdict', async () => {
    const dir = await copySite(site);
    const target = candidate(report);
    const forged = target.verdict === 'PASS' ? 'NO_GAIN' : 'PASS';
    await forgeReport(dir, (r) => {
      r.cohorts.find((c) => c.cohort_id === target.cohort_id)!.verdict = forged;
    });
    await expectMismatch(dir, new RegExp(`^MISMATCH report /report\\.json cohort ${target.cohort_id} verdict: published ${forged}, re-derived ${target.verdict}$`));
  });

  it('a rate and its interval', async () => {
    const dir = await copySite(site);
    const target = candidate(report);
    await forgeReport(dir, (r) => {
      const c = r.cohorts.find((x) => x.cohort_id === target.cohort_id)!;
      c.headline.rate = 0.95;
      c.headline.wilson = [0.9, 0.99];
    });
    await expectMismatch(dir, new RegExp(`^MISMATCH report /report\\.json cohort ${target.cohort_id} headline\\.rate: published 0\\.95, re-derived ${target.headline.rate}$`));
  });

  it("a bundle's status and counted flag (an invalid bundle marked verified and counted)", async () => {
    const dir = await copySite(site);
    const invalid = report.bundles.find((b) => b.status === 'invalid')!;
    await forgeReport(dir, (r) => {
      const b = r.bundles.find((x) => x.content_digest === invalid.content_digest)!;
      b.status = 'verified';
      b.counted = true;
      b.findings = [];
    });
    await expectMismatch(dir, new RegExp(`^MISMATCH report /report\\.json bundle ${invalid.bundle_id} status: published verified, re-derived invalid \\((?:[A-Z_]+, )*(?:UNKNOWN_MEMBER|DUPLICATE_SLOT)`));
  });

  it('a counted bundle marked rewritten (REWRITTEN_EVIDENCE added): the append-only check is re-run against the published retained manifests', async () => {
    const dir = await copySite(site);
    expect(JSON.parse(await readFile(join(dir, 'history.json'), 'utf8')).manifests.length).toBeGreaterThan(0);
    const counted = report.bundles.find((b) => b.counted)!;
    await forgeReport(dir, (r) => {
      const b = r.bundles.find((x) => x.content_digest === counted.content_digest)!;
      b.findings.push({ code: 'REWRITTEN_EVIDENCE', severity: 'error', file: 'attempts.jsonl', message: 'rewritten since bundle sha256:0000 (retained)' });
      b.status = 'invalid';
      b.counted = false;
    });
    // A rejected bundle is published under its content digest: the forger moves it there too.
    await rename(join(dir, 'bundles', digestHex(counted.bundle_id!)), join(dir, 'bundles', digestHex(counted.content_digest)));
    await expectMismatch(dir, new RegExp(`^MISMATCH report /report\\.json bundle ${counted.bundle_id} status: published invalid, re-derived verified$`));
  });

  it("a pair's winner and a rank range", async () => {
    const dir = await copySite(site);
    const board = report.boards.find((b) => (b.pairs?.length ?? 0) > 0)!;
    const pair = board.pairs![0]!;
    const loser = report.cohorts.find((c) => c.cohort_id === pair.b)!;
    await forgeReport(dir, (r) => {
      const p = r.boards.find((b) => b.board_id === board.board_id)!.pairs![0]!;
      p.winner = p.winner === p.a ? p.b : p.a;
      const c = r.cohorts.find((x) => x.cohort_id === loser.cohort_id)!;
      c.rank_range = [1, 1];
    });
    await expectMismatch(dir, new RegExp(`^MISMATCH report /report\\.json board ${board.board_id} pairs\\[0\\]\\.winner: published `));
    const { script } = await verifyBoth(dir);
    expect(script.stdout).toMatch(new RegExp(`^MISMATCH report /report\\.json cohort ${loser.cohort_id} rank_range`, 'm'));
  });

  it('a what-changed diff (changes.json edited, ids intact)', async () => {
    const dir = await copySite(site);
    const hex = digestHex(report.report_id);
    const changes = JSON.parse(await readFile(join(dir, 'changes.json'), 'utf8')) as { reports: { report: string; summary: string }[] };
    const entry = changes.reports.find((e) => e.report === hex)!;
    expect(await replaceInFile(join(dir, 'changes.json'), JSON.stringify(entry.summary), JSON.stringify('no cohort changed'))).toBe(true);
    await expectMismatch(dir, /^MISMATCH changes \/changes\.json is not what the re-derived report gives: line 1, column \d+: published ".*no cohort changed/);
  });

  it('a CSV cell', async () => {
    const dir = await copySite(site);
    const target = candidate(report);
    const csv = await readFile(join(dir, 'leaderboard.csv'), 'utf8');
    const row = csv.split('\r\n').find((l) => l.includes(target.cohort_id))!;
    expect(row).toContain(`,${target.headline.rate},`);
    expect(await replaceInFile(join(dir, 'leaderboard.csv'), row, row.replace(`,${target.headline.rate},`, ',0.99,'))).toBe(true);
    await expectMismatch(dir, /^MISMATCH csv \/leaderboard\.csv is not what the re-derived report gives: line \d+, column \d+: published .*0\.99/);
  });

  it('a cohort JSON file', async () => {
    const dir = await copySite(site);
    const target = candidate(report);
    const file = join(dir, 'cohorts', `${digestHex(target.cohort_id)}.json`);
    expect(await replaceInFile(file, `"verdict":"${target.verdict}"`, `"verdict":"${target.verdict === 'PASS' ? 'NO_GAIN' : 'PASS'}"`)).toBe(true);
    await expectMismatch(dir, new RegExp(`^MISMATCH cohort json /cohorts/${digestHex(target.cohort_id)}\\.json is not the re-derived cohort: verdict: published`));
  });

  it('a figure in a page', async () => {
    const dir = await copySite(site);
    const target = candidate(report);
    const key = figureKey(target.cohort_id, 'rate');
    const page = join(dir, 'cohorts', digestHex(target.cohort_id), 'index.html');
    const html = await readFile(page, 'utf8');
    const shown = new RegExp(`data-figure="${key}">([^<]*)<`).exec(html)![1]!;
    expect(await replaceInFile(page, `data-figure="${key}">${shown}<`, `data-figure="${key}">99.9%<`)).toBe(true);
    await expectMismatch(dir, new RegExp(`^MISMATCH page /cohorts/${digestHex(target.cohort_id)}/ figure ${key}: the page shows "99\\.9%", the re-derived report gives "${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`));
  });
});

describe('a report that names another ledgerboard version', () => {
  it('re-derives (its analysis agrees): exit 0, both versions named', async () => {
    const dir = await copySite(site);
    await forgeReport(dir, (r) => {
      r.generator.version = '9.9.9';
    });
    const { script, cli, mismatches } = await verifyBoth(dir);
    expect(mismatches).toEqual([[], []]);
    expect([script.code, cli.code]).toEqual([0, 0]);
    expect(cli.stdout).toMatch(/^info {2}version \/report\.json the report was made by ledgerboard 9\.9\.9; re-derived by ledgerboard \S+$/m);
    expect(cli.stdout).toContain('info  verify.mjs the site was made by ledgerboard 9.9.9: its /verify.mjs is not compared with this version');
  });

  it('does not re-derive: said plainly with the version to use (exit 3), not a MISMATCH', async () => {
    const dir = await copySite(site);
    const target = candidate(report);
    await forgeReport(dir, (r) => {
      r.generator.version = '9.9.9';
      r.cohorts.find((c) => c.cohort_id === target.cohort_id)!.verdict = target.verdict === 'PASS' ? 'NO_GAIN' : 'PASS';
    });
    const { cli, mismatches } = await verifyBoth(dir);
    expect(mismatches[1]).toEqual([]);
    expect(cli.code).toBe(3);
    expect(cli.stdout).toMatch(/^NOT REPRODUCED version \/report\.json the report was made by ledgerboard 9\.9\.9; ledgerboard \S+ re-derives another report \(first difference: report \/report\.json cohort \S+ verdict: published \S+, re-derived \S+\); re-derive it with that version: npx --yes --package ledgerboard@9\.9\.9 ledgerboard verify-site /m);
  });
});
