/**
 * What changed between reports on the site (issue 14, item 4):
 *
 * - the demo's retained reports and the current report carry the right
 *   one-line summary (each against the report listed before it), in the
 *   model's view, on /reports/, on each retained report's page and in the
 *   feed entry;
 * - a second report built from changed evidence (the demo's bundles minus
 *   one, or another config) is told apart from the first by the right causes;
 * - /changes.json lists every diff, and verify.mjs recomputes each from the
 *   two published reports (its own port of the rules, compared here with
 *   diffReports on every pair), and says MISMATCH when one is edited.
 */
import { execFile } from 'node:child_process';
import { cp, writeFile } from 'node:fs/promises';
import { canonicalJson } from '../../src/json/canonical.ts';
import * as verifyScript from '../../src/rederive/site-checks.mjs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config/config.ts';
import { diffReports, diffSummary } from '../../src/history/report-diff.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { atomFeed } from '../../src/site/build/data-files.ts';
import { FIRST, reportChanges } from '../../src/site/model/report-changes.ts';
import { buildSite } from '../browser/browser.ts';
import { demoSiteModel } from '../golden/demo-site-model.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The demo's retained reports, oldest first (same evidence date: by id). */
const OLDER = '0bba99e5e9037db6e83763337f765052fafd583094df6b6abbf3413bbd173ab9';
const NEWER = 'ad1780b8b71254a8db002ae4fded48375ecef226fbd644a40cb3ee3c151ab4b0';
/** The older holds the frozen demo only, under an older config; the newer adds the 11 imported Inspect cohorts. */
const NEWER_SUMMARY = '11 cohorts added (new plan, config change)';

afterAll(removeTempDirs);

describe('the demo site model', () => {
  it('each retained report against the one before it, the current report against the newest retained', async () => {
    const model = await demoSiteModel(root);
    expect(model.retained.map((r) => r.hex)).toEqual([OLDER, NEWER]);
    const changes = reportChanges(model);
    expect(changes.retained.get(OLDER)).toEqual({ previous: null, diff: null, summary: FIRST });
    const newer = changes.retained.get(NEWER)!;
    expect(newer.previous).toBe(OLDER);
    expect(newer.summary).toBe(NEWER_SUMMARY);
    expect(newer.diff!.changes.every((c) => c.kind === 'added' && c.before === null && c.after !== null)).toBe(true);
    expect(newer.diff!.new_plans).toHaveLength(11);
    // The current report counts the newest retained one's evidence plus the runs of the importers added since (lm-eval, HELM,
    // SWE-bench, Terminal-Bench, EEE): those cohorts are added, by new plans; nothing else moved (rank ranges and regrades came
    // since: not moves). The demo config names a score card since (issue 27): a config change too.
    const retainedCohorts = new Set(model.retained.find((r) => r.hex === NEWER)!.report!.cohorts.map((c) => c.cohort_id));
    const added = model.report.cohorts.filter((c) => !retainedCohorts.has(c.cohort_id));
    expect(added.length).toBeGreaterThanOrEqual(11);
    expect(changes.current).toMatchObject({ previous: NEWER, summary: `${added.length} cohorts added (new plan, config change)` });
    expect(changes.current.diff!.changes.map((c) => [c.kind, c.cohort_id])).toEqual(
      added.map((c) => ['added', c.cohort_id] as const).sort((a, b) => (a[1] < b[1] ? -1 : 1)).sort((a, b) => {
        const board = (id: string) => model.report.cohorts.find((c) => c.cohort_id === id)!.board_id;
        return board(a[1]) < board(b[1]) ? -1 : board(a[1]) > board(b[1]) ? 1 : a[1] < b[1] ? -1 : 1;
      }),
    );
    // The feed entry of each retained report carries its line.
    const feed = atomFeed(model);
    expect(feed).toContain(`what changed: ${NEWER_SUMMARY}</summary>`);
    expect(feed).toContain(`what changed: ${FIRST}</summary>`);
  });
});

describe('a second report from changed evidence', () => {
  it('the demo bundles minus one against all of them: a new plan one way, withdrawn evidence the other; another config: a config change', async () => {
    const { config } = await loadConfigFile(join(root, 'ledgerboard.config.json'));
    const results = await verifyPaths([join(root, 'content', 'bundles')]);
    const all = buildReport(results, config);
    const dropped = results.find((r) => basename(r.path) === '2026-11-02-widget-bugs')!;
    const fewer = buildReport(results.filter((r) => r !== dropped), config);
    const plan = all.bundles.find((b) => b.bundle_id === dropped.verification.bundle_id)!.plan_id!;

    const grown = diffReports(fewer, all);
    expect(grown.new_plans).toEqual([plan]);
    expect(grown.withdrawn_bundles).toEqual([]);
    expect(grown.config_changed).toBe(false);
    expect(grown.changes.length).toBeGreaterThan(0);
    const fed = all.cohorts.filter((c) => c.plans.some((p) => p.plan_id === plan)).map((c) => c.cohort_id).sort();
    // Every cohort the plan feeds changed, each naming the new plan; the others that moved (rank ranges) moved with their board.
    const own = grown.changes.filter((c) => !c.via_board);
    expect(own.map((c) => c.cohort_id).sort()).toEqual(fed);
    for (const c of grown.changes) expect(c.causes, c.cohort_id).toEqual(['new_plan']);
    for (const c of grown.changes.filter((x) => x.via_board)) {
      expect(c.fields).toEqual(['rank_range']);
      expect(own.some((o) => o.board_id === c.board_id)).toBe(true);
    }
    // A cohort with other plans too moved, with its attempts before and after.
    const moved = grown.changes.find((c) => c.kind === 'moved' && c.fields.includes('attempts'))!;
    expect(moved.after!.attempts - moved.before!.attempts).toBe(72);
    expect(diffSummary(grown)).toMatch(/^(\d+ cohorts? added, )?\d+ (cohorts? )?moved \(new plan\)$/);

    const shrunk = diffReports(all, fewer);
    expect(shrunk.withdrawn_bundles).toEqual([dropped.verification.bundle_id]);
    expect(shrunk.new_plans).toEqual([]);
    expect(shrunk.changes.filter((c) => !c.via_board).map((c) => c.cohort_id).sort()).toEqual(fed);
    for (const c of shrunk.changes) expect(c.causes, c.cohort_id).toEqual(['withdrawn_evidence']);
    expect(shrunk.changes.filter((c) => c.kind === 'removed').length).toBe(grown.changes.filter((c) => c.kind === 'added').length);

    const stricter = buildReport(results, { ...config, acceptance: { ...config.acceptance, min_improved: 7 } });
    const configured = diffReports(all, stricter);
    expect(configured.config_changed).toBe(true);
    expect(configured.changes.length).toBeGreaterThan(0);
    for (const c of configured.changes) {
      expect(c.kind).toBe('moved');
      expect(c.fields).toEqual(['verdict']);
      expect(c.causes).toEqual(['config_change']);
    }
    expect(diffSummary(configured)).toBe(`${configured.changes.length} ${configured.changes.length === 1 ? 'cohort' : 'cohorts'} moved (config change)`);

    // verify.mjs has no port of the rules any more: it bundles report-diff.ts itself (no second copy to drift).
    expect(verifyScript.diffReports).toBe(diffReports);
    expect(verifyScript.diffSummary).toBe(diffSummary);
  });
});

describe('the pages', () => {
  let out = '';
  const page = (path: string) => readFile(join(out, path, 'index.html'), 'utf8');
  beforeAll(async () => {
    out = join(await makeTempDir('ledgerboard-report-changes-'), 'site');
    // The frozen demo only: the current report lacks the imported cohorts the newest retained report counted.
    await buildSite({ bundles: 'content/bundles', out });
  }, 300_000);

  it('/reports/ lists each report with its line, and the current report with what changed since the newest retained one', async () => {
    const html = await page('reports');
    expect(html).toContain(`<td data-report-summary="${NEWER}">${NEWER_SUMMARY}</td>`);
    expect(html).toContain(`<td data-report-summary="${OLDER}">${FIRST}</td>`);
    const current = html.slice(html.indexOf('id="current-changes"'));
    expect(current).toContain(`href="/reports/${NEWER}/"`);
    expect(current).toContain('<strong>11 cohorts removed (withdrawn evidence, config change)</strong>');
    expect(current.match(/<tr data-change="removed"/g)).toHaveLength(11);
  });

  it('each retained report page says what changed since the one before it, with the figures and causes', async () => {
    const newer = await page(`reports/${NEWER}`);
    expect(newer).toContain(`data-report-changes="${NEWER_SUMMARY}"`);
    expect(newer).toContain(`href="/reports/${OLDER}/"`);
    expect(newer.match(/<tr data-change="added"/g)).toHaveLength(11);
    expect(newer).toContain('new plan, config change</td>');
    const older = await page(`reports/${OLDER}`);
    expect(older).toContain(`data-report-changes="${FIRST}"`);
    expect(older).not.toContain('<tr data-change=');
    const feed = await readFile(join(out, 'feed.xml'), 'utf8');
    expect(feed).toContain(`what changed: ${NEWER_SUMMARY}</summary>`);
  });

  it('/changes.json lists each diff; verify.mjs recomputes them (ok), and an edited one is a MISMATCH (exit 1)', async () => {
    const bytes = await readFile(join(out, 'changes.json'), 'utf8');
    const listed = JSON.parse(bytes) as { schema: string; reports: { report: string; previous: string | null; summary: string; diff: unknown }[] };
    expect(bytes).toBe(`${canonicalJson(listed)}\n`);
    expect(listed.schema).toBe('ledgerboard.changes.v1');
    const current = (JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { report_id: string }).report_id.slice('sha256:'.length);
    expect(listed.reports.map((r) => [r.report, r.previous, r.summary])).toEqual([
      [OLDER, null, FIRST],
      [NEWER, OLDER, NEWER_SUMMARY],
      [current, NEWER, '11 cohorts removed (withdrawn evidence, config change)'],
    ]);
    const run = (dir: string) =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(process.execPath, [join(dir, 'verify.mjs'), dir], { encoding: 'utf8', timeout: 120_000 }, (error, stdout) => resolve({ code: error ? Number(error.code) : 0, stdout })),
      );
    const good = await run(out);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain(`what changed since ${OLDER.slice(0, 12)} re-derives: ${NEWER_SUMMARY}`);
    expect(good.stdout).toContain(`what changed since ${NEWER.slice(0, 12)} re-derives: 11 cohorts removed (withdrawn evidence, config change)`);
    // The same site with one cause edited out of a listed diff.
    const edited = join(await makeTempDir('ledgerboard-changes-edited-'), 'site');
    await cp(out, edited, { recursive: true });
    const tampered = structuredClone(listed);
    (tampered.reports[1]!.diff as { causes: string[] }).causes = ['new_plan'];
    await writeFile(join(edited, 'changes.json'), `${canonicalJson(tampered)}\n`);
    const bad = await run(edited);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/MISMATCH.*changes.*the listed diff is not what the two reports give: 11 cohorts added \(new plan, config change\)/);
  }, 180_000);
});
