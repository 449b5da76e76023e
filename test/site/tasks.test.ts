/**
 * Task pages (src/facts/attempt-index.ts, src/site/model/tasks.ts, task-key.ts):
 * the key is the SHA-256 of the task id's UTF-8 bytes; on the demo every
 * board's per-task figures (resolved / graded, terminal classes, cost,
 * tokens) add up to each cohort's in the report, and each task page's rows
 * are its cells' first attempts. The rest (more than DETAIL_ROWS attempts of
 * a cohort on a task) are in tasks-rest.test.ts.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleDirs, configPath, loadConfigFile } from '../../src/config/config.ts';
import { checkHistoryIn } from '../../src/history/compare.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { taskKey, taskPath } from '../../src/site/views/task-key.ts';
import { PAGE_TEXT_BYTES, siteTasks, type SiteBoardTasks, type TaskDetails } from '../../src/site/model/tasks.ts';
import { taskMatrix } from '../../src/site/model/chart-tasks.ts';
import { attemptIndexOf, DETAIL_ROWS, evidenceOf, type AttemptIndex } from '../../src/facts/attempt-index.ts';
import { computeSiteFacts } from '../../src/facts/index.ts';
import { TERMINAL_CLASSES } from '../../src/analysis/grading.ts';
import { deserialize, serialize } from 'node:v8';
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
  let index: AttemptIndex;
  let results: Awaited<ReturnType<typeof verifyPaths>>;
  beforeAll(async () => {
    const loaded = await loadConfigFile(join(ROOT, 'ledgerboard.config.json'));
    const history = await checkHistoryIn(await verifyPaths(bundleDirs(loaded)), configPath(loaded, loaded.config.retained_reports_dir));
    report = buildReport(history.results, loaded.config);
    results = history.results;
    index = attemptIndexOf(report, evidenceOf(history.results));
    ({ boards, details } = await siteTasks(report, publishedOf(report, history.results), index));
  }, 120_000);

  it('is plain data computed below the site: JSON and V8 give it back, computed again it is the same, the facts carry it', async () => {
    expect(JSON.parse(JSON.stringify(index))).toEqual(index);
    expect(deserialize(serialize(index))).toEqual(index);
    expect(attemptIndexOf(report, evidenceOf(results))).toEqual(index);
    const { facts } = await computeSiteFacts(report, results);
    expect(facts.attemptIndex).toEqual(index);
    // Without the evidence tables of every counted bundle there is no index (never a second route through published bytes).
    expect((await computeSiteFacts(report, [])).facts.attemptIndex).toBeUndefined();
    expect(() => attemptIndexOf(report, () => undefined)).toThrow(/no verified evidence for counted bundle/);
  });

  it("adds up, per cohort, to the report's terminal classes, grader failure reasons, cost and tokens", () => {
    let checked = 0;
    for (const board of report.boards) {
      const tasks = index.boards[board.board_id]!.tasks;
      board.cohorts.forEach((id, i) => {
        const cohort = report.cohorts.find((c) => c.cohort_id === id)!;
        const cells = tasks.map((t) => t.cells[i]!);
        const total = (f: (c: (typeof cells)[number]) => number) => cells.reduce((n, c) => n + f(c), 0);
        TERMINAL_CLASSES.forEach((c, k) => expect(total((x) => x.classes[k]!), `${id} ${c}`).toBe(cohort.terminal_classes[c]));
        for (const r of ['failed', 'errored', 'missing'] as const) expect(total((x) => x.reasons[r]), `${id} ${r}`).toBe(cohort.grader_failure_reasons[r]);
        for (const m of ['micros', 'partial', 'unavailable', 'not_applicable', 'zero'] as const) expect(total((x) => x.cost[m]), `${id} cost ${m}`).toBe(cohort.cost[m]);
        for (const m of ['input', 'output', 'unknown'] as const) expect(total((x) => x.tokens[m]), `${id} tokens ${m}`).toBe(cohort.tokens[m]);
        expect(total((x) => x.strip.length)).toBe(cohort.attempts);
        for (const c of cells) {
          // The strip is the cell's classes, one mark per attempt; the first DETAIL_ROWS are in full, the others by line.
          TERMINAL_CLASSES.forEach((_, k) => expect([...c.strip].filter((m) => m === String(k)).length).toBe(c.classes[k]));
          expect(c.first.length).toBe(Math.min(DETAIL_ROWS, c.strip.length));
          expect(c.first.map((a) => String(TERMINAL_CLASSES.indexOf(a.terminal))).join('')).toBe(c.strip.slice(0, c.first.length));
          expect(c.rest.line.length).toBe(c.strip.length - c.first.length);
          if (c.strip.length > 0) expect(c.wall_median).not.toBeNull();
        }
        checked++;
      });
    }
    expect(checked).toBe(report.cohorts.length);
  });

  it('shows at most its budget of artifact text on a page, a repeated text counted each time it is shown', async () => {
    // The demo's pages hold at most about 50 KB of text, under PAGE_TEXT_BYTES (64 KiB): a 4 KiB budget makes pages reach it.
    const budget = 4 * 1024;
    const small = await siteTasks(report, publishedOf(report, results), index, { pageTextBytes: budget });
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
      expect(c.attempts.length).toBe(Math.min(c.total, DETAIL_ROWS));
      expect(c.rest.count).toBe(c.total - c.attempts.length);
      expect(c.strip.length).toBe(c.total);
      expect([...c.strip].filter((m) => m === '0').length).toBe(task.cells[i]![0]);
      expect(c.summary.classes[0]).toBe(task.cells[i]![0]);
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
