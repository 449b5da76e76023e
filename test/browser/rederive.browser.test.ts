/**
 * The in-browser re-derivation on /verify/ (issue 24, item 3; docs/site.md,
 * "Re-deriving in the browser"): the button starts the site's worker
 * (/verify-worker.js), which re-derives the report from the published
 * evidence and compares it with report.json.
 *
 * - the demo: "match", 0 mismatches, the progress bar full, in the time the
 *   size limit was chosen by (logged: docs/benchmarks.md (m));
 * - a forged copy of the demo (one cohort's verdict rewritten, every id
 *   re-derived: test/helpers/forge-site.ts): "mismatch", and the MISMATCH
 *   line names the cohort and the member;
 * - above the limit (lowered with ?rederive-limit=1): one checkbox per board;
 *   the boards not chosen are listed as not re-derived;
 * - without JavaScript: the section says it needs JavaScript, points to
 *   verify.mjs; axe-core finds no violation on /verify/ after a run.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDERIVE_IN_BROWSER_MAX_BYTES } from '../../src/site/model/rederive-limit.ts';
import { rename } from 'node:fs/promises';
import { digestHex } from '../../src/json/canonical.ts';
import type { Report } from '../../src/report/schema.ts';
import { figureKey } from '../../src/site/model/page-figures.ts';
import { copySite, forgeReport, replaceInFile } from '../helpers/forge-site.ts';
import { ROOT } from './browser.ts';
import { openDemoSite, withPage, type DemoSite } from './demo-site.ts';
import { serveStatic, type StaticServer } from './static-server.ts';

/** The longest a re-derivation of the demo may take here (the limit is chosen so a run at the limit stays near 30 s). */
const RUN_MS = 120_000;

interface Forged {
  dir: string;
  server: StaticServer;
  cohortId: string;
  published: string;
  real: string;
}

/**
 * A copy of a built site whose report.json says another verdict for one candidate cohort, with every id
 * re-derived by the shared forge (test/helpers/forge-site.ts: report_id, the cohort files, changes.json, the
 * report id in the pages), so the id checks of verify-browser.js cannot catch it.
 */
async function forgeVerdict(site: string): Promise<Omit<Forged, 'server'>> {
  const dir = await copySite(site, 'ledgerboard-rederive-forged-');
  let forged: { cohortId: string; published: string; real: string } | null = null;
  await forgeReport(dir, (report) => {
    const cohort = report.cohorts.find((c) => c.verdict !== null && c.verdict !== 'PASS') ?? report.cohorts.find((c) => c.verdict !== null);
    if (!cohort) throw new Error('the demo has no cohort with a verdict');
    const real = cohort.verdict!;
    const published = real === 'PASS' ? 'NO_GAIN' : 'PASS';
    cohort.verdict = published;
    forged = { cohortId: cohort.cohort_id, published, real };
  });
  return { dir, ...forged! };
}

/** A regular expression matching a text literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every forgery of issue 24's "Done when" at once, each on its own entity, so one run in the browser must name
 * all of them: a verdict, a rate and its interval, a bundle's status and counted flag, a pair's winner, a rank
 * range (report.json, every id re-derived), a what-changed diff, a CSV cell, a cohort file and a page figure
 * (each edited alone). Returns what each MISMATCH line must say.
 */
async function forgeEverything(site: string, report: Report): Promise<{ dir: string; expected: Record<string, RegExp> }> {
  const dir = await copySite(site, 'ledgerboard-rederive-all-');
  const withVerdict = report.cohorts.filter((c) => c.verdict !== null && c.headline.rate !== null);
  const verdict = withVerdict[0]!;
  const rate = report.cohorts.find((c) => c.headline.rate !== null && c.cohort_id !== verdict.cohort_id)!;
  const board = report.boards.find((b) => (b.pairs?.length ?? 0) > 0)!;
  const used = new Set([verdict.cohort_id, rate.cohort_id]);
  const next = () => {
    const c = report.cohorts.find((x) => !used.has(x.cohort_id) && x.headline.rate !== null)!;
    used.add(c.cohort_id);
    return c;
  };
  const ranked = next();
  const cohortFile = next();
  const csvRow = next();
  // The figure: a cohort whose page prints its rate (a cohort without a usable grade prints none).
  let figure = next();
  while (!(await readFile(join(dir, 'cohorts', digestHex(figure.cohort_id), 'index.html'), 'utf8')).includes(`data-figure="${figureKey(figure.cohort_id, 'rate')}">`)) figure = next();
  const bundle = report.bundles.find((b) => b.counted && b.plan?.origin === 'frozen')!;
  const forgedVerdict = verdict.verdict === 'PASS' ? 'NO_GAIN' : 'PASS';
  await forgeReport(dir, (r) => {
    r.cohorts.find((c) => c.cohort_id === verdict.cohort_id)!.verdict = forgedVerdict;
    const h = r.cohorts.find((c) => c.cohort_id === rate.cohort_id)!.headline;
    h.rate = 0.95;
    h.wilson = [0.9, 0.99];
    const p = r.boards.find((b) => b.board_id === board.board_id)!.pairs![0]!;
    p.winner = p.winner === p.a ? p.b : p.a;
    const c = r.cohorts.find((x) => x.cohort_id === ranked.cohort_id)!;
    c.rank_range = [c.rank_range![0] + 1, c.rank_range![1] + 1];
    const b = r.bundles.find((x) => x.content_digest === bundle.content_digest)!;
    b.status = 'invalid';
    b.counted = false;
  });
  await rename(join(dir, 'bundles', digestHex(bundle.bundle_id!)), join(dir, 'bundles', digestHex(bundle.content_digest)));
  const changes = JSON.parse(await readFile(join(dir, 'changes.json'), 'utf8')) as { reports: { summary: string }[] };
  const last = changes.reports.at(-1)!;
  await replaceInFile(join(dir, 'changes.json'), JSON.stringify(last.summary), JSON.stringify('no cohort changed'));
  await replaceInFile(join(dir, 'cohorts', `${digestHex(cohortFile.cohort_id)}.json`), `"rank":${cohortFile.rank},`, `"rank":${cohortFile.rank + 9},`);
  const csv = await readFile(join(dir, 'leaderboard.csv'), 'utf8');
  const row = csv.split('\r\n').find((l) => l.includes(csvRow.cohort_id))!;
  await replaceInFile(join(dir, 'leaderboard.csv'), row, row.replace(csvRow.subject.model, 'someone-else/model'));
  const key = figureKey(figure.cohort_id, 'rate');
  const page = join(dir, 'cohorts', digestHex(figure.cohort_id), 'index.html');
  const shown = new RegExp(`data-figure="${key}">([^<]*)<`).exec(await readFile(page, 'utf8'))![1]!;
  await replaceInFile(page, `data-figure="${key}">${shown}<`, `data-figure="${key}">99.9%<`);
  return {
    dir,
    expected: {
      verdict: new RegExp(`^MISMATCH report /report\\.json cohort ${verdict.cohort_id} verdict: published ${forgedVerdict}, re-derived ${verdict.verdict}$`),
      rate: new RegExp(`^MISMATCH report /report\\.json cohort ${rate.cohort_id} headline\\.rate: published 0\\.95, re-derived ${literal(String(rate.headline.rate))}$`),
      status: new RegExp(`^MISMATCH report /report\\.json bundle ${bundle.bundle_id} status: published invalid, re-derived verified$`),
      winner: new RegExp(`^MISMATCH report /report\\.json board ${board.board_id} pairs\\[0\\]\\.winner: `),
      rankRange: new RegExp(`^MISMATCH report /report\\.json cohort ${ranked.cohort_id} rank_range`),
      changes: /^MISMATCH changes \/changes\.json is not what the re-derived report gives: line 1, column \d+: published /,
      csv: /^MISMATCH csv \/leaderboard\.csv is not what the re-derived report gives: line \d+, column \d+: published .*someone-else\/model/,
      cohortFile: new RegExp(`^MISMATCH cohort json /cohorts/${digestHex(cohortFile.cohort_id)}\\.json is not the re-derived cohort: rank: published ${cohortFile.rank + 9}, re-derived ${cohortFile.rank}$`),
      figure: new RegExp(`^MISMATCH page /cohorts/${digestHex(figure.cohort_id)}/ figure ${key}: the page shows "99\\.9%", the re-derived report gives "${literal(shown)}"$`),
    },
  };
}

/** Clicks the re-derive button and waits for the run to end: the section's status and the lines. */
async function rederive(page: Page): Promise<{ status: string; live: string; lines: { status: string; text: string }[]; seconds: number; progress: { value: number; max: number } }> {
  const started = Date.now();
  await page.click('button[data-rederive]');
  await page.waitForFunction(() => !['idle', 'running'].includes(document.querySelector('[data-rederive-root]')!.getAttribute('data-rederive-status')!), undefined, { timeout: RUN_MS });
  const seconds = (Date.now() - started) / 1000;
  return {
    seconds,
    ...(await page.evaluate(() => {
      const root = document.querySelector('[data-rederive-root]')!;
      const bar = root.querySelector('progress')!;
      return {
        status: root.getAttribute('data-rederive-status')!,
        live: root.querySelector('[data-rederive-live]')!.textContent!,
        lines: [...root.querySelectorAll('[data-rederive-results] li')].map((li) => ({ status: li.getAttribute('data-rederive-line') ?? '', text: li.textContent! })),
        progress: { value: bar.value, max: bar.max },
      };
    })),
  };
}

describe('re-deriving the report in the browser (/verify/)', () => {
  let demo: DemoSite;
  let forged: Forged;

  beforeAll(async () => {
    demo = await openDemoSite();
    const copy = await forgeVerdict(demo.out);
    forged = { ...copy, server: await serveStatic(copy.dir) };
  }, 300_000);

  afterAll(async () => {
    await forged?.server.close();
    await demo?.close();
  });

  it('the site publishes the worker (the compiled one) and the script, and states its evidence size under the limit', async () => {
    expect(await readFile(join(demo.out, 'verify-worker.js'), 'utf8')).toBe(await readFile(join(ROOT, 'lib', 'site-verifier', 'verify-worker.js'), 'utf8'));
    expect(await readFile(join(demo.out, 'rederive-browser.js'), 'utf8')).toBe(await readFile(join(ROOT, 'public', 'rederive-browser.js'), 'utf8'));
    await withPage(demo.jsOn, async (page) => {
      await page.goto(`${demo.server.origin}/verify/`);
      const section = page.locator('[data-rederive-root]');
      // First on the page: the first section after the heading.
      expect(await page.evaluate(() => document.querySelector('main h1 ~ section')?.id)).toBe('rederive');
      const bytes = Number(await section.getAttribute('data-rederive-bytes'));
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBeLessThanOrEqual(REDERIVE_IN_BROWSER_MAX_BYTES);
      expect(Number(await section.getAttribute('data-rederive-limit'))).toBe(REDERIVE_IN_BROWSER_MAX_BYTES);
      expect(await page.locator('[data-rederive-choice]').isHidden()).toBe(true);
      expect(await page.locator('[data-rederive-live]').textContent()).toBe('Not run yet.');
    });
  });

  it('on the demo: match, 0 mismatches, the progress bar full', async () => {
    await withPage(demo.jsOn, async (page) => {
      await page.goto(`${demo.server.origin}/verify/`);
      const run = await rederive(page);
      console.log(`the demo re-derived in Chromium in ${run.seconds.toFixed(1)} s: ${run.live}`);
      expect(run.status, run.live).toBe('match');
      expect(run.live).toMatch(/^match: \d+ checks, 0 mismatches/);
      expect(run.lines.filter((l) => l.status === 'MISMATCH')).toEqual([]);
      expect(run.lines.length).toBeGreaterThan(0);
      expect(run.progress.value).toBe(run.progress.max);
      expect(await page.locator('button[data-rederive]').isEnabled()).toBe(true);
    });
    expect(demo.jsOn.external).toEqual([]);
  }, RUN_MS + 30_000);

  it('on a forged copy of the demo (a verdict rewritten, every id re-derived): mismatch, and the MISMATCH line names the member', async () => {
    await withPage(demo.jsOn, async (page) => {
      await page.goto(`${forged.server.origin}/verify/`);
      const run = await rederive(page);
      expect(run.status, run.live).toBe('mismatch');
      const mismatches = run.lines.filter((l) => l.status === 'MISMATCH');
      expect(mismatches.length).toBeGreaterThan(0);
      // MISMATCH lines come first, each marked.
      expect(run.lines[0]!.status).toBe('MISMATCH');
      expect(await page.locator('[data-rederive-results] li.rederive-mismatch').count()).toBe(mismatches.length);
      const named = mismatches.find((l) => l.text.includes(forged.cohortId) && l.text.includes('verdict'));
      expect(named?.text, mismatches.map((l) => l.text).join('\n')).toMatch(/^MISMATCH /);
      expect(named!.text).toContain(forged.published);
      expect(named!.text).toContain(forged.real);
      expect(run.live).toMatch(/^mismatch: MISMATCH /);
    });
  }, RUN_MS + 30_000);

  it('on a copy forged every way of issue 24 at once: each forgery is a MISMATCH line naming its member', async () => {
    const all = await forgeEverything(demo.out, demo.report);
    const server = await serveStatic(all.dir);
    try {
      await withPage(demo.jsOn, async (page) => {
        await page.goto(`${server.origin}/verify/`);
        const run = await rederive(page);
        expect(run.status, run.live).toBe('mismatch');
        const mismatches = run.lines.filter((l) => l.status === 'MISMATCH').map((l) => l.text);
        for (const [what, pattern] of Object.entries(all.expected)) expect(mismatches.some((t) => pattern.test(t)), `${what}\n${mismatches.join('\n')}`).toBe(true);
      });
    } finally {
      await server.close();
    }
  }, RUN_MS + 30_000);

  it('above the size limit (lowered by ?rederive-limit=1): a checkbox per board, and the boards not chosen are listed as not re-derived', async () => {
    await withPage(demo.jsOn, async (page) => {
      await page.goto(`${demo.server.origin}/verify/?rederive-limit=1`);
      const boxes = page.locator('[data-rederive-choice] input[type=checkbox]');
      expect(await page.locator('[data-rederive-choice]').isVisible()).toBe(true);
      expect(await boxes.count()).toBe(demo.report.boards.length);
      // Nothing chosen: nothing runs.
      await page.click('button[data-rederive]');
      expect(await page.locator('[data-rederive-live]').textContent()).toMatch(/Choose at least one board/);
      expect(await page.getAttribute('[data-rederive-root]', 'data-rederive-status')).toBe('idle');
      // The first board's ledger: every board on another ledger is not re-derived.
      const ledger = (await boxes.first().getAttribute('data-rederive-ledger'))!;
      await boxes.first().check();
      const run = await rederive(page);
      expect(run.status, run.live).toBe('match');
      const others = demo.report.boards.filter((b) => b.key.ledger_digest !== ledger);
      expect(others.length).toBeGreaterThan(0);
      const skipped = run.lines.find((l) => l.status === 'not-rederived');
      for (const b of others) expect(skipped?.text, b.board_id).toContain(b.board_id);
      for (const b of demo.report.boards.filter((x) => x.key.ledger_digest === ledger)) expect(skipped?.text ?? '').not.toContain(b.board_id);
      expect(run.live).toMatch(/not re-derived/);
    });
  }, RUN_MS + 30_000);

  it('without JavaScript the section says it needs JavaScript and points to verify.mjs', async () => {
    await withPage(demo.jsOff, async (page) => {
      await page.goto(`${demo.server.origin}/verify/`);
      expect(await page.locator('[data-rederive-live]').textContent()).toMatch(/needs JavaScript.*verify\.mjs/);
      expect(await page.locator('#rederive a[href="/verify.mjs"]').count()).toBeGreaterThan(0);
    });
  });

  it('axe-core finds no violation on /verify/ after a run on the forged copy', async () => {
    await withPage(demo.jsOn, async (page) => {
      await page.goto(`${forged.server.origin}/verify/`);
      await rederive(page);
      await page.addScriptTag({ path: join(ROOT, 'node_modules', 'axe-core', 'axe.min.js') });
      const violations = await page.evaluate(async () => {
        const axe = (globalThis as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: { id: string; nodes: { html: string }[] }[] }> } }).axe;
        return (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`);
      });
      expect(violations).toEqual([]);
    });
  }, RUN_MS + 30_000);
});
