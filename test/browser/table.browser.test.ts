/**
 * The board tables of the demo site in Chromium (issue 13, items 1 to 4):
 *
 * - at 1280x800 the first board's table fits its container, and its Verdict
 *   and Cost headers are inside the viewport;
 * - at 390x844 no table page scrolls sideways, and the first row's rank,
 *   subject, headline and verdict are within the viewport's width;
 * - with JavaScript, the filter narrows the rows to those the report says
 *   match, the URL query holds the filter and the sort, and loading that URL
 *   reproduces the same rows; without JavaScript every row is shown;
 * - page titles of the leaderboard and the board pages hold no run of 12 hex
 *   digits; leaderboard.js stays under 5 KB, and leaderboard.csv is linked
 *   and carries board titles and ledger names.
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankText } from '../../src/site/views/format.ts';
import type { Report, ReportBoard, ReportCohort } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { boardTitle, leaderboardLayout } from '../../src/site/views/board-names.ts';
import { ROOT, type BrowserSession } from './browser.ts';
import type { StaticServer } from './static-server.ts';
import { openDemoSite, type DemoSite } from './demo-site.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');

let site: DemoSite;
let out: string;
let server: StaticServer;
let report: Report;
let jsOn: BrowserSession;
let jsOff: BrowserSession;
let cohorts: Map<string, ReportCohort>;
let ordered: ReportBoard[];

beforeAll(async () => {
  site = await openDemoSite();
  ({ out, server, report, jsOn, jsOff } = site);
  cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  ordered = boardsInOrder(report);
}, 240_000);

afterAll(() => site?.close(), 60_000);

const boardPath = (board: ReportBoard): string => `/boards/${hex(board.board_id)}/`;

/** The cohort hrefs of the rows a page shows (not hidden), table by table, in order. */
async function shownRows(page: Page): Promise<string[]> {
  return page.$$eval('main table.board-table tbody tr', (trs) =>
    trs.filter((tr) => !(tr as HTMLElement).hidden && (tr as HTMLElement).offsetParent !== null).map((tr) => tr.querySelector('th[scope="row"] a')?.getAttribute('href') ?? ''),
  );
}

/** The cohorts the filter must keep: every word typed starts a word of the model or the agent (name and version); the verdict only by the menu (issue 29). */
function expectedRows(q: string, verdict: string): string[] {
  const layout = leaderboardLayout(ordered);
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const startsWord = (text: string, word: string) => text.split(word).slice(0, -1).some((before) => before === '' || /[^\p{L}\p{N}]$/u.test(before));
  const rows: string[] = [];
  const add = (board: ReportBoard) => {
    for (const id of board.cohorts) {
      const c = cohorts.get(id)!;
      const v = c.verdict ?? (c.subject.role === 'baseline' ? 'baseline' : '');
      const text = `${c.subject.model} ${c.subject.agent.name} ${c.subject.agent.version}`.toLowerCase();
      if (words.every((w) => startsWord(text, w)) && (!verdict || v === verdict)) rows.push(`/cohorts/${hex(id)}/`);
    }
  };
  // The page's order: frozen sections, then the imported runs table, then imported boards of several cohorts.
  layout.frozen.forEach(add);
  layout.runs.forEach(add);
  layout.imported.forEach(add);
  return rows;
}

describe('at 1280x800', () => {
  it("the first board's table fits its container; the Verdict and Cost headers are in the viewport", async () => {
    const page = await jsOff.context.newPage();
    try {
      await page.setViewportSize({ width: 1280, height: 800 });
      for (const path of ['/', boardPath(ordered[0]!)]) {
        await page.goto(server.origin + path);
        const m = await page.$eval('main table.board-table', (table) => {
          const wrap = table.parentElement!;
          const heads = Object.fromEntries([...table.querySelectorAll('thead th')].map((th) => [th.textContent!.trim().split(/\s/)[0], th.getBoundingClientRect().toJSON() as DOMRect]));
          return { scroll: wrap.scrollWidth, client: wrap.clientWidth, table: table.scrollWidth, heads, doc: document.documentElement.scrollWidth };
        });
        expect(m.scroll, path).toBeLessThanOrEqual(m.client);
        expect(m.table, path).toBeLessThanOrEqual(m.client);
        expect(m.doc, path).toBeLessThanOrEqual(1280);
        expect(Object.keys(m.heads), path).toEqual(['Rank', 'Subject', 'Headline', 'Delta', 'Verdict', 'Cost']);
        for (const name of ['Verdict', 'Cost']) {
          const r = m.heads[name]!;
          expect(r.left, `${path} ${name}`).toBeGreaterThanOrEqual(0);
          expect(r.right, `${path} ${name}`).toBeLessThanOrEqual(1280);
          expect(r.width, `${path} ${name}`).toBeGreaterThan(0);
        }
      }
    } finally {
      await page.close();
    }
  });
});

describe('at 390x844', () => {
  it('the leaderboard and every board page: no horizontal overflow; rank, subject, headline and verdict of the first row within the width', async () => {
    const page = await jsOff.context.newPage();
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      for (const path of ['/', ...ordered.map(boardPath)]) {
        await page.goto(server.origin + path);
        const m = await page.$eval('main table.board-table tbody tr', (tr) => ({
          doc: document.documentElement.scrollWidth,
          cells: [...tr.querySelectorAll('td, th')]
            .filter((c) => c.getAttribute('data-label') !== null)
            .map((c) => ({ label: c.getAttribute('data-label')!, ...(c.getBoundingClientRect().toJSON() as DOMRect) })),
        }));
        expect(m.doc, path).toBeLessThanOrEqual(390);
        const wanted = path === '/' || ordered.find((b) => boardPath(b) === path)!.cohorts.length > 0 ? ['Rank', 'Subject', 'Headline', 'Verdict'] : [];
        for (const label of wanted) {
          const cell = m.cells.find((c) => c.label === label);
          expect(cell, `${path} ${label}`).toBeDefined();
          expect(cell!.left, `${path} ${label}`).toBeGreaterThanOrEqual(0);
          expect(cell!.right, `${path} ${label}`).toBeLessThanOrEqual(390);
          expect(cell!.width, `${path} ${label}`).toBeGreaterThan(0);
        }
      }
    } finally {
      await page.close();
    }
  });
});

describe('JavaScript on: filter and sort, state in the URL', () => {
  it('typing narrows the rows to those the report says match; the URL holds the filter; loading it reproduces the rows', async () => {
    const page = await jsOn.context.newPage();
    try {
      await page.goto(`${server.origin}/`);
      const all = await shownRows(page);
      expect(all).toHaveLength(report.cohorts.length);
      expect(await page.isVisible('form[data-board-filter]')).toBe(true);

      await page.fill('form[data-board-filter] input[name="q"]', 'mini');
      const narrowed = await shownRows(page);
      expect(narrowed).toEqual(expectedRows('mini', ''));
      expect(narrowed.length).toBeGreaterThan(0);
      expect(narrowed.length).toBeLessThan(report.cohorts.length);
      expect(new URL(page.url()).searchParams.get('q')).toBe('mini');
      expect(await page.textContent('form[data-board-filter] output')).toBe(`${narrowed.length} of ${report.cohorts.length} rows`);

      await page.selectOption('form[data-board-filter] select[name="verdict"]', 'PASS');
      const passing = await shownRows(page);
      expect(passing).toEqual(expectedRows('mini', 'PASS'));
      expect(passing.length).toBeGreaterThan(0);
      expect(passing.length).toBeLessThan(narrowed.length);
      const url = new URL(page.url());
      expect([url.searchParams.get('q'), url.searchParams.get('verdict')]).toEqual(['mini', 'PASS']);

      const again = await jsOn.context.newPage();
      try {
        await again.goto(url.href);
        expect(await shownRows(again)).toEqual(passing);
        expect(await again.inputValue('form[data-board-filter] input[name="q"]')).toBe('mini');
        expect(await again.inputValue('form[data-board-filter] select[name="verdict"]')).toBe('PASS');
      } finally {
        await again.close();
      }

      // Cleared, every row again, and the query is gone.
      await page.fill('form[data-board-filter] input[name="q"]', '');
      await page.selectOption('form[data-board-filter] select[name="verdict"]', '');
      expect(await shownRows(page)).toEqual(all);
      expect(new URL(page.url()).search).toBe('');
    } finally {
      await page.close();
    }
  });

  it('a header button sorts every table (aria-sort), keyboard too; the URL holds the sort and reproduces it', async () => {
    const page = await jsOn.context.newPage();
    try {
      const board = ordered[0]!;
      await page.goto(`${server.origin}/`);
      const first = page.locator('main table.board-table').first();
      const rates = async (p: Page) =>
        p.locator('main table.board-table').first().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.headline ?? ''));
      const byRate = (dir: 1 | -1) =>
        board.cohorts
          .map((id) => cohorts.get(id)!.headline.rate)
          .map((r) => (r === null ? '' : String(r)))
          .sort((a, b) => (a === '' ? 1 : b === '' ? -1 : (Number(a) - Number(b)) * dir));

      await first.locator('thead th[data-sort="headline"] button').click();
      expect(await first.locator('thead th[data-sort="headline"]').getAttribute('aria-sort')).toBe('descending');
      expect(await rates(page)).toEqual(byRate(-1));
      // Enter on the focused button reverses it.
      await first.locator('thead th[data-sort="headline"] button').focus();
      await page.keyboard.press('Enter');
      expect(await first.locator('thead th[data-sort="headline"]').getAttribute('aria-sort')).toBe('ascending');
      expect(await rates(page)).toEqual(byRate(1));
      expect(await first.locator('thead th[aria-sort]').count()).toBe(1);
      const url = new URL(page.url());
      expect([url.searchParams.get('sort'), url.searchParams.get('dir')]).toEqual(['headline', 'asc']);

      const again = await jsOn.context.newPage();
      try {
        await again.goto(url.href);
        expect(await rates(again)).toEqual(byRate(1));
        expect(await again.locator('main table.board-table').first().locator('thead th[data-sort="headline"]').getAttribute('aria-sort')).toBe('ascending');
      } finally {
        await again.close();
      }
    } finally {
      await page.close();
    }
  });
});

describe('JavaScript off', () => {
  it('every row is shown in rank order, the filter form stays hidden, the headers are plain text', async () => {
    const page = await jsOff.context.newPage();
    try {
      await page.goto(`${server.origin}/?q=mini&verdict=PASS&sort=headline`);
      expect(await shownRows(page)).toEqual(expectedRows('', ''));
      expect(await shownRows(page)).toHaveLength(report.cohorts.length);
      expect(await page.isVisible('form[data-board-filter]')).toBe(false);
      expect(await page.locator('main table.board-table thead button').count()).toBe(0);
      const ranks = await page.locator('main table.board-table').first().locator('tbody td.rank').allTextContents();
      // The rank range (FORMAT.md 7.6) is the rank shown.
      expect(ranks).toEqual(ordered[0]!.cohorts.map((id) => rankText(cohorts.get(id)!)));
    } finally {
      await page.close();
    }
  });
});

describe('names before hashes', () => {
  it('the titles of / and every board page hold no run of 12 hex digits; a board page names its board', async () => {
    const page = await jsOff.context.newPage();
    try {
      for (const path of ['/', ...ordered.map(boardPath)]) {
        await page.goto(server.origin + path);
        const title = await page.title();
        expect(title, path).not.toMatch(/[0-9a-f]{12}/i);
        if (path !== '/') {
          const board = ordered.find((b) => boardPath(b) === path)!;
          expect(title, path).toContain(boardTitle(report, board));
          expect((await page.textContent('main > h1'))!.replace(/\s+/g, ' ').trim(), path).toBe(`${boardTitle(report, board)} ${hex(board.board_id).slice(0, 12)}`);
        }
      }
      // The leaderboard's headings: the frozen boards by title, the id beside it.
      await page.goto(`${server.origin}/`);
      const headings = await page.$$eval('main section.board > h2', (hs) => hs.map((h) => ({ link: h.querySelector('a')?.textContent ?? '', id: h.querySelector('code.board-id')?.textContent ?? '' })));
      const frozen = ordered.filter((b) => b.key.origin === 'frozen');
      expect(headings).toEqual(frozen.map((b) => ({ link: boardTitle(report, b), id: hex(b.board_id).slice(0, 12) })));
    } finally {
      await page.close();
    }
  });
});

describe('files', () => {
  it('leaderboard.js is under 5 KB; leaderboard.csv is linked from / and ends with board_title and ledger_name', async () => {
    expect((await stat(join(ROOT, 'public', 'leaderboard.js'))).size).toBeLessThan(5 * 1024);
    expect((await stat(join(out, 'leaderboard.js'))).size).toBeLessThan(5 * 1024);
    const page = await jsOff.context.newPage();
    try {
      await page.goto(`${server.origin}/`);
      expect(await page.locator('main a[href="/leaderboard.csv"]').count()).toBe(1);
    } finally {
      await page.close();
    }
    const csv = await (await fetch(`${server.origin}/leaderboard.csv`)).text();
    const [header, ...rows] = csv.trimEnd().split('\r\n');
    expect(header!.split(',').slice(-3)).toEqual(['board_title', 'ledger_name', 'usable_grades']);
    expect(rows).toHaveLength(report.cohorts.length);
    const first = ordered[0]!;
    expect(rows[0]!.endsWith(`,${boardTitle(report, first)},${first.ledger.name},yes`)).toBe(true);
    // The demo's imported runs without a usable grade: no rate in the CSV, said so.
    const unusable = rows.filter((r) => r.endsWith(',no'));
    expect(unusable.length).toBeGreaterThanOrEqual(3);
    for (const r of unusable) expect(r.split(',').slice(9, 12)).toEqual(['', '', '']);
  });
});
