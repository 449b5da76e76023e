/**
 * The grading layer in use and each attempt's terminal class (FORMAT.md
 * sections 5.2 and 7.1). By default an attempt is graded by the latest
 * generation holding a result for it; with a pin (grader id + version) only
 * that grader's generations count, and attempts it never graded are left out.
 */
import type { GradingPin } from '../config/config.ts';
import type { Grader, Outcome, Plan } from '../schema/index.ts';
import type { GradesFile } from '../verify/context.ts';

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
export function terminalClass(outcome: Outcome, verdict: LayerGrade['verdict']): { klass: TerminalClass; reason: GraderReason | null } {
  if (outcome !== 'completed') return { klass: outcome, reason: null };
  switch (verdict) {
    case 'pass':
      return { klass: 'resolved', reason: null };
    case 'fail':
      return { klass: 'grader_failure', reason: 'failed' };
    case 'error':
      return { klass: 'grader_failure', reason: 'errored' };
    case null:
      return { klass: 'grader_failure', reason: 'missing' };
  }
}
