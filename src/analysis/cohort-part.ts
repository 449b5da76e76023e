/**
 * One bundle's attempts in one cohort, summarised in a single pass over its
 * rows: everything the figures (score.ts), the task tallies and the drift
 * (drift.ts) read, and no row. A cohort is the list of its bundles' parts
 * (pool.ts), so pooling a bundle is a pure function of that bundle (its
 * bytes, the grading pin and the layer) and a kept part (src/run/report-cache.ts)
 * stands for the bundle's rows when its ledger is analysed again.
 *
 * Every figure of a cohort follows from its parts exactly and in no
 * particular order: counts add; the integer sums (tokens, retries, micros)
 * are of values the attempt schema holds to integers from 0 to 2^53 - 1 (and
 * a bundle's totals to 2^53 - 1, the verifier's `totals` step), so adding
 * the parts' sums gives what adding the rows one by one gives (score.ts
 * boundTotals holds an over-large total either way); wall times are kept as
 * values, sorted, and summed in ascending order over the whole cohort.
 */
import type { BundleColumns } from './columns.ts';
import { REASON_CODES, TERMINAL_CLASSES } from './grading.ts';
import { COST_STATE_CODES } from '../bundle/tables.ts';

/** A cohort's attempts per task from one bundle (column-wise: entry i is one task). */
export interface PartTasks {
  /** Each task's position in the ledger (every task of a counted bundle is on it), in the order of their first row. */
  positions: Int32Array;
  attempts: Int32Array;
  resolved: Int32Array;
  /** Completed attempts whose grade is missing or errored. */
  ungraded: Int32Array;
  /** Distinct slot indices filled (the bundle's plan is the only plan of its rows). */
  filled: Int32Array;
}

/** One bundle's attempts in one cohort (see the module comment). */
export interface CohortPart {
  bundle_id: string;
  plan_id: string;
  attempts: number;
  /** Attempts per terminal class, in TERMINAL_CLASSES order. */
  classes: number[];
  /** Attempts per reason code, in REASON_CODES order. */
  reasons: number[];
  tokens: { input: number; output: number; unknown: number };
  /** Wall times, ascending (a typed array's numeric order). */
  walls: Float64Array;
  retries: number;
  cost: { micros: number; partial: number; unavailable: number; not_applicable: number; zero: number };
  /** True when every token count, retry count and micros value added is an integer >= 0 (always, for parsed evidence). */
  integral: boolean;
  /** Headline attempts per slot index, ascending by index. */
  replicates: { index: number; resolved: number; graded: number }[];
  /** Headline attempts in all (the plan's point in the baseline drift). */
  headline: { resolved: number; graded: number };
  tasks: PartTasks;
}

const RESOLVED = TERMINAL_CLASSES.indexOf('resolved');
const ERRORED = REASON_CODES.indexOf('errored');
const MISSING = REASON_CODES.indexOf('missing');
const COMPLETE = COST_STATE_CODES.indexOf('complete');
const PARTIAL = COST_STATE_CODES.indexOf('partial');
const UNAVAILABLE = COST_STATE_CODES.indexOf('unavailable');
const NOT_APPLICABLE = COST_STATE_CODES.indexOf('not_applicable');
const ZERO = COST_STATE_CODES.indexOf('zero');

/** A ledger as a part is written against it: the position of each task id, and whether the task at a position is a headline task. */
export interface LedgerPositions {
  position: ReadonlyMap<string, number>;
  headline: Uint8Array;
}

/** The positions of a ledger's tasks (ledger order) and its headline set. */
export function ledgerPositions(taskIds: readonly string[], headline: Iterable<string>): LedgerPositions {
  const position = new Map(taskIds.map((id, i) => [id, i]));
  const flags = new Uint8Array(taskIds.length);
  for (const id of headline) flags[position.get(id)!] = 1;
  return { position, headline: flags };
}

/**
 * The part of these rows of a bundle (in row order), each with its terminal
 * class and reason code as pooling set them, its tasks placed on the ledger.
 * A task that is not on the ledger is a bug upstream (the verifier makes
 * such a bundle invalid, UNPLANNED_ATTEMPT) and throws.
 */
export function summarizeRows(
  ids: { bundle_id: string; plan_id: string },
  columns: BundleColumns,
  rows: Int32Array,
  terminal: Uint8Array,
  reason: Uint8Array,
  ledger: LedgerPositions,
): CohortPart {
  const a = columns.attempts;
  // The ledger position of each task code of the bundle's table (-1: not on the ledger).
  const positionOf = Int32Array.from(a.tasks.values, (id) => ledger.position.get(id) ?? -1);
  const classes = new Array<number>(TERMINAL_CLASSES.length).fill(0);
  const reasons = new Array<number>(REASON_CODES.length).fill(0);
  const tokens = { input: 0, output: 0, unknown: 0 };
  const cost = { micros: 0, partial: 0, unavailable: 0, not_applicable: 0, zero: 0 };
  const walls = new Float64Array(rows.length);
  let retries = 0;
  let integral = true;
  const replicates = new Map<number, { index: number; resolved: number; graded: number }>();
  const head = { resolved: 0, graded: 0 };
  // Tasks by their code in the bundle's task table, numbered in order of first row.
  const slotOf = new Int32Array(a.tasks.values.length).fill(-1);
  const taskCodes: number[] = [];
  const perTask: { attempts: number; resolved: number; ungraded: number; indices: Set<number> }[] = [];
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j]!;
    const k = terminal[j]!;
    const r = reason[j]!;
    classes[k]!++;
    reasons[r]!++;
    const input = a.tokensInput[row]!;
    if (Number.isNaN(input)) tokens.unknown++;
    else {
      const output = a.tokensOutput[row]!;
      tokens.input += input;
      tokens.output += output;
      if (!(input >= 0 && output >= 0 && input % 1 === 0 && output % 1 === 0)) integral = false;
    }
    walls[j] = a.wallSeconds[row]!;
    const tries = a.retries[row]!;
    retries += tries;
    if (!(tries >= 0 && tries % 1 === 0)) integral = false;
    const state = a.costState[row]!;
    if (state === COMPLETE || state === PARTIAL) {
      if (state === PARTIAL) cost.partial++;
      const m = a.costMicros[row]!;
      if (!Number.isNaN(m)) {
        cost.micros += m;
        if (!(m >= 0 && m % 1 === 0)) integral = false;
      }
    } else if (state === UNAVAILABLE) cost.unavailable++;
    else if (state === NOT_APPLICABLE) cost.not_applicable++;
    else if (state === ZERO) cost.zero++;
    const task = a.task[row]!;
    const index = a.index[row]!;
    let slot = slotOf[task]!;
    if (slot === -1) {
      if (positionOf[task] === -1) throw new Error(`internal: bundle ${ids.bundle_id} counts an attempt on task ${JSON.stringify(a.tasks.values[task])}, which is not on its ledger`);
      slot = slotOf[task] = perTask.length;
      taskCodes.push(task);
      perTask.push({ attempts: 0, resolved: 0, ungraded: 0, indices: new Set() });
    }
    const t = perTask[slot]!;
    t.attempts++;
    if (k === RESOLVED) t.resolved++;
    if (r === MISSING || r === ERRORED) t.ungraded++;
    t.indices.add(index);
    if (ledger.headline[positionOf[task]!] === 1) {
      let rep = replicates.get(index);
      if (!rep) replicates.set(index, (rep = { index, resolved: 0, graded: 0 }));
      rep.graded++;
      head.graded++;
      if (k === RESOLVED) {
        rep.resolved++;
        head.resolved++;
      }
    }
  }
  walls.sort();
  return {
    bundle_id: ids.bundle_id,
    plan_id: ids.plan_id,
    attempts: rows.length,
    classes,
    reasons,
    tokens,
    walls,
    retries,
    cost,
    integral,
    replicates: [...replicates.values()].sort((x, y) => x.index - y.index),
    headline: head,
    tasks: {
      positions: Int32Array.from(taskCodes, (code) => positionOf[code]!),
      attempts: Int32Array.from(perTask, (t) => t.attempts),
      resolved: Int32Array.from(perTask, (t) => t.resolved),
      ungraded: Int32Array.from(perTask, (t) => t.ungraded),
      filled: Int32Array.from(perTask, (t) => t.indices.size),
    },
  };
}
