/** grades/<n>.json, one grading generation (FORMAT.md section 5.3). */
import { z } from 'zod';
import { Count, Digest, Name, Timestamp } from './common.ts';

/** A grader identity as a generation records it. */
export const Grader = z.strictObject({ id: Name, version: Name, executable: Digest });
export type Grader = z.infer<typeof Grader>;

/** One result. input / output / receipt are required digests of listed files (FORMAT.md 5.3; not nullable). */
export const GradeResult = z.strictObject({
  attempt_id: Name,
  verdict: z.enum(['pass', 'fail', 'error']),
  input: Digest,
  output: Digest,
  receipt: Digest,
});
export type GradeResult = z.infer<typeof GradeResult>;

/** A grading generation: 1 is the plan's grader; later ones are regrades that append. */
export const Grades = z.strictObject({
  schema: z.literal('ledgerboard.grades.v1'),
  generation: Count.min(1),
  created_at: Timestamp,
  grader: Grader,
  results: z.array(GradeResult),
});
export type Grades = z.infer<typeof Grades>;
