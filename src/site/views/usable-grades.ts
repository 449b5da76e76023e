/**
 * A cohort without one usable grade: no attempt says anything about the
 * model. None resolved, none completed and graded fail, none a model or
 * safety failure or a timeout; every attempt is a grade missing or errored,
 * a harness or environment failure, an invalid case or cancelled (no scorer,
 * dict-valued scores, every sample errored). Its headline of 0 resolved
 * measures nothing, so the site shows "no usable grades" where the rate and
 * the rank would be, never a ranked 0.0% (issue 15; an imported log's
 * NOTES.md says the same). A cohort whose headline has no graded task at all
 * (rate null) keeps its own wording.
 */
import type { ReportCohort } from '../../report/schema.ts';

export const NO_USABLE_GRADES = 'no usable grades';

export function hasUsableGrades(c: Pick<ReportCohort, 'terminal_classes' | 'grader_failure_reasons' | 'headline'>): boolean {
  const t = c.terminal_classes;
  return c.headline.rate === null || t.resolved + c.grader_failure_reasons.failed + t.model_failure + t.safety_failure + t.timeout > 0;
}
