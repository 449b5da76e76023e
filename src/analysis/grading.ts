/**
 * The grading layer in use and each attempt's terminal class (FORMAT.md
 * sections 5.2 and 7.1). By default an attempt is graded by the latest
 * generation holding a result for it; with a pin (grader id + version) only
 * that grader's generations count, and attempts it never graded are left out.
 * Column-wise: a grader index and a verdict code per row of the bundle's
 * attempt table. test/oracle/grading.ts is the same rules object by object.
 */
import type { GradingPin } from '../config/config.ts';
import { OUTCOME_CODES, VERDICT_CODES } from '../bundle/tables.ts';
import type { Grader, Plan } from '../schema/index.ts';
import type { BundleColumns, GenerationColumns } from './columns.ts';

/** The nine terminal classes. */
export const TERMINAL_CLASSES = [
  'resolved',
  'grader_failure',
  'model_failure',
  'safety_failure',
  'harness_failure',
  'environment_failure',
  'invalid_case',
  'timeout',
  'cancelled',
] as const;
export type TerminalClass = (typeof TERMINAL_CLASSES)[number];

/** Why a completed attempt is grader_failure. */
export type GraderReason = 'failed' | 'errored' | 'missing';

/** Verdict code of a row without a result in the layer (missing). */
export const NO_VERDICT = 255;

/** The grading layer of a bundle's rows (see {@link layerColumns}). */
export interface LayerColumns {
  graders: Grader[];
  /** For each of `graders`, the generation it is (null: the plan's grader for rows no generation graded). */
  generations: (GenerationColumns | null)[];
  grader: Int32Array;
  verdict: Uint8Array;
  /** For each row, the index of the result in use within its generation (-1: none). */
  result: Int32Array;
}

/**
 * The grading layer:
 * for each row its layer grader (an index into `graders`, -1 when a pin
 * excludes it) and verdict code. Without a pin, an attempt no generation
 * graded is in the plan's grader's layer (the last of `graders`) with no
 * verdict.
 */
export function layerColumns(plan: Plan, columns: BundleColumns, pin: GradingPin): LayerColumns {
  const n = columns.attempts.count;
  const grader = new Int32Array(n).fill(-1);
  const verdict = new Uint8Array(n).fill(NO_VERDICT);
  const result = new Int32Array(n).fill(-1);
  const graders: Grader[] = [];
  const generations: (GenerationColumns | null)[] = [];
  // Generations in number order (a stable sort); a later result for an attempt wins.
  const ordered = [...columns.generations].sort((a, b) => a.generation - b.generation);
  const next = columns.nextSame;
  for (const g of ordered) {
    if (pin && (g.grader.id !== pin.id || g.grader.version !== pin.version)) continue;
    const k = graders.length;
    graders.push({ id: g.grader.id, version: g.grader.version, executable: g.grader.executable });
    generations.push(g);
    const { rows, verdicts } = g;
    for (let i = 0; i < rows.length; i++) {
      for (let row = rows[i]!; row !== -1; row = next === null ? -1 : next[row]!) {
        grader[row] = k;
        verdict[row] = verdicts[i]!;
        result[row] = i;
      }
    }
  }
  if (!pin) {
    const k = graders.length;
    graders.push({ id: plan.grader.id, version: plan.grader.version, executable: plan.grader.executable });
    generations.push(null);
    for (let row = 0; row < n; row++) if (grader[row] === -1) grader[row] = k;
  }
  return { graders, generations, grader, verdict, result };
}

/**
 * The layer as generation 1 alone grades the rows: the grader the plan
 * pinned (FORMAT.md 5.3: generation 1's grader is the plan's), every
 * attempt it did not grade missing; no config pin. What a regrade is
 * compared with.
 */
export function firstLayerColumns(plan: Plan, columns: BundleColumns): LayerColumns {
  return layerColumns(plan, { ...columns, generations: columns.generations.filter((g) => g.generation === 1) }, null);
}

/** Reason codes of grader_failure: 0 none, then failed, errored, missing. */
export const REASON_CODES: readonly (GraderReason | null)[] = [null, 'failed', 'errored', 'missing'];
const RESOLVED = TERMINAL_CLASSES.indexOf('resolved');
const GRADER_FAILURE = TERMINAL_CLASSES.indexOf('grader_failure');
/** Terminal class code of each outcome code when it is not completed. */
const CLASS_OF_OUTCOME = OUTCOME_CODES.map((o) => (o === 'completed' ? -1 : TERMINAL_CLASSES.indexOf(o as TerminalClass)));
const PASS = VERDICT_CODES.indexOf('pass');
const FAIL = VERDICT_CODES.indexOf('fail');

/** Terminal class code and reason code of an outcome code and verdict code. */
export function classCodes(outcome: number, verdict: number): { terminal: number; reason: number } {
  const terminal = CLASS_OF_OUTCOME[outcome]!;
  if (terminal !== -1) return { terminal, reason: 0 };
  if (verdict === PASS) return { terminal: RESOLVED, reason: 0 };
  if (verdict === FAIL) return { terminal: GRADER_FAILURE, reason: 1 };
  if (verdict === NO_VERDICT) return { terminal: GRADER_FAILURE, reason: 3 };
  return { terminal: GRADER_FAILURE, reason: 2 };
}

