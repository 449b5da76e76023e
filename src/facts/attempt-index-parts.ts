/**
 * The attempt index kept one ledger at a time (src/run/facts-cache.ts): what
 * a ledger's part is computed from ({@link ledgerIndexInputs}: the ledger, the
 * report's grading pin, the ledger's boards as the index reads them, the
 * counted bundles it pools by bundle id, plan id and content digest, the
 * number of attempts shown in full), and the strict check a kept part must
 * pass before it is used ({@link checkLedgerIndex}: its schema, its ledger,
 * exactly the ledger's bundles and boards, each board's tasks in the
 * ledger's lists' order, a cell per cohort of the board, counts that agree
 * with each other and with the report's per-cohort figures). A part that
 * does not check is computed again. Everything here reads the report alone:
 * a kept part needs no evidence table.
 */
import { z } from 'zod';
import type { Report } from '../report/schema.ts';
import { LedgerRecord } from '../schema/ledger.ts';
import { Origin } from '../schema/plan.ts';
import { TERMINAL_CLASSES } from '../analysis/grading.ts';
import { digestCanonical } from '../json/canonical.ts';
import { DETAIL_ROWS } from './detail-rows.ts';
import { ledgerBundles, type AttemptIndex, type IndexSplit } from './attempt-index.ts';

const Count = z.int().min(0);
const Id = z.string().min(1);
const Reasons = z.strictObject({ failed: Count, errored: Count, missing: Count });

const IndexAttemptSchema = z.strictObject({
  bundle: Count,
  line: z.int().min(1),
  attempt_id: Id,
  index: z.int().min(1),
  outcome: z.string(),
  terminal: z.enum(TERMINAL_CLASSES),
  reason: z.enum(['failed', 'errored', 'missing']).nullable(),
  verdict: z.enum(['pass', 'fail', 'error']).nullable(),
  generation: z.int().min(1).nullable(),
  cost: z.strictObject({ state: z.string(), micros: z.number().nullable() }),
  tokens: z.strictObject({ input: z.number().min(0), output: z.number().min(0) }).nullable(),
  wall_seconds: z.number().min(0),
  retries: Count,
  artifacts: z.array(z.strictObject({ role: z.enum(['patch', 'grader input', 'grader output', 'grader receipt']), sha256: z.string() })),
});

const IndexCellSchema = z.strictObject({
  classes: z.array(Count).length(TERMINAL_CLASSES.length),
  reasons: Reasons,
  cost: z.strictObject({ micros: z.number(), partial: Count, unavailable: Count, not_applicable: Count, zero: Count }),
  tokens: z.strictObject({ input: z.number().min(0), output: z.number().min(0), unknown: Count }),
  wall_median: z.number().min(0).nullable(),
  strip: z.string().regex(new RegExp(`^[0-${TERMINAL_CLASSES.length - 1}]*$`)),
  first: z.array(IndexAttemptSchema).max(DETAIL_ROWS),
  rest: z.strictObject({ bundle: z.array(Count), line: z.array(z.int().min(1)), index: z.array(z.int().min(1)), attempt_id: z.array(Id) }),
});

/** A ledger's part of the attempt index, as kept (facts/attempt-index.ts AttemptIndex). */
export const AttemptIndexPartSchema = z.strictObject({
  bundles: z.array(z.strictObject({ bundle_id: Id, plan_id: Id, origin: Origin.nullable() })),
  boards: z.record(z.string(), z.strictObject({ tasks: z.array(z.strictObject({ task_id: Id, splits: z.array(z.enum(['headline', 'watch_list', 'public'])), record: LedgerRecord.nullable(), cells: z.array(IndexCellSchema) })) })),
  outcomes: z.record(z.string(), z.strictObject({ terminal: z.strictObject(Object.fromEntries(TERMINAL_CLASSES.map((c) => [c, Count])) as Record<(typeof TERMINAL_CLASSES)[number], typeof Count>), reasons: Reasons })),
});

/** The boards of a ledger, in report order. */
function ledgerBoards(report: Pick<Report, 'boards'>, ledger: string): Report['boards'] {
  return report.boards.filter((b) => b.ledger.digest === ledger);
}

/**
 * The digest of what a ledger's part is computed from (see the module
 * comment). The evidence enters through the content digests (the cohort of
 * each row, its grade and terminal class are functions of the bundle's bytes
 * and the pin); the code through the store's code identity.
 */
export function ledgerIndexInputs(report: Pick<Report, 'bundles' | 'boards' | 'config'>, ledger: string): string {
  return digestCanonical({
    part: 'ledgerboard.attempt-index.ledger.v1',
    ledger,
    grading_pin: (report.config.grading_pin ?? null) as never,
    detail_rows: DETAIL_ROWS,
    bundles: ledgerBundles(report, ledger).map((b) => [b.bundle_id, b.plan_id, b.content_digest]),
    boards: ledgerBoards(report, ledger).map((b) => ({ board_id: b.board_id, cohorts: b.cohorts, ledger: b.ledger })),
  });
}

/**
 * The kept part of `ledger` when it checks against the report (see the
 * module comment), else null with the reason (a test names it).
 */
export function checkLedgerIndex(report: Pick<Report, 'bundles' | 'boards' | 'cohorts'>, ledger: string, value: unknown): { part: AttemptIndex } | { refused: string } {
  const parsed = AttemptIndexPartSchema.safeParse(value);
  if (!parsed.success) return { refused: `schema: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const part = parsed.data as AttemptIndex;
  // Exactly the ledger's counted bundles, in bundle id order.
  const want = ledgerBundles(report, ledger)
    .map((b) => [b.bundle_id!, b.plan_id!] as const)
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  if (part.bundles.length !== want.length || !part.bundles.every((b, i) => b.bundle_id === want[i]![0] && b.plan_id === want[i]![1])) return { refused: 'not the ledger\'s bundles' };
  const ids = new Set(want.map((w) => w[0]));
  if (!Object.keys(part.outcomes).every((id) => ids.has(id))) return { refused: 'outcomes of a bundle not on the ledger' };
  const boards = ledgerBoards(report, ledger);
  const keys = Object.keys(part.boards);
  if (keys.length !== boards.length || !boards.every((b) => Object.hasOwn(part.boards, b.board_id))) return { refused: 'not the ledger\'s boards' };
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const outcomeTotals = new Array<number>(TERMINAL_CLASSES.length).fill(0);
  for (const o of Object.values(part.outcomes)) TERMINAL_CLASSES.forEach((c, k) => (outcomeTotals[k]! += o.terminal[c]));
  const cohortTotals = new Array<number>(TERMINAL_CLASSES.length).fill(0);
  for (const board of boards) {
    const tasks = part.boards[board.board_id]!.tasks;
    // The tasks of the ledger's lists, each once, in list order, with the lists that hold it.
    const expected = new Map<string, IndexSplit[]>();
    const lists: [IndexSplit, readonly string[]][] = [['headline', board.ledger.headline_tasks], ['watch_list', board.ledger.watch_list_tasks], ['public', board.ledger.public_tasks]];
    for (const [split, list] of lists) for (const id of list) {
      const splits = expected.get(id) ?? [];
      if (!splits.includes(split)) splits.push(split);
      expected.set(id, splits);
    }
    const order = [...expected.keys()];
    if (tasks.length !== order.length) return { refused: `board ${board.board_id}: not its tasks` };
    const sums = board.cohorts.map(() => new Array<number>(TERMINAL_CLASSES.length).fill(0));
    for (const [t, task] of tasks.entries()) {
      if (task.task_id !== order[t] || task.splits.join() !== expected.get(task.task_id)!.join()) return { refused: `board ${board.board_id}: not its tasks` };
      if (task.record !== null && task.record.task_id !== task.task_id) return { refused: `task ${task.task_id}: another task's record` };
      if (task.cells.length !== board.cohorts.length) return { refused: `task ${task.task_id}: not a cell per cohort` };
      for (const [c, cell] of task.cells.entries()) {
        const n = cell.strip.length;
        const rest = cell.rest;
        if (cell.classes.reduce((a, b) => a + b, 0) !== n) return { refused: `task ${task.task_id}: classes and strip disagree` };
        for (let k = 0; k < TERMINAL_CLASSES.length; k++) {
          let marks = 0;
          for (let i = 0; i < n; i++) if (cell.strip.charCodeAt(i) === 48 + k) marks++;
          if (marks !== cell.classes[k]) return { refused: `task ${task.task_id}: classes and strip disagree` };
          sums[c]![k]! += cell.classes[k]!;
        }
        if (cell.first.length !== Math.min(n, DETAIL_ROWS) || [rest.line, rest.index, rest.attempt_id, rest.bundle].some((col) => col.length !== n - cell.first.length)) return { refused: `task ${task.task_id}: rows and strip disagree` };
        if (cell.first.some((a, i) => TERMINAL_CLASSES[cell.strip.charCodeAt(i) - 48] !== a.terminal)) return { refused: `task ${task.task_id}: a row's class is not its mark` };
        if (cell.first.some((a) => a.bundle >= part.bundles.length) || rest.bundle.some((b) => b >= part.bundles.length)) return { refused: `task ${task.task_id}: a row of no bundle` };
      }
    }
    // Every cohort's attempts on the board are the report's (its terminal classes).
    for (const [c, id] of board.cohorts.entries()) {
      const cohort = cohorts.get(id);
      if (cohort === undefined || cohort.board_id !== board.board_id) return { refused: `cohort ${id}: not of board ${board.board_id}` };
      if (!TERMINAL_CLASSES.every((name, k) => sums[c]![k] === cohort.terminal_classes[name])) return { refused: `cohort ${id}: counts are not the report's` };
      TERMINAL_CLASSES.forEach((_, k) => (cohortTotals[k]! += sums[c]![k]!));
    }
  }
  // Each attempt pooled in a cohort of the ledger's boards is a bundle's (the outcomes add up to the cells).
  if (!outcomeTotals.every((v, k) => v === cohortTotals[k])) return { refused: 'outcomes and cells disagree' };
  return { part };
}
