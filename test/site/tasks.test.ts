/**
 * Task pages (src/site/tasks.ts, task-key.ts): the key is the SHA-256 of the
 * task id's UTF-8 bytes, and on the demo every board's per-task resolved /
 * graded figures add up to each cohort's headline, watch-list and public
 * figures in the report, and each task page's rows are its cells' attempts.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleDirs, configPath, loadConfigFile } from '../../src/config/config.ts';
import { checkHistoryIn } from '../../src/history/compare.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { publishedOf } from '../../src/site/publish.ts';
import { taskKey, taskPath } from '../../src/site/task-key.ts';
import { PAGE_TEXT_BYTES, siteTasks, type SiteBoardTasks, type TaskDetails } from '../../src/site/tasks.ts';
import { taskMatrix } from '../../src/site/chart-tasks.ts';
import { TASK_ROWS } from '../../src/site/rows.ts';
import { ROOT } from '../browser/browser.ts';

describe('taskKey', () => {
  it('is the lower-case hex SHA-256 of the UTF-8 bytes of the id', () => {
    expect(taskKey('widget-0001')).toBe(createHash('sha256').update('widget-0001').digest('hex'));
    // "abc": the FIPS 180-2 test vector.
    expect(taskKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // Non-ASCII: the UTF-8 bytes (é is C3 A9), never UTF-16 code units.
    expect(taskKey('é')).toBe(createHash('sha256').update(Buffer.from([0xc3, 0xa9])).digest('hex'));
    expect(taskKey('<script>alert(1)</script>')).toMatch(/^[0-9a-f]{64}$/);
    expect(taskPath('ab'.repeat(32), taskKey('x'))).toBe(`/boards/${'ab'.repeat(32)}/tasks/${taskKey('x')}/`);
  });
});

describe('task pages on the demo', () => {
  let report: Report;
  let boards: Record<string, SiteBoardTasks>;
  let details: TaskDetails;
  beforeAll(async () => {
    const loaded = await loadConfigFile(join(ROOT, 'ledgerboard.config.json'));
    const history = await checkHistoryIn(await verifyPaths(bundleDirs(loaded)), configPath(loaded, loaded.config.retained_reports_dir));
    report = buildReport(history.results, loaded.config);
    results = history.results;
    ({ boards, details } = await siteTasks(report, publishedOf(report, history.results)));
    fromTables = await siteTasks(
      report,
      publishedOf(report, history.results),
      new Map(history.results.filter((r) => r.verification.status === 'verified').map((r) => [r.content_digest, r.verification.evidence])),
    );
  }, 120_000);
  let fromTables: Awaited<ReturnType<typeof siteTasks>>;
  let results: Parameters<typeof publishedOf>[1];

  it('shows at most its budget of artifact text on a page, a repeated text counted each time it is shown', async () => {
    // The demo's pages hold at most about 50 KB of text, under PAGE_TEXT_BYTES (64 KiB): a 4 KiB budget makes pages reach it.
    const budget = 4 * 1024;
    const small = await siteTasks(report, publishedOf(report, results), undefined, { pageTextBytes: budget });
    let limited = 0;
    let repeated = 0;
    for (let n = 0; n < small.details.pages.length; n++) {
      const artifacts = (await small.details.detail(n)).cohorts.flatMap((c) => c.attempts.flatMap((a) => a.artifacts));
      const shown = artifacts.filter((f) => f.text !== null);
      expect(shown.reduce((sum, f) => sum + f.bytes!, 0)).toBeLessThanOrEqual(budget);
      limited += artifacts.filter((f) => f.textNote === 'no text view: this page shows its limit of text already').length;
      repeated += shown.length - new Set(shown.map((f) => f.sha256)).size;
    }
    expect(limited).toBeGreaterThan(0);
    expect(repeated).toBeGreaterThan(0);
    expect(PAGE_TEXT_BYTES).toBe(64 * 1024);
  });

  it('shows the grade the report used: the regrade (generation 2) where there is one, and a verdict that agrees with the terminal class', async () => {
    const generations = new Set<number | null>();
    for (let n = 0; n < details.pages.length; n++) {
      for (const a of (await details.detail(n)).cohorts.flatMap((c) => c.attempts)) {
        generations.add(a.generation);
        if (a.terminal === 'resolved') expect(a.verdict).toBe('pass');
        if (a.terminal === 'grader_failure' && a.reason === 'failed') expect(a.verdict).toBe('fail');
        if (a.terminal === 'grader_failure' && a.reason === 'missing') expect(a.verdict).toBeNull();
      }
    }
    // null: attempts no generation graded (missing), shown as such.
    expect([...generations].sort()).toEqual([1, 2, null]);
  });

  it('lists at most its number of attempts per cohort on a page, first in row order, and counts them all', async () => {
    // The demo has at most a dozen attempts of a cohort on a task, under TASK_ROWS (50): 2 makes pages reach it.
    const few = await siteTasks(report, publishedOf(report, results), undefined, { taskRows: 2 });
    let cut = 0;
    for (let n = 0; n < details.pages.length; n++) {
      const [all, short] = [await details.detail(n), await few.details.detail(n)];
      short.cohorts.forEach((c, i) => {
        expect(c.total).toBe(all.cohorts[i]!.total);
        expect(c.attempts.map((a) => a.attempt_id)).toEqual(all.cohorts[i]!.attempts.slice(0, 2).map((a) => a.attempt_id));
        if (c.total > 2) cut++;
      });
    }
    expect(cut).toBeGreaterThan(0);
    expect(TASK_ROWS).toBe(50);
  });

  it('gives the same index and rows from the verified tables the build holds as from the published bytes parsed again', async () => {
    expect(fromTables.boards).toEqual(boards);
    expect(fromTables.details.pages).toEqual(details.pages);
    for (let n = 0; n < details.pages.length; n += 7) expect(await fromTables.details.detail(n)).toEqual(await details.detail(n));
  });

  it('lists every headline, watch-list and public task of each board once, in ledger-list order', () => {
    for (const board of report.boards) {
      const ids = [...new Set([...board.ledger.headline_tasks, ...board.ledger.watch_list_tasks, ...board.ledger.public_tasks])];
      expect(boards[board.board_id]!.tasks.map((t) => t.task_id)).toEqual(ids);
      for (const t of boards[board.board_id]!.tasks) expect(t.key).toBe(taskKey(t.task_id));
    }
    expect(details.pages.length).toBe(report.boards.reduce((n, b) => n + boards[b.board_id]!.tasks.length, 0));
  });

  it("adds up, per cohort, to the report's headline, watch-list and public resolved / graded", () => {
    let checked = 0;
    for (const board of report.boards) {
      const tasks = boards[board.board_id]!.tasks;
      board.cohorts.forEach((id, i) => {
        const cohort = report.cohorts.find((c) => c.cohort_id === id)!;
        for (const [split, figures] of [['headline', cohort.headline], ['watch_list', cohort.watch_list], ['public', cohort.public]] as const) {
          const on = tasks.filter((t) => t.splits.includes(split));
          expect(on.reduce((n, t) => n + t.cells[i]![0], 0), `${id} ${split} resolved`).toBe(figures.resolved);
          expect(on.reduce((n, t) => n + t.cells[i]![1], 0), `${id} ${split} graded`).toBe(figures.graded);
          expect(on.filter((t) => t.cells[i]![1] > 0).length, `${id} ${split} attempted tasks`).toBe(figures.attempted_tasks);
          checked++;
        }
      });
    }
    expect(checked).toBe(report.cohorts.length * 3);
  });

  it('matches the per-task figures the cohort pages show against the baseline', () => {
    let checked = 0;
    for (const cohort of report.cohorts) {
      const board = report.boards.find((b) => b.board_id === cohort.board_id)!;
      const i = board.cohorts.indexOf(cohort.cohort_id);
      for (const t of cohort.tasks) {
        const task = boards[board.board_id]!.tasks.find((x) => x.task_id === t.task_id)!;
        expect(task.cells[i]).toEqual([t.candidate.resolved, t.candidate.attempts]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("gives each page its cells' attempts, with terminal classes, grades and published artifacts", async () => {
    const board = report.boards.find((b) => b.ledger.name === 'widget-bugs' && b.cohorts.length >= 3)!;
    const tasks = boards[board.board_id]!.tasks;
    const task = tasks.find((t) => t.task_id === 'widget-0004')!;
    const detail = await details.detail(task.page);
    expect(detail.key).toBe(task.key);
    expect(detail.cohorts.map((c) => c.cohort_id)).toEqual(board.cohorts);
    detail.cohorts.forEach((c, i) => {
      expect(c.total).toBe(task.cells[i]![1]);
      expect(c.attempts.length).toBe(Math.min(c.total, TASK_ROWS));
      expect(c.attempts.filter((a) => a.terminal === 'resolved').length).toBe(task.cells[i]![0]);
      for (const a of c.attempts) {
        expect(a.line.number).toBeGreaterThan(0);
        expect(a.line.url).toMatch(/^\/blobs\/[0-9a-f]{64}$/);
        if (a.terminal === 'resolved') expect(a.verdict).toBe('pass');
        for (const f of a.artifacts) {
          expect(f.url).toBe(`/blobs/${f.sha256.slice('sha256:'.length)}`);
          if (f.text !== null) expect(Buffer.byteLength(f.text)).toBe(f.bytes);
        }
      }
    });
    // A resolved attempt: its patch, then the grade's input, output and receipt, each published and shown as text.
    const resolved = detail.cohorts.flatMap((c) => c.attempts).find((a) => a.terminal === 'resolved')!;
    expect(resolved.artifacts.map((f) => f.role)).toEqual(['patch', 'grader input', 'grader output', 'grader receipt']);
    expect(resolved.artifacts.every((f) => f.url !== null && f.text !== null)).toBe(true);
  });

  it('draws the headline tasks in the matrix, each cell a link to its task page', () => {
    const board = report.boards.find((b) => b.cohorts.length >= 3)!;
    const tasks = boards[board.board_id]!.tasks;
    const matrix = taskMatrix(board, tasks);
    const headline = tasks.filter((t) => t.splits.includes('headline'));
    expect(matrix.drawn).toBe(headline.length);
    const hrefs = [...matrix.svg.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]);
    const cells = headline.reduce((n, t) => n + t.cells.filter(([, g]) => g > 0).length, 0);
    expect(hrefs.length).toBe(cells);
    for (const h of hrefs) expect(h).toMatch(/^\/boards\/[0-9a-f]{64}\/tasks\/[0-9a-f]{64}\/$/);
    expect(taskMatrix(board, tasks).svg).toBe(matrix.svg);
    // Links inside role="img" are not allowed (axe nested-interactive): the matrix is a named group.
    for (const svg of [matrix.svg, matrix.compact]) {
      expect(svg).toMatch(/^<svg [^>]*role="group"/);
      expect(svg).toMatch(/^<svg [^>]*aria-label="Resolved share/);
    }
  });
});
