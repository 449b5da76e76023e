/**
 * The reference form of the grading layer and terminal classes
 * (src/analysis/grading.ts), for tests only: object by object, by attempt id.
 */
import type { GradingPin } from '../../src/config/config.ts';
import type { GradesFile } from '../../src/bundle/lines.ts';
import type { GraderReason, TerminalClass } from '../../src/analysis/grading.ts';
import type { Grader, Outcome, Plan } from '../../src/schema/index.ts';

/** The grade an attempt has in the layer in use. `verdict` null: no result (missing). */
export interface LayerGrade {
  grader: Grader;
  generation: number | null;
  verdict: 'pass' | 'fail' | 'error' | null;
}

/**
 * Returns a function giving each attempt's grade in the layer in use, or
 * `null` when a pin excludes it. Without a pin, an attempt no generation
 * graded is in the plan's pinned grader's layer with a missing grade.
 */
export function gradingLayer(plan: Plan, generations: readonly GradesFile[], pin: GradingPin): (attemptId: string) => LayerGrade | null {
  const latest = new Map<string, LayerGrade>();
  const ordered = [...generations].sort((a, b) => a.grades.generation - b.grades.generation);
  for (const { grades } of ordered) {
    if (pin && (grades.grader.id !== pin.id || grades.grader.version !== pin.version)) continue;
    const grader = { id: grades.grader.id, version: grades.grader.version, executable: grades.grader.executable };
    for (const result of grades.results) latest.set(result.attempt_id, { grader, generation: grades.generation, verdict: result.verdict });
  }
  const planGrader = { id: plan.grader.id, version: plan.grader.version, executable: plan.grader.executable };
  return (attemptId) => latest.get(attemptId) ?? (pin ? null : { grader: planGrader, generation: null, verdict: null });
}

/** The terminal class of an attempt and, for grader_failure, why. */
export function terminalClass(outcome: Outcome, verdict: LayerGrade['verdict']): { terminal: TerminalClass; reason: GraderReason | null } {
  if (outcome !== 'completed') return { terminal: outcome, reason: null };
  switch (verdict) {
    case 'pass':
      return { terminal: 'resolved', reason: null };
    case 'fail':
      return { terminal: 'grader_failure', reason: 'failed' };
    case 'error':
      return { terminal: 'grader_failure', reason: 'errored' };
    case null:
      return { terminal: 'grader_failure', reason: 'missing' };
  }
}
