/**
 * A cohort without one usable grade: no completed attempt was graded pass or
 * fail (no scorer, every grade missing or errored, every attempt halted). Its
 * headline of 0 resolved measures nothing, so the site shows "no usable
 * grades" where the rate and the rank would be, never a ranked 0.0%
 * (issue 15; an imported log's NOTES.md says the same).
 */
import type { ReportCohort } from '../report/schema.ts';

export const NO_USABLE_GRADES = 'no usable grades';

export function hasUsableGrades(c: Pick<ReportCohort, 'terminal_classes' | 'grader_failure_reasons'>): boolean {
  return c.terminal_classes.resolved + c.grader_failure_reasons.failed > 0;
}
