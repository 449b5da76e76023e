/**
 * The attempts and grades of a counted bundle as analysis reads them: the
 * evidence's column tables (src/bundle/tables.ts), never one object per
 * attempt (the grading layer over them is in grading.ts).
 */
import type { Grader } from '../schema/index.ts';
import type { AttemptTable } from '../bundle/tables.ts';
import type { BundleEvidence } from '../bundle/evidence.ts';
import { evidenceSummary } from '../bundle/evidence-summary.ts';

/** One grading generation: for each result the row of the attempt it names (-1: none) and its verdict code. */
export interface GenerationColumns {
  /** Its position in the evidence's grades (the table its results are read from). */
  table: number;
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

/** The columns of a bundle's evidence (its tables, with the rows of repeated attempt ids chained when there are any). */
export function bundleColumns(evidence: BundleEvidence): BundleColumns {
  const { attempts } = evidence;
  const generations = evidence.grades.map((g, table) => ({ table, generation: g.generation, created_at: g.created_at, grader: g.grader, rows: g.row.subarray(0, g.count), verdicts: g.verdict.subarray(0, g.count) }));
  return { attempts, nextSame: attempts.duplicateIds ? chainRepeatedIds(attempts) : null, generations, newestEnd: attempts.newestEnd };
}

/**
 * For each row, the next row with the same attempt id (-1: none). A result
 * names the first row of its id (the table's `row`); following the chain
 * grades every row of that id, as grading by attempt id does.
 */
function chainRepeatedIds(attempts: AttemptTable): Int32Array {
  const next = new Int32Array(attempts.count).fill(-1);
  const last = new Map<string, number>();
  for (let row = 0; row < attempts.count; row++) {
    const id = attempts.attemptId(row);
    const before = last.get(id);
    if (before !== undefined) next[before] = row;
    last.set(id, row);
  }
  return next;
}

/** The newest attempt end (the first of equal instants, in attempt order) and each generation's created_at (in evidence order). */
export function newestTimes(evidence: BundleEvidence): { attemptsEnded: string | null; generations: string[] } {
  // From the summary: a kept verification's head holds it, so no table is read (bundle/evidence-summary.ts).
  const { newestEnd, generations } = evidenceSummary(evidence);
  return { attemptsEnded: newestEnd, generations };
}
