/**
 * Issue 14, item 3, in Chromium with JavaScript off:
 *
 * - on the demo (`npm run build`): from the leaderboard to a board page, a
 *   cell of the task x cohort matrix to a task page, whose resolved / graded
 *   per cohort add up, over the board's headline tasks, to the report's
 *   headline figures (report.json), and whose artifacts link to their blobs;
 * - on a site whose task ids come from the XSS and naughty-strings corpora:
 *   each task page's URL is the SHA-256 of the id, and the id reads as text
 *   (no dialog, no element from it).
 *
 * - transcripts (item 3): from the leaderboard through an imported board and
 *   a task page to an attempt's transcript page; on the hostile site an
 *   Inspect log whose messages, tool calls, scores and sample ids come from
 *   the corpora is imported, and every transcript page reads them as text.
 *
 * - the task page of issue 28 (item 5), JavaScript off: per cohort one
 *   summary row (resolved / graded adding up to the report's headline, the
 *   terminal classes, cost, tokens, median time as text), an outcome strip
 *   whose accessible name is its text equivalent (one mark per attempt, the
 *   classes run by run) with a legend of the letters used, at most 10
 *   detailed rows, and on a site of 13 attempts per cohort and task the
 *   others' lines linked in the published attempts.jsonl (the count not
 *   shown said, each named line that attempt); no task page is wider than
 *   the viewport at 390 and 1280 px (the demo's in the one walk of
 *   test/browser/demo-pages.browser.test.ts, the 13-attempt site's here).
 *
 * Chromium must be at /usr/bin/chromium: the suite fails (never skips) without it.
 */
import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/schema.ts';
import { boardsInOrder } from '../../src/report/board-order.ts';
import { makeTempDir, removeTempDirs, verifyDir, writeModel } from '../helpers/bundle-builder.ts';
import { buildSite, launchBrowser, requireChromium, sitemapPaths, type BrowserSession } from './browser.ts';
import { sharedDemoBuild } from './shared-demo.ts';
import { hostileModel, hostileSpecs, readCorpora, type HostileSpec } from './hostile.ts';
import { serveStatic, type StaticServer } from './static-server.ts';
import { importPath } from '../../src/import/import-input.ts';
import { importerNamed } from '../../src/import/registry.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { header, jsonLog, sample } from '../import/helpers.ts';
import { manyAttemptsModel } from '../helpers/many-attempts.ts';
import { TERMINAL_CLASSES } from '../../src/analysis/grading.ts';

const hex = (digest: string): string => digest.replace(/^sha256:/, '');
const sha = (text: string): string => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex');

let demo: { out: string; server: StaticServer; report: Report };
let hostile: { out: string; server: StaticServer; report: Report; specs: HostileSpec[]; transcriptTexts: string[] };
let many: { out: string; server: StaticServer; report: Report };
let jsOff: BrowserSession;

/** Attempts per cohort and task on the `many` site: past the 10 shown in full. */
const PER_TASK = 13;

/** A bundle of PER_TASK attempts of each subject on each task, a task's attempts on lines far apart (index outermost), mixed outcomes. */
async function manyAttemptsBundle(): Promise<string> {
  return writeModel(manyAttemptsModel(PER_TASK, { prefix: 'm' }));
}

beforeAll(async () => {
  requireChromium();
  const work = await makeTempDir('ledgerboard-tasks-');
  const demoOut = await sharedDemoBuild();
  const corpora = await readCorpora();
  const specs = hostileSpecs(corpora, 2);
  const bundles = join(work, 'hostile-bundles');
  for (const spec of specs) {
    const dir = await writeModel(hostileModel(spec));
    const status = (await verifyDir(dir)).status;
    if (status !== 'verified') throw new Error(`hostile bundle ${spec.tag} is ${status}`);
    await cp(dir, join(bundles, spec.tag), { recursive: true });
  }
  // An imported Inspect log whose transcript text comes from the corpora (sample ids, messages, tool calls, scores).
  const texts = [...corpora.xss.slice(0, 40), ...corpora.blns.filter((t) => t.length < 200).slice(0, 40)];
  const samples = texts.slice(0, 6).map((id, i) =>
    sample(`${id}#${i}`, 1, {
      input: `question ${i}`,
      messages: [
        { role: 'user', content: texts.slice(6 + i * 10, 11 + i * 10).join('\n') },
        { role: 'assistant', content: [{ type: 'text', text: texts[11 + i * 10]! }], tool_calls: [{ id: 'c', function: texts[12 + i * 10]!, arguments: { cmd: texts[13 + i * 10]! } }] },
        { role: 'tool', content: texts[14 + i * 10]!, function: 'bash', error: { type: 'x', message: texts[15 + i * 10]! } },
      ],
      scores: { match: { value: 'C', answer: texts[1]!, explanation: texts[2]! } },
    }),
  );
  const log = join(work, 'hostile-transcripts.json');
  await writeFile(log, jsonLog(samples, header({}, { dataset: { name: 'hostile', samples: 6 } })));
  await importPath(importerNamed('inspect')!, log, bundles, { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS });
  const config = join(work, 'hostile.config.json');
  await writeFile(config, JSON.stringify({ title: 'tasks', site_url: 'https://hostile.example/' }));
  await buildSite({ bundles, out: join(work, 'hostile'), config });
  const manyBundles = join(work, 'many-bundles');
  await cp(await manyAttemptsBundle(), join(manyBundles, 'many'), { recursive: true });
  await buildSite({ bundles: manyBundles, out: join(work, 'many'), config });
  const read = async (out: string) => JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as Report;
  const [demoServer, hostileServer, manyServer, session] = await Promise.all([serveStatic(demoOut), serveStatic(join(work, 'hostile')), serveStatic(join(work, 'many')), launchBrowser({ javaScriptEnabled: false })]);
  many = { out: join(work, 'many'), server: manyServer, report: await read(join(work, 'many')) };
  demo = { out: demoOut, server: demoServer, report: await read(demoOut) };
  hostile = { out: join(work, 'hostile'), server: hostileServer, report: await read(join(work, 'hostile')), specs, transcriptTexts: texts.slice(6, 66).filter((_, k) => k % 10 !== 6 && k % 10 !== 7) };
  jsOff = session;
}, 360_000);

afterAll(async () => {
  await Promise.allSettled([jsOff?.close(), demo?.server.close(), hostile?.server.close(), many?.server.close()]);
  await removeTempDirs();
}, 60_000);

async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
  const page = await jsOff.context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  try {
    const result = await run(page);
    expect(dialogs).toEqual([]);
    return result;
  } finally {
    await page.close();
  }
}

/** Resolved and graded per cohort (by cohort hex) as a task page's table shows them. */
async function cellsOf(page: Page): Promise<Map<string, [number, number]>> {
  const rows = await page.$$eval('table.task-cohorts tbody tr', (trs) =>
    trs.map((tr) => {
      const td = tr.querySelector('td[data-resolved]')!;
      return [tr.getAttribute('data-cohort')!, Number(td.getAttribute('data-resolved')), Number(td.getAttribute('data-graded')), td.textContent!.trim()] as const;
    }),
  );
  for (const [, r, g, text] of rows) expect(text).toBe(`${r} / ${g}`);
  return new Map(rows.map(([c, r, g]) => [c, [r, g]]));
}

describe('task pages on the demo, JavaScript off', () => {
  it('are reached from the leaderboard through a board page and a matrix cell, and add up to report.json', async () => {
    const { report, server } = demo;
    const board = boardsInOrder(report).find((b) => b.cohorts.length >= 3)!;
    const boardPath = `/boards/${hex(board.board_id)}/`;
    await withPage(async (page) => {
      await page.goto(`${server.origin}/`);
      const boardLink = page.locator(`a[href="${boardPath}"]`).first();
      await Promise.all([page.waitForURL(`${server.origin}${boardPath}`), boardLink.click()]);
      // The matrix at 1280 px: the wide SVG; each cell is a link to a task page of this board.
      await page.setViewportSize({ width: 1280, height: 900 });
      const cells = page.locator('svg.chart-wide a');
      const headline = board.ledger.headline_tasks;
      expect(await cells.count()).toBeGreaterThanOrEqual(headline.length);
      const href = (await cells.first().getAttribute('href'))!;
      expect(href).toBe(`${boardPath}tasks/${sha(headline[0]!)}/`);
      await Promise.all([page.waitForURL(`${server.origin}${href}`), cells.first().click()]);
      expect(await page.textContent('main > h1')).toBe(`Task ${headline[0]}`);
    });
    // Every headline task page of the board: per cohort, the pages' figures add up to the report's headline.
    const sums = new Map(board.cohorts.map((id) => [hex(id), [0, 0]]));
    await withPage(async (page) => {
      for (const task of headline(board)) {
        await page.goto(`${server.origin}/boards/${hex(board.board_id)}/tasks/${sha(task)}/`);
        for (const [cohort, [r, g]] of await cellsOf(page)) {
          const sum = sums.get(cohort)!;
          sum[0]! += r;
          sum[1]! += g;
        }
      }
    });
    for (const id of board.cohorts) {
      const cohort = report.cohorts.find((c) => c.cohort_id === id)!;
      expect(sums.get(hex(id)), id).toEqual([cohort.headline.resolved, cohort.headline.graded]);
    }
  }, 180_000);

  it('link each attempt to its attempts.jsonl line and its artifacts at their blobs, whose bytes hash to their names', async () => {
    const { report, server } = demo;
    const board = boardsInOrder(report).find((b) => b.cohorts.length >= 3)!;
    await withPage(async (page) => {
      await page.goto(`${server.origin}/boards/${hex(board.board_id)}/tasks/${sha(board.ledger.headline_tasks[0]!)}/`);
      const lines = await page.$$eval('section.task-attempts a[title^="the published attempts.jsonl"]', (as) => as.map((a) => [a.getAttribute('href'), a.textContent]));
      expect(lines.length).toBeGreaterThan(0);
      for (const [url, text] of lines) {
        expect(url).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
        expect(text).toMatch(/^line [1-9][0-9]*$/);
      }
      const artifacts = await page.$$eval('ul.artifacts a', (as) => as.map((a) => a.getAttribute('href')!));
      expect(artifacts.length).toBeGreaterThan(0);
      for (const url of [...new Set([...artifacts, ...lines.map(([u]) => u!)])].slice(0, 20)) {
        const bytes = Buffer.from(await (await fetch(`${server.origin}${url}`)).arrayBuffer());
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(url.slice('/blobs/'.length));
      }
      // The line an attempt links to holds that attempt.
      const [url, text] = lines[0]!;
      const jsonl = await (await fetch(`${server.origin}${url}`)).text();
      const attempt = JSON.parse(jsonl.split('\n')[Number(text!.slice('line '.length)) - 1]!) as { task_id: string };
      expect(attempt.task_id).toBe(board.ledger.headline_tasks[0]);
    });
  }, 120_000);
});

describe('task pages with hostile task ids', () => {
  it('are at the hex key of each id, which reads as text', async () => {
    const { report, server, out, specs } = hostile;
    const paths = await sitemapPaths(out);
    const ids = [...new Set(specs.flatMap((s) => s.tasks))];
    let checked = 0;
    await withPage(async (page) => {
      for (const board of report.boards) {
        // The imported board's tasks are the transcript test's (below).
        if (board.key.origin === 'imported') continue;
        for (const id of [...board.ledger.headline_tasks, ...board.ledger.watch_list_tasks, ...board.ledger.public_tasks]) {
          expect(ids).toContain(id);
          const path = `/boards/${hex(board.board_id)}/tasks/${sha(id)}/`;
          expect(paths).toContain(path);
          await page.goto(`${server.origin}${path}`);
          const shown = await page.textContent('main > h1');
          // shortIdentity marks invisible characters and cuts past 80: the heading starts with the id's visible prefix.
          expect(shown!.startsWith('Task ')).toBe(true);
          if (/^[\x20-\x7e]{1,80}$/.test(id)) expect(shown).toBe(`Task ${id}`);
          expect(await page.locator('main img, main iframe, main script, main object, main embed').count()).toBe(0);
          checked++;
        }
      }
    });
    expect(checked).toBeGreaterThanOrEqual(3);
    // The task with the <img onerror> id, as written.
    expect(ids.some((id) => id.startsWith('<img src=x onerror='))).toBe(true);
  }, 180_000);
});

describe('transcript pages, JavaScript off', () => {
  it('are reached from the leaderboard through an imported board and a task page, and show the messages', async () => {
    const { server, out } = demo;
    const paths = await sitemapPaths(out);
    const transcripts = paths.filter((p) => /^\/transcripts\/[0-9a-f]{64}\/[0-9a-f]{64}\/$/.test(p));
    expect(transcripts.length).toBeGreaterThan(100);
    await withPage(async (page) => {
      await page.goto(`${server.origin}/`);
      // The 100-sample gpt-5 popularity run: an imported board of its own.
      const boardLink = page.locator('table.runs-table a[href^="/boards/"]', { hasText: 'popularity' }).first();
      const boardHref = (await boardLink.getAttribute('href'))!;
      await Promise.all([page.waitForURL(`${server.origin}${boardHref}`), boardLink.click()]);
      const taskLink = page.locator('a[href*="/tasks/"]').first();
      const taskHref = (await taskLink.getAttribute('href'))!;
      expect(taskHref).toMatch(/^\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/$/);
      await Promise.all([page.waitForURL(`${server.origin}${taskHref}`), taskLink.click()]);
      const transcriptLink = page.locator('a[data-transcript-link]').first();
      const href = (await transcriptLink.getAttribute('href'))!;
      expect(transcripts).toContain(href);
      await Promise.all([page.waitForURL(`${server.origin}${href}`), transcriptLink.click()]);
      expect(await page.textContent('main > h1')).toMatch(/^Transcript: attempt #1 on task /);
      const roles = await page.$$eval('ol.transcript > li.msg', (lis) => lis.map((li) => li.getAttribute('data-role')));
      expect(roles.length).toBeGreaterThanOrEqual(2);
      expect(roles).toContain('user');
      expect(roles).toContain('assistant');
      // Back to the task page it belongs to.
      expect(await page.getAttribute('a[data-task-link]', 'href')).toBe(taskHref);
      // The original log it was read from, at its blob.
      const source = (await page.getAttribute('p.transcript-source a', 'href'))!;
      expect(source).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
    });
  }, 180_000);

  it('show hostile text from the corpora as text: no dialog, no element from it', async () => {
    const { server, out, transcriptTexts } = hostile;
    const paths = (await sitemapPaths(out)).filter((p) => p.startsWith('/transcripts/'));
    expect(paths).toHaveLength(6);
    let seen = '';
    await withPage(async (page) => {
      for (const path of paths) {
        await page.goto(`${server.origin}${path}`);
        expect(await page.locator('main img, main iframe, main script, main object, main embed, main svg, main a[href^="javascript"]').count()).toBe(0);
        seen += (await page.textContent('ol.transcript'))! + (await page.textContent('table.transcript-scores'))!;
      }
    });
    // Every corpus string put in a message's text or a tool error reads as text on those pages (a tool call's name is shown
    // with invisible characters marked, its arguments as JSON text: both only checked to make no element).
    const normal = (t: string) => t.replace(/\s+/g, ' ').trim();
    const missing = transcriptTexts.filter((t) => normal(t) !== '' && !normal(seen).includes(normal(t)));
    expect(missing).toEqual([]);
  }, 180_000);
});

function headline(board: Report['boards'][number]): string[] {
  return board.ledger.headline_tasks;
}

/** What a task page shows of one cohort, read with JavaScript off: its summary row and its attempts section. */
interface CohortView {
  cohort: string;
  resolved: number;
  graded: number;
  classes: string;
  cost: string;
  tokens: string;
  wall: string;
  heading: string;
  marks: string[];
  dataMarks: number;
  role: string | null;
  label: string | null;
  legend: string;
  rows: string[];
  notShown: number | null;
  rest: { href: string; lines: number[] }[];
}

async function cohortsOf(page: Page): Promise<CohortView[]> {
  return page.$$eval('table.task-cohorts tbody tr', (trs) =>
    trs.map((tr) => {
      const cohort = tr.getAttribute('data-cohort')!;
      const td = tr.querySelector('td[data-resolved]')!;
      const cell = (name: string) => tr.querySelector(`td[data-summary="${name}"]`)!.textContent!.trim();
      const section = document.querySelector(`section.task-attempts[data-cohort="${cohort}"]`)!;
      const strip = section.querySelector('p.outcome-strip');
      const rest = section.querySelector('p.rest');
      return {
        cohort,
        resolved: Number(td.getAttribute('data-resolved')),
        graded: Number(td.getAttribute('data-graded')),
        classes: cell('classes'),
        cost: cell('cost'),
        tokens: cell('tokens'),
        wall: cell('wall'),
        heading: section.querySelector('h3')!.textContent!.trim(),
        marks: strip === null ? [] : [...strip.querySelectorAll('b')].map((b) => b.textContent!),
        dataMarks: Number(strip?.getAttribute('data-marks') ?? 0),
        role: strip?.getAttribute('role') ?? null,
        label: strip?.getAttribute('aria-label') ?? null,
        legend: section.querySelector('p.strip-legend')?.textContent?.trim() ?? '',
        rows: [...section.querySelectorAll('table.task-attempt-rows tbody tr')].map((r) => r.getAttribute('data-terminal')!),
        notShown: rest === null ? null : Number(rest.getAttribute('data-not-shown')),
        rest: [...section.querySelectorAll('ul.rest-lines a[data-rest-lines]')].map((a) => ({ href: a.getAttribute('href')!, lines: a.getAttribute('data-rest-lines')!.split(' ').map(Number) })),
      };
    }),
  );
}

const LETTERS: Record<string, string> = { resolved: 'R', grader_failure: 'G', model_failure: 'M', safety_failure: 'S', harness_failure: 'H', environment_failure: 'E', invalid_case: 'I', timeout: 'T', cancelled: 'C' };

/** The strip's text equivalent rebuilt from its marks: the classes in attempt order, run by run. */
function stripText(marks: readonly string[]): string {
  const names = marks.map((m) => Object.keys(LETTERS).find((c) => LETTERS[c] === m)!);
  const runs: string[] = [];
  for (let i = 0, run = 0; i < names.length; i++) {
    run++;
    if (i + 1 === names.length || names[i + 1] !== names[i]) {
      runs.push(`${run} ${names[i]}`);
      run = 0;
    }
  }
  return `Outcome of each of the ${marks.length} attempts, in attempt order: ${runs.join(', then ')}`;
}

/** Checks one cohort's view against itself: the strip, its text, its legend, the rows shown, the count not shown. */
function checkCohort(v: CohortView): void {
  const total = v.marks.length;
  expect(v.dataMarks).toBe(total);
  expect(v.heading).toMatch(new RegExp(`: ${total.toLocaleString('en-US')} attempts?$`));
  // Every attempt is graded (a missing grade fails closed), so the strip's marks are the graded count, its R marks the resolved.
  expect(total).toBe(v.graded);
  expect(v.marks.filter((m) => m === 'R').length).toBe(v.resolved);
  if (total > 0) {
    expect(v.role).toBe('img');
    expect(v.label).toBe(stripText(v.marks));
    // The legend names exactly the letters used, in TERMINAL_CLASSES order.
    const used = TERMINAL_CLASSES.filter((c) => v.marks.includes(LETTERS[c]!));
    expect(v.legend).toBe(used.map((c) => `${LETTERS[c]} ${c}`).join(', '));
  }
  // The first min(10, n) attempts in full, in strip order.
  expect(v.rows.length).toBe(Math.min(10, total));
  expect(v.rows.map((t) => LETTERS[t])).toEqual(v.marks.slice(0, v.rows.length));
  expect(v.notShown).toBe(total > 10 ? total - 10 : null);
  expect(v.rest.reduce((n, r) => n + r.lines.length, 0)).toBe(Math.max(0, total - 10));
  // The summary as text: terminal classes named with their counts, tokens and a median time.
  if (total > 0) {
    for (const c of TERMINAL_CLASSES) {
      const count = v.marks.filter((m) => m === LETTERS[c]).length;
      if (count > 0) expect(v.classes, `${c} in ${v.classes}`).toMatch(new RegExp(`(^|, )${count.toLocaleString('en-US')} ${c}( \\(|,|$)`));
      else expect(v.classes).not.toMatch(new RegExp(`\\b${c}\\b`));
    }
    expect(v.tokens).toMatch(/[0-9]/);
    expect(v.wall).not.toBe('');
  }
}

describe('the task page of issue 28, JavaScript off', () => {
  it('on the demo: one summary row per cohort, the strip with its text equivalent and legend, at most 10 rows', async () => {
    const { report, server } = demo;
    let cohortsSeen = 0;
    await withPage(async (page) => {
      for (const board of boardsInOrder(report)) {
        for (const task of board.ledger.headline_tasks.slice(0, 3)) {
          await page.goto(`${server.origin}/boards/${hex(board.board_id)}/tasks/${sha(task)}/`);
          const views = await cohortsOf(page);
          expect(views.map((v) => v.cohort)).toEqual(board.cohorts.map(hex));
          for (const v of views) {
            checkCohort(v);
            cohortsSeen++;
          }
        }
      }
    });
    expect(cohortsSeen).toBeGreaterThanOrEqual(10);
  }, 180_000);

  it(`past 10 attempts (${PER_TASK} per cohort and task): the count not shown, and their lines in the published attempts.jsonl`, async () => {
    const { report, server } = many;
    const board = report.boards[0]!;
    const tasks = [...board.ledger.headline_tasks, ...board.ledger.watch_list_tasks, ...board.ledger.public_tasks];
    let checked = 0;
    await withPage(async (page) => {
      for (const task of [...new Set(tasks)]) {
        await page.goto(`${server.origin}/boards/${hex(board.board_id)}/tasks/${sha(task)}/`);
        const views = await cohortsOf(page);
        expect(views).toHaveLength(board.cohorts.length);
        for (const v of views) {
          checkCohort(v);
          expect(v.marks).toHaveLength(PER_TASK);
          expect(v.notShown).toBe(PER_TASK - 10);
          expect(v.heading.endsWith(`: ${PER_TASK} attempts`)).toBe(true);
          // The resolved / graded row agrees with the strip, and the summary names the cost and a median time.
          expect(v.cost).toMatch(/[0-9]/);
          expect(v.wall).toMatch(/[0-9]/);
          // Each named line of the published attempts.jsonl is an attempt of this task and cohort, past the tenth.
          for (const rest of v.rest) {
            expect(rest.href).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
            const jsonl = (await (await fetch(`${server.origin}${rest.href}`)).text()).split('\n');
            const indexes = rest.lines.map((line) => JSON.parse(jsonl[line - 1]!) as { task_id: string; index: number; model: string });
            expect(indexes.every((a) => a.task_id === task)).toBe(true);
            expect(new Set(indexes.map((a) => a.model)).size).toBe(1);
            expect(indexes.map((a) => a.index).sort((a, b) => a - b)).toEqual([11, 12, 13]);
          }
          expect(v.rest.length).toBeGreaterThan(0);
          checked++;
        }
      }
    });
    expect(checked).toBeGreaterThanOrEqual(2);
  }, 180_000);

  // The demo's task pages: in the one walk of every demo page (test/browser/demo-pages.browser.test.ts, which asserts more than 10).
  it(`no task page of the site of ${PER_TASK} attempts per cohort and task is wider than the viewport at 390 and 1280 px`, async () => {
    const { report, server, out } = many;
    const pages = (await sitemapPaths(out)).filter((path) => /^\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/$/.test(path));
    const board = report.boards[0]!;
    expect(pages).toHaveLength(new Set([...board.ledger.headline_tasks, ...board.ledger.watch_list_tasks, ...board.ledger.public_tasks]).size);
    const wide: string[] = [];
    await withPage(async (page) => {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        for (const path of pages) {
          await page.goto(`${server.origin}${path}`);
          const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
          if (scroll > width) wide.push(`${width}px ${path}: ${scroll}px`);
        }
      }
    });
    expect(wide).toEqual([]);
  }, 120_000);
});
