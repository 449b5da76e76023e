/**
 * Pairs and compare pages in Chromium (issue 14 items 1 and 2):
 *
 * - the demo, JavaScript off: from the leaderboard to a board page by
 *   clicking, the pair matrix (its compact SVG at 390 px, every text at
 *   least 11 px; its table), a click on a pair link to the compare page, whose
 *   numbers (sign test, Holm p, per-task table, delta, seed) are checked
 *   against /report.json in the page's reading order (issue 29: the
 *   candidate, else the better-placed cohort, first); a page whose URL puts
 *   the baseline first reads the candidate's delta with the sign the board
 *   shows; the cohort pages link the compare page back, and the pages fit a
 *   390 px screen;
 * - a hostile site: a cohort whose model name is an XSS payload renders as
 *   text on its compare page, and no dialog opens (JavaScript on).
 */
import { join } from 'node:path';
import { cp, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report, ReportCohort } from '../../src/report/schema.ts';
import { identity, points } from '../../src/site/views/format.ts';
import { pText } from '../../src/site/charts/chart-pairs.ts';
import { digestCanonical } from '../../src/json/canonical.ts';
import { makeTempDir, removeTempDirs, verifyDir, writeModel } from '../helpers/bundle-builder.ts';
import { buildSite, launchBrowser, requireChromium, sitemapPaths, type BrowserSession } from './browser.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { hostileModel, hostileSpecs, readCorpora, type HostileSpec } from './hostile.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

let demo: StaticServer;
let hostile: StaticServer;
let hostilePages: string[];
let spec: HostileSpec;
let jsOff: BrowserSession;
let jsOn: BrowserSession;

beforeAll(async () => {
  requireChromium();
  const work = await makeTempDir('ledgerboard-pairs-');
  spec = hostileSpecs(await readCorpora(), 1)[0]!;
  const dir = await writeModel(hostileModel(spec));
  const status = (await verifyDir(dir)).status;
  if (status !== 'verified') throw new Error(`the hostile bundle is ${status}`);
  await cp(dir, join(work, 'hostile-bundles', 'h0'), { recursive: true });
  const config = join(work, 'hostile.config.json');
  await writeFile(config, JSON.stringify({ title: 'pairs', site_url: 'https://hostile.example/' }));
  await buildSite({ bundles: join(work, 'hostile-bundles'), out: join(work, 'hostile'), config });
  hostilePages = await sitemapPaths(join(work, 'hostile'));
  [demo, hostile, jsOff, jsOn] = await Promise.all([
    serveStatic(await sharedDemoBuild()),
    serveStatic(join(work, 'hostile')),
    launchBrowser({ javaScriptEnabled: false }),
    launchBrowser({ javaScriptEnabled: true }),
  ]);
}, 300_000);

afterAll(async () => {
  await Promise.allSettled([jsOff?.close(), jsOn?.close(), demo?.close(), hostile?.close()]);
  await removeTempDirs();
});

/** A cohort's side on each headline task, as the report holds it (a candidate's tasks[].candidate; the baseline's from any candidate). */
function sidesOf(report: Report, cohort: ReportCohort): { resolved: number; attempts: number; outcome: string }[] {
  if (cohort.subject.role === 'candidate') return cohort.tasks.map((t) => t.candidate);
  const other = report.cohorts.find((c) => c.board_id === cohort.board_id && c.subject.role === 'candidate')!;
  return other.tasks.map((t) => t.baseline);
}

describe('the demo, JavaScript off: leaderboard -> board -> pair matrix -> compare page', () => {
  it('the compare page reached by clicking carries the report\'s numbers, and links both ways', { timeout: 120_000 }, async () => {
    const report = (await (await fetch(`${demo.origin}/report.json`)).json()) as Report;
    const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
    const page = await jsOff.context.newPage();
    await page.goto(`${demo.origin}/`);
    // The board of six cohorts (three plans), by its link on the leaderboard.
    await Promise.all([page.waitForURL(/\/boards\/c895cd60f302[0-9a-f]{52}\/$/), page.locator('a[href^="/boards/c895cd60f302"]').first().click()]);
    const boardHex = new URL(page.url()).pathname.split('/')[2]!;
    const board = report.boards.find((b) => b.board_id === `sha256:${boardHex}`)!;
    // The pair matrix: a cell per ordered pair, every pair linked (6 cohorts, under the cap).
    expect(await page.locator('.board-pairs table.pair-table tbody tr').count()).toBe(6);
    expect(await page.locator('.board-pairs a[data-pair-link]').count()).toBe(30);
    expect(await page.locator('.board-pairs .pair-resolution').first().textContent()).toContain('with 17 headline tasks, the smallest difference that can reach p < 0.05 before adjustment is 6 tasks to 0');
    // Row 1 (place 1) against column 5: the table's first row, fifth cell after the row header's own column.
    const link = page.locator('.board-pairs table.pair-table tbody tr').nth(0).locator('td').nth(4).locator('a');
    const cellText = (await link.textContent())!;
    await Promise.all([page.waitForURL(/\/compare\//), link.click()]);
    const [, , , , xHex, yHex] = new URL(page.url()).pathname.split('/');
    // The URL in cohort id order; the page in the reader's order (issue 29): A the candidate, else the one placed higher on the board.
    const x = cohorts.get(`sha256:${xHex}`)!;
    const y = cohorts.get(`sha256:${yHex}`)!;
    expect(x.cohort_id < y.cohort_id).toBe(true);
    expect([x.cohort_id, y.cohort_id].sort()).toEqual([board.cohorts[0], board.cohorts[4]].sort());
    const readsFirst = (p: ReportCohort, q: ReportCohort) => (p.subject.role !== q.subject.role ? p.subject.role === 'candidate' : board.cohorts.indexOf(p.cohort_id) < board.cohorts.indexOf(q.cohort_id));
    const [a, b] = readsFirst(x, y) ? [x, y] : [y, x];
    expect(await page.locator('h1 a[data-side="a"]').getAttribute('href')).toBe(`/cohorts/${a.cohort_id.slice(7)}/`);
    const pair = board.pairs!.find((p) => p.a === x.cohort_id && p.b === y.cohort_id)!;
    const [aBetter, bBetter] = a === x ? [pair.a_better, pair.b_better] : [pair.b_better, pair.a_better];
    const figure = async (name: string) => (await page.locator(`[data-figure="${name}"]`).textContent())!.trim();
    expect(await figure('tasks')).toBe(String(pair.tasks));
    expect(await figure('a_better')).toBe(String(aBetter));
    expect(await figure('b_better')).toBe(String(bBetter));
    expect(await figure('p')).toBe(pText(pair.p));
    expect(await figure('p_holm')).toBe(pText(pair.p_holm));
    // No pair of the demo has a winner (docs/formulas.md: 17 tasks cannot separate anyone under Holm).
    expect(pair.winner).toBeNull();
    expect(await figure('winner')).toBe('no difference');
    // The cell that was clicked said the same, from row 1's side.
    const rowIsA = board.cohorts[0] === a.cohort_id;
    expect(cellText).toBe(`no difference · ${rowIsA ? `${aBetter}-${bBetter}` : `${bBetter}-${aBetter}`} · p ${pText(pair.p_holm)}`);
    // Per task: one row per headline task, A's and B's sides from the report, "A" exactly as often as A has the higher rate.
    const rows = await page.locator('tr[data-task-row]').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th, td')].map((c) => c.textContent!.trim())));
    const sa = sidesOf(report, a);
    const sb = sidesOf(report, b);
    expect(rows.map((r) => r[0])).toEqual(board.ledger.headline_tasks);
    rows.forEach((r, t) => {
      expect(r[1]).toBe(`${sa[t]!.resolved} / ${sa[t]!.attempts} ${sa[t]!.outcome}`);
      expect(r[2]).toBe(`${sb[t]!.resolved} / ${sb[t]!.attempts} ${sb[t]!.outcome}`);
    });
    expect(rows.filter((r) => r[3] === 'A')).toHaveLength(aBetter);
    expect(rows.filter((r) => r[3] === 'B')).toHaveLength(bBetter);
    // The delta: A's pooled rate minus B's over the tasks both attempted, and its seed (the ids in the URL's order).
    const both = sa.flatMap((s, t) => (s.attempts > 0 && sb[t]!.attempts > 0 ? [t] : []));
    const sum = (s: typeof sa, key: 'resolved' | 'attempts') => both.reduce((n, t) => n + s[t]![key], 0);
    expect(await figure('paired_tasks')).toBe(String(both.length));
    expect(await figure('delta')).toBe(points(sum(sa, 'resolved') / sum(sa, 'attempts') - sum(sb, 'resolved') / sum(sb, 'attempts')));
    const bundles = [...new Set([...x.plans, ...y.plans].map((p) => p.bundle_id))].sort();
    expect(await figure('seed')).toBe(`${digestCanonical({ bundles, config_digest: report.config_digest })}/${x.cohort_id}/${y.cohort_id}`);
    // Cost and tokens side by side.
    expect(await page.locator('table.compare-sides').textContent()).toContain('Tokens');
    // Back: A's cohort page lists this compare page under "Compare with".
    const comparePath = new URL(page.url()).pathname;
    await Promise.all([page.waitForURL(/\/cohorts\//), page.locator('h1 a[data-side="a"]').click()]);
    expect(await page.locator(`a[data-compare-link][href="${comparePath}"]`).count()).toBe(1);
    expect(await page.locator('a[data-compare-link]').count()).toBe(5);
    await page.close();
  });

  it('the baseline\'s id sorts first, the page reads the candidate first: its delta has the sign the board shows', { timeout: 60_000 }, async () => {
    const report = (await (await fetch(`${demo.origin}/report.json`)).json()) as Report;
    const board = report.boards.find((b) => b.baseline_cohort_id !== null && b.cohorts.some((id) => id !== b.baseline_cohort_id && id > b.baseline_cohort_id! && report.cohorts.find((c) => c.cohort_id === id)!.delta?.rate))!;
    const baseline = board.baseline_cohort_id!;
    const candidate = report.cohorts.find((c) => c.board_id === board.board_id && c.cohort_id > baseline && c.subject.role === 'candidate' && c.delta?.rate)!;
    const page = await jsOff.context.newPage();
    await page.goto(`${demo.origin}/boards/${board.board_id.slice(7)}/`);
    // The board: the candidate's row shows its delta against the baseline, and its pair-table row against the baseline's column.
    const shownDelta = (await page.locator(`[data-figure="${candidate.cohort_id.slice(7)}:delta"]`).first().textContent())!.trim();
    expect(shownDelta).toBe(points(candidate.delta!.rate));
    const row = board.cohorts.indexOf(candidate.cohort_id);
    const col = board.cohorts.indexOf(baseline);
    const cell = page.locator('.board-pairs table.pair-table tbody tr').nth(row).locator('td').nth(col).locator('a');
    const pair = board.pairs!.find((p) => p.a === baseline && p.b === candidate.cohort_id)!;
    expect(await cell.textContent()).toBe(`no difference · ${pair.b_better}-${pair.a_better} · p ${pText(pair.p_holm)}`);
    await Promise.all([page.waitForURL(/\/compare\//), cell.click()]);
    // The URL keeps the id order (the baseline first); the page reads the candidate first, says so, and agrees in sign.
    expect(new URL(page.url()).pathname).toBe(`/boards/${board.board_id.slice(7)}/compare/${baseline.slice(7)}/${candidate.cohort_id.slice(7)}/`);
    expect((await page.locator('[data-compare-order]').textContent())!.replace(/\s+/g, ' ')).toMatch(/^A = .+ \(candidate\), B = .+ \(baseline\)$/);
    expect(await page.locator('h1 a[data-side="a"]').getAttribute('href')).toBe(`/cohorts/${candidate.cohort_id.slice(7)}/`);
    const figure = async (name: string) => (await page.locator(`[data-figure="${name}"]`).textContent())!.trim();
    expect(await figure('delta')).toBe(shownDelta);
    // Not the URL's order (baseline - candidate), which the page read before issue 29.
    expect(await figure('delta')).not.toBe(points(-candidate.delta!.rate!));
    expect([await figure('a_better'), await figure('b_better')]).toEqual([String(pair.b_better), String(pair.a_better)]);
    await page.close();
  });

  it('at 390 px: the compact matrix is shown with every text >= 11 px, and the pages fit the screen', { timeout: 60_000 }, async () => {
    const page = await jsOff.context.newPage();
    await page.setViewportSize({ width: 390, height: 800 });
    const paths = (await sitemapPathsOf(demo)).filter((p) => p.includes('/compare/'));
    // 6 pairs of the frozen 4-cohort board, 15 of the 6-cohort one, 1 of the imported HELM board (llama and qwen share one since issue 26).
    expect(paths).toHaveLength(6 + 15 + 1);
    await page.goto(`${demo.origin}${paths[0]!.split('/compare/')[0]}/`);
    const shown = await page.evaluate(() => {
      const svgs = [...document.querySelectorAll<SVGSVGElement>('.board-pairs svg[role="img"]')].filter((s) => s.getBoundingClientRect().width > 0);
      return svgs.map((s) => {
        const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
        return { variant: s.getAttribute('class'), min: Math.min(...[...s.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale)) };
      });
    });
    expect(shown).toHaveLength(1);
    expect(shown[0]!.variant).toContain('chart-compact');
    expect(shown[0]!.min).toBeGreaterThanOrEqual(11);
    for (const path of [paths[0]!, paths[paths.length - 1]!]) {
      await page.goto(`${demo.origin}${path}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    }
    await page.close();
  });
});

async function sitemapPathsOf(server: StaticServer): Promise<string[]> {
  const xml = await (await fetch(`${server.origin}/sitemap.xml`)).text();
  return [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => new URL(m[1]!.replace(/&amp;/g, '&')).pathname);
}

describe('hostile strings on a compare page', () => {
  it('a model name that is an XSS payload renders as text, and no dialog opens', { timeout: 60_000 }, async () => {
    const compare = hostilePages.filter((p) => p.includes('/compare/'));
    expect(compare).toHaveLength(1);
    const page = await jsOn.context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${hostile.origin}${compare[0]}`, { waitUntil: 'load' });
    const facts = await page.evaluate(() => ({
      sides: [...document.querySelectorAll('h1 a[data-side]')].map((a) => a.textContent),
      handlers: document.querySelectorAll('[onerror], [onload], [onclick], [onmouseover], [onfocus]').length,
      inlineScripts: document.querySelectorAll('script:not([src])').length,
      injected: document.querySelectorAll('main img, main iframe, main object, main embed, main svg:not([role="img"])').length,
    }));
    const shown = identity(spec.candidate.model).text;
    expect(spec.candidate.model).toMatch(/[<>]/);
    expect(facts.sides.some((t) => t!.includes(shown))).toBe(true);
    expect(facts.handlers).toBe(0);
    expect(facts.inlineScripts).toBe(0);
    expect(facts.injected).toBe(0);
    // The board's pair table and the cohort pages' "Compare with" lists carry it as text too.
    await page.goto(`${hostile.origin}${compare[0]!.split('/compare/')[0]}/`, { waitUntil: 'load' });
    expect(await page.locator('.board-pairs table.pair-table tbody th').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining(shown)]));
    expect(await page.locator('a[data-pair-link]').count()).toBe(2);
    expect(dialogs).toEqual([]);
    await page.close();
  });
});
