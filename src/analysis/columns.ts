/**
 * The attempts and grades of a counted bundle as analysis reads them:
 * columns (src/verify/tables.ts), not one object per attempt. Evidence
 * straight from the verifier is read from its tables; any other evidence (a
 * copy, a test's own, evidence whose objects were handed out) is put in the
 * same columns from its objects, so analysis has one implementation.
 */
import type { GradingPin } from '../config/config.ts';
import { compareTimestamps } from '../schema/timestamp.ts';
import type { Grader, Plan } from '../schema/index.ts';
import { AttemptTable, GradesTable, OUTCOME_CODES, VERDICT_CODES } from '../verify/tables.ts';
import { evidenceTables, type BundleEvidence } from '../verify/verify-bundle.ts';
import { TERMINAL_CLASSES, type GraderReason, type TerminalClass } from './grading.ts';

/** One grading generation: for each result the row of the attempt it names (-1: none) and its verdict code. */
export interface GenerationColumns {
  generation: number;
  created_at: string;
  grader: Grader;
  rows: Int32Array;
  verdicts: Uint8Array;
}

/** A bundle's attempts and generations, column-wise. */
export interface BundleColumns {
  attempts: AttemptTable;
  /** For each row, the next row with the same attempt id, or -1; null when every id is unique. */
  nextSame: Int32Array | null;
  generations: GenerationColumns[];
  /** The newest ended_at (the first of equal instants, in attempt order). */
  newestEnd: string | null;
}

/** The columns of a bundle's evidence: from the verifier's tables when it still has them, else from the objects. */
export function bundleColumns(evidence: BundleEvidence): BundleColumns {
  const kept = evidenceTables(evidence);
  if (kept && kept.attempts && !kept.attempts.duplicateIds && kept.grades.every((g) => g instanceof GradesTable)) {
    const generations = (kept.grades as GradesTable[]).map((g) => ({ generation: g.generation, created_at: g.created_at, grader: g.grader, rows: g.row.subarray(0, g.count), verdicts: g.verdict.subarray(0, g.count) }));
    return { attempts: kept.attempts, nextSame: null, generations, newestEnd: kept.attempts.newestEnd };
  }
  return columnsOfObjects(evidence);
}

/** {@link bundleColumns} from the evidence's objects (what any evidence has). */
export function columnsOfObjects(evidence: BundleEvidence): BundleColumns {
  const lines = evidence.attempts;
  const attempts = new AttemptTable(lines.length);
  const firstRow = new Map<string, number>();
  let nextSame: Int32Array | null = null;
  const lastRow = new Map<number, number>();
  let newestEnd: string | null = null;
  for (const { line, attempt } of lines) {
    const row = attempts.add(line, attempt);
    if (newestEnd === null || compareTimestamps(attempt.ended_at, newestEnd) > 0) newestEnd = attempt.ended_at;
    const first = firstRow.get(attempt.attempt_id);
    if (first === undefined) {
      firstRow.set(attempt.attempt_id, row);
      continue;
    }
    nextSame ??= new Int32Array(lines.length).fill(-1);
    nextSame[lastRow.get(first) ?? first] = row;
    lastRow.set(first, row);
  }
  const generations = evidence.grades.map(({ grades }) => {
    const rows = new Int32Array(grades.results.length);
    const verdicts = new Uint8Array(grades.results.length);
    grades.results.forEach((r, i) => {
      rows[i] = firstRow.get(r.attempt_id) ?? -1;
      verdicts[i] = VERDICT_CODES.indexOf(r.verdict);
    });
    return { generation: grades.generation, created_at: grades.created_at, grader: grades.grader, rows, verdicts };
  });
  return { attempts, nextSame, generations, newestEnd };
}

/** Verdict code of a row without a result in the layer (missing). */
export const NO_VERDICT = 255;

/** The grading layer of a bundle's rows (see {@link layerColumns}). */
export interface LayerColumns {
  graders: Grader[];
  /** For each of `graders`, the generation it is (null: the plan's grader for rows no generation graded). */
  generations: (GenerationColumns | null)[];
  grader: Int32Array;
  verdict: Uint8Array;
}

/**
 * The grading layer (as src/analysis/grading.ts gradingLayer, column-wise):
 * for each row its layer grader (an index into `graders`, -1 when a pin
 * excludes it) and verdict code. Without a pin, an attempt no generation
 * graded is in the plan's grader's layer (the last of `graders`) with no
 * verdict.
 */
export function layerColumns(plan: Plan, columns: BundleColumns, pin: GradingPin): LayerColumns {
  const n = columns.attempts.count;
  const grader = new Int32Array(n).fill(-1);
  const verdict = new Uint8Array(n).fill(NO_VERDICT);
  const graders: Grader[] = [];
  const generations: (GenerationColumns | null)[] = [];
  // Generations in number order (a stable sort, like gradingLayer's); a later result for an attempt wins.
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
      }
    }
  }
  if (!pin) {
    const k = graders.length;
    graders.push({ id: plan.grader.id, version: plan.grader.version, executable: plan.grader.executable });
    generations.push(null);
    for (let row = 0; row < n; row++) if (grader[row] === -1) grader[row] = k;
  }
  return { graders, generations, grader, verdict };
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

/** Terminal class code and reason code of an outcome code and verdict code (as grading.ts terminalClass). */
export function classCodes(outcome: number, verdict: number): { klass: number; reason: number } {
  const klass = CLASS_OF_OUTCOME[outcome]!;
  if (klass !== -1) return { klass, reason: 0 };
  if (verdict === PASS) return { klass: RESOLVED, reason: 0 };
  if (verdict === FAIL) return { klass: GRADER_FAILURE, reason: 1 };
  if (verdict === NO_VERDICT) return { klass: GRADER_FAILURE, reason: 3 };
  return { klass: GRADER_FAILURE, reason: 2 };
}

/**
 * The newest attempt end (the first of equal instants, in attempt order) and
 * each generation's created_at (in evidence order), read from the tables
 * when the evidence still has them (so nothing is built per attempt).
 */
export function newestTimes(evidence: BundleEvidence): { attemptsEnded: string | null; generations: string[] } {
  const kept = evidenceTables(evidence);
  if (kept) {
    return {
      attemptsEnded: kept.attempts?.newestEnd ?? null,
      generations: kept.grades.map((g) => (g instanceof GradesTable ? g.created_at : g.grades.created_at)),
    };
  }
  let attemptsEnded: string | null = null;
  for (const { attempt } of evidence.attempts) {
    if (attemptsEnded === null || compareTimestamps(attempt.ended_at, attemptsEnded) > 0) attemptsEnded = attempt.ended_at;
  }
  return { attemptsEnded, generations: evidence.grades.map((g) => g.grades.created_at) };
}
