/**
 * The plan, cohort, incompatibilities and rejected pages in reading order
 * (issue 13, items 1 and 6), over one build of the demo (frozen and imported
 * evidence, as `npm run build`):
 *
 * - a plan page reads: what ran (with its budget in currency units), the
 *   boards and cohorts it feeds (links that resolve), the publisher's notes,
 *   then the raw plan JSON and the manifest, collapsed;
 * - the plan JSON is highlighted in both themes (CSS variables per token);
 * - a cohort page shows its ids (cohort, board, ledger, harness commit,
 *   plans, bootstrap seed) once, in its Identifiers block, after the verdict;
 * - /incompatibilities/ has one section per ledger: its boards with their
 *   cohorts once, each differing component's values once (issue 25: grouped,
 *   never a list of pairs);
 * - a board page reads: its table and charts, then the compatibility key and
 *   its id;
 * - boards are named by their title (src/site/views/board-names.ts boardTitle) on
 *   the plan, cohort and incompatibilities pages, and on a retained report's
 *   page by their title among THAT report's boards;
 * - no <title> of these pages holds a run of 12 or more hex digits.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupedIncompatibilities, type Report } from '../../src/report/schema.ts';
import { cohortPairCount, expandCohortPairs } from '../../src/analysis/incompatibilities.ts';
import { boardTitle } from '../../src/site/views/board-names.ts';
import { sitemapPaths } from '../browser/browser.ts';
import { sharedDemoBuild } from '../browser/shared-demo.ts';
import { removeTempDirs } from '../helpers/bundle-builder.ts';

let out = '';
let report: Report;
let paths: string[] = [];

const hex = (digest: string) => digest.slice('sha256:'.length);
const page = (path: string) => readFile(join(out, path, 'index.html'), 'utf8');
/** Text of some HTML: tags dropped, the few entities Astro writes decoded, whitespace collapsed. */
const textOf = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
/** Text as Astro writes it in HTML (the few characters it escapes). */
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const countedPlans = () => report.bundles.filter((b) => b.counted && b.plan_id !== null);

beforeAll(async () => {
  out = await sharedDemoBuild();
  report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  paths = await sitemapPaths(out);
}, 300_000);

afterAll(removeTempDirs);

describe('plan pages', () => {
  it('read in order: what ran, the boards and cohorts it feeds, the notes, then the raw plan and the manifest', async () => {
    expect(countedPlans().length).toBeGreaterThan(10);
    for (const b of countedPlans()) {
      const html = await page(`plans/${hex(b.plan_id!)}`);
      const at = (section: string) => html.indexOf(`data-plan-section="${section}"`);
      const order = ['summary', 'feeds', 'notes', 'plan', 'manifest'].filter((s) => at(s) >= 0);
      expect(order.slice(0, 2), b.plan_id!).toEqual(['summary', 'feeds']);
      expect(order.slice(-2), b.plan_id!).toEqual(['plan', 'manifest']);
      expect(order.map(at), b.plan_id!).toEqual(order.map(at).sort((x, y) => x - y));
      // The demo's frozen plans all have notes: they come before the raw plan.
      if (b.plan!.budget !== null) expect(order).toContain('notes');
      // The highlighted plan and the manifest table are collapsed.
      const plan = html.slice(at('plan'), at('manifest'));
      expect(plan).toMatch(/<details><summary>plan\.json as published[^<]*<\/summary><pre class="shiki/);
      const manifest = html.slice(at('manifest'));
      expect(manifest.indexOf('<details><summary>Files:')).toBeGreaterThanOrEqual(0);
      expect(manifest.indexOf('<details><summary>Files:')).toBeLessThan(manifest.indexOf('<table>'));
    }
  });

  it('state the budget in currency units, the exact micros beside a rounded amount', async () => {
    const nov = report.bundles.find((b) => b.plan?.title === 'widget-bugs with network-less tools, November 2026')!;
    const text = textOf(await page(`plans/${hex(nov.plan_id!)}`));
    expect(text).toContain('Budget USD 0.14 per attempt (138,888 micros), USD 40.00 in all, 1,800 s timeout');
    expect(text).toContain('Attempts 3 per task and subject');
    expect(text).toContain('acme/mini-2026-08-01 · loop 3.1.0 (candidate)');
    expect(text).not.toMatch(/micros per attempt/);
  });

  it('link every board and cohort the plan feeds, as report.cohorts[].plans says, and the links resolve', async () => {
    let links = 0;
    for (const b of countedPlans()) {
      const html = await page(`plans/${hex(b.plan_id!)}`);
      const cohorts = report.cohorts.filter((c) => c.plans.some((p) => p.plan_id === b.plan_id));
      expect(cohorts.length, b.plan_id!).toBeGreaterThan(0);
      const linked = (kind: string) => [...html.matchAll(new RegExp(`<a href="/${kind}/([0-9a-f]{64})/" data-feeds-${kind.slice(0, -1)}>`, 'g'))].map((m) => m[1]!);
      expect(linked('cohorts').sort()).toEqual(cohorts.map((c) => hex(c.cohort_id)).sort());
      expect(linked('boards').sort()).toEqual([...new Set(cohorts.map((c) => hex(c.board_id)))].sort());
      for (const kind of ['cohorts', 'boards']) {
        for (const id of linked(kind)) {
          await expect(access(join(out, kind, id, 'index.html'))).resolves.toBeUndefined();
          expect(paths).toContain(`/${kind}/${id}/`);
          links++;
        }
      }
    }
    expect(links).toBeGreaterThan(report.cohorts.length);
  });

  it('highlight the plan JSON with both themes: a token carries its light and its dark colour as variables', async () => {
    const b = countedPlans()[0]!;
    const html = await page(`plans/${hex(b.plan_id!)}`);
    expect(html).toContain('<pre class="shiki shiki-themes github-light github-dark"');
    // "plan_id" is a JSON key: github-light #005CC5, github-dark #79B8FF.
    expect(html).toMatch(/<span style="--shiki-light:#005CC5;--shiki-dark:#79B8FF">\s*"plan_id"<\/span>/);
    // No single-theme colour left from before: every token's style is the two variables.
    const plan = html.slice(html.indexOf('<pre class="shiki'), html.indexOf('</pre>', html.indexOf('<pre class="shiki')));
    for (const [, style] of plan.matchAll(/<span style="([^"]*)"/g)) expect(style).toMatch(/^--shiki-light:#[0-9A-Fa-f]{3,8};--shiki-dark:#[0-9A-Fa-f]{3,8}$/);
    // site.css switches to the dark variables under prefers-color-scheme: dark.
    const css = await readFile(join(out, 'site.css'), 'utf8');
    expect(css).toMatch(/@media \(prefers-color-scheme: dark\) \{ pre\.shiki \{ color: var\(--shiki-dark\); background-color: var\(--shiki-dark-bg\); \} pre\.shiki span \{ color: var\(--shiki-dark\); \} \}/);
  });
});

describe('cohort pages', () => {
  it('show the verdict first and each id (cohort, board, ledger, harness commit, plans, seed) once, in the Identifiers block', async () => {
    for (const c of report.cohorts) {
      const html = await page(`cohorts/${hex(c.cohort_id)}`);
      const start = html.indexOf('<details class="ids" id="identifiers"');
      expect(start, c.cohort_id).toBeGreaterThan(0);
      const end = html.indexOf('</details>', html.indexOf('</dl>', start)) + '</details>'.length;
      const ids = html.slice(start, end);
      // The page's own content (the footer's citation names the page's URL, which holds the cohort id).
      const main = [html.indexOf('<main'), html.indexOf('</main>')] as const;
      // The Badge section's embed snippets are addresses to copy (this page's URL and the badge's hold the cohort id), not prose: left out, as the footer is.
      const badge = [html.indexOf('<section aria-labelledby="badge" data-badge>'), html.indexOf('</section>', html.indexOf('data-badge>'))] as const;
      expect(badge[0], c.cohort_id).toBeGreaterThan(0);
      expect(badge[0]).toBeLessThan(start);
      const outside = textOf(html.slice(main[0], badge[0]) + html.slice(badge[1], start) + html.slice(end, main[1]));
      if (c.verdict !== null) expect(html.indexOf('id="verdict"')).toBeLessThan(start);
      expect(html.indexOf('Score vector')).toBeLessThan(start);
      const values = [c.board_id, c.ledger_digest, c.harness_commit, ...c.plans.map((p) => p.plan_id), ...(c.delta ? [c.delta.seed] : [])];
      for (const value of values) {
        // Shown as text once, in the block; never in the page's prose.
        expect(textOf(ids).split(value).length - 1, `${c.cohort_id}: ${value}`).toBe(1);
        expect(outside, `${c.cohort_id}: ${value}`).not.toContain(value);
      }
      // The cohort id (with its re-derivation) is in the block only, as is any other full id.
      expect(outside).not.toContain(hex(c.cohort_id));
      expect(outside).not.toContain(hex(c.board_id));
      expect(ids).toContain(hex(c.cohort_id));
    }
  });
});

describe('/incompatibilities/', () => {
  it('one section per ledger: its boards with their cohorts once, each differing component with every value once, and every pair follows', async () => {
    const html = await page('incompatibilities');
    const { by_ledger } = groupedIncompatibilities(report);
    expect(by_ledger.length).toBeGreaterThan(0);
    expect((html.match(/<section class="ledger-group"/g) ?? []).length).toBe(by_ledger.length);
    // The demo's two widget-bugs boards: 4 x 6 cohort pairs, and what differs said once per ledger, not 24 times.
    const pairs = expandCohortPairs(by_ledger);
    expect(cohortPairCount(by_ledger)).toBe(pairs.length);
    const widget = by_ledger.find((g) => expandCohortPairs([g]).length === 24)!;
    expect(widget.components.map((c) => c.component).sort()).toEqual(['environment.tool_policy', 'grading.executable', 'grading.version']);
    for (const pair of expandCohortPairs([widget])) expect(pair.differences.map((d) => d.component).sort()).toEqual(['environment.tool_policy', 'grading.executable', 'grading.version']);
    expect(html.split('<code>environment.tool_policy</code>').length - 1).toBe(by_ledger.filter((g) => g.components.some((c) => c.component === 'environment.tool_policy')).length);
    // Every cohort of every group is linked exactly once, so every pair (two cohorts on different boards) can be read off.
    const linked = [...html.matchAll(/<a href="\/cohorts\/([0-9a-f]{64})\/" data-cohort>/g)].map((m) => m[1]).sort();
    expect(linked).toEqual(by_ledger.flatMap((g) => g.boards.flatMap((b) => b.cohorts.map(hex))).sort());
    // Each value of each component is a row naming the boards that hold it.
    expect((html.match(/<tr data-component=/g) ?? []).length).toBe(by_ledger.reduce((n, g) => n + g.components.reduce((m, c) => m + c.values.length, 0), 0));
  });
});

describe('board pages', () => {
  it('read in order: the cohorts table and the charts, then the tasks, then the compatibility key with the board id', async () => {
    for (const board of report.boards) {
      const html = await page(`boards/${hex(board.board_id)}`);
      const at = (marker: string) => {
        const i = html.indexOf(marker);
        expect(i, `${board.board_id}: ${marker}`).toBeGreaterThan(0);
        return i;
      };
      const order = [at('<h1'), at('data-board-section="cohorts"'), at('<table class="board-table"'), at('<div class="board-charts">'), at('<h2>Tasks</h2>'), at('data-board-section="key"'), at('<dl class="facts board-key">'), at('<div class="digest">'), at('</main>')];
      expect(order, board.board_id).toEqual([...order].sort((x, y) => x - y));
      // The full board id is shown in the key's section only (the footer's citation names the page URL; links to the
      // board's compare and task pages carry it in their URLs, which are not text).
      const before = html.slice(html.indexOf('<main'), order[5]).replace(/\s(?:xlink:)?href="[^"]*"/g, '');
      expect(before, board.board_id).not.toContain(hex(board.board_id));
    }
  });

  it('each table caption explains a rank range and links to /methodology/#ranks, which the page has', async () => {
    const board = report.boards[0]!;
    const html = await page(`boards/${hex(board.board_id)}`);
    const caption = html.slice(html.indexOf('<caption>'), html.indexOf('</caption>'));
    expect(textOf(caption)).toContain('A rank such as 2-4 is a range: cohorts whose order the evidence does not settle share one (');
    expect(caption).toContain('<a href="/methodology/#ranks">how ranks are assigned</a>).');
    const home = await page('');
    expect((home.match(/<a href="\/methodology\/#ranks">/g) ?? []).length).toBe((home.match(/<table class="board-table"/g) ?? []).length);
    const methodology = await page('methodology');
    expect(methodology).toMatch(/<h2 id="ranks">Ranks<\/h2>/);
    expect(methodology).toContain('<dfn id="rank">Rank</dfn>');
  });
});

describe('board names before hashes', () => {
  it('plan pages name each board they feed by its title', async () => {
    for (const b of countedPlans()) {
      const html = await page(`plans/${hex(b.plan_id!)}`);
      const named = [...html.matchAll(/<a href="\/boards\/([0-9a-f]{64})\/" data-feeds-board>([^<]*)<\/a>/g)];
      expect(named.length, b.plan_id!).toBeGreaterThan(0);
      for (const [, id, text] of named) expect(text, b.plan_id!).toBe(escaped(boardTitle(report, report.boards.find((x) => hex(x.board_id) === id)!)));
    }
  });

  it('cohort pages name their board and the boards they cannot be pooled with by title', async () => {
    let others = 0;
    for (const c of report.cohorts) {
      const html = await page(`cohorts/${hex(c.cohort_id)}`);
      const board = report.boards.find((b) => b.board_id === c.board_id)!;
      expect(html, c.cohort_id).toContain(`on board <a href="/boards/${hex(c.board_id)}/">${escaped(boardTitle(report, board))}</a>`);
      const group = groupedIncompatibilities(report).by_ledger.find((g) => g.ledger_digest === c.ledger_digest);
      for (const { board_id } of group?.boards ?? []) {
        if (board_id === c.board_id) continue;
        const other = report.boards.find((b) => b.board_id === board_id)!;
        expect(html, c.cohort_id).toContain(`<p>On <a href="/boards/${hex(board_id)}/">${escaped(boardTitle(report, other))}</a>, which differs in`);
        others++;
      }
    }
    expect(others).toBeGreaterThan(0);
  });

  it('/incompatibilities/ names each board of a ledger by its title', async () => {
    const html = await page('incompatibilities');
    for (const g of groupedIncompatibilities(report).by_ledger) {
      for (const { board_id } of g.boards) {
        const board = report.boards.find((x) => x.board_id === board_id)!;
        expect(html).toContain(`<li data-board="${hex(board_id)}"><a href="/boards/${hex(board_id)}/">${escaped(boardTitle(report, board))}</a>: `);
      }
    }
  });

  it("a retained report's page titles each board among the boards of that report, with its short id beside it", async () => {
    const retained = paths.filter((p) => /^\/reports\/[0-9a-f]{64}\/$/.test(p));
    expect(retained.length).toBeGreaterThan(0);
    let boards = 0;
    for (const path of retained) {
      const old = JSON.parse(await readFile(join(out, `${path.slice(1, -1)}.json`), 'utf8')) as Report;
      const html = await page(path.slice(1, -1));
      const headings = [...html.matchAll(/<h2 class="board-title">([^<]*) <code class="board-id"[^>]*>([0-9a-f]{12})<\/code><\/h2>/g)];
      expect(headings.map((m) => [m[1], m[2]]), path).toEqual(old.boards.map((b) => [escaped(boardTitle(old, b)), hex(b.board_id).slice(0, 12)]));
      expect(html, path).not.toMatch(/<h2>Board <code>/);
      boards += headings.length;
    }
    expect(boards).toBeGreaterThan(0);
  });
});

describe('page titles', () => {
  it('plan, cohort, board, retained report, incompatibilities and rejected pages: human text, no run of 12 or more hex digits', async () => {
    const checked = paths.filter((p) => /^\/(plans|cohorts|boards|reports)\/[0-9a-f]{64}\/$/.test(p));
    expect(checked.length).toBeGreaterThan(countedPlans().length + report.cohorts.length + report.boards.length);
    for (const path of [...checked, '/incompatibilities/', '/rejected/', '/reports/', '/methodology/']) {
      const title = /<title>([^<]*)<\/title>/.exec(await page(path.slice(1, -1)))![1]!;
      expect(title, path).not.toMatch(/[0-9a-f]{12,}/i);
      expect(title.length, path).toBeGreaterThan(10);
    }
  });
});
