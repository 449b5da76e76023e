/**
 * Parsed evidence with where it came from: what the verify context and the
 * column tables both hold (kept apart from either, so neither imports the other).
 */
import type { Attempt, Grades } from '../schema/index.ts';

/** An attempt with the JSONL line it came from. */
export interface AttemptLine {
  line: number;
  attempt: Attempt;
}

/** A grading generation with its file. */
export interface GradesFile {
  path: string;
  grades: Grades;
}
