/** The shape of one demo plan, before it is frozen into plan.json. */
import type { SubjectDef } from './subjects.ts';
import type { ToolPolicyName } from './setup.ts';
import type { TaskSpec } from './tasks.ts';

/** A subject in a plan, with its skill (0-100) on this plan's date and tools. */
export interface PlannedSubject {
  def: SubjectDef;
  skill: number;
}

/** How a plan's attempts are graded. */
export interface GradingSpec {
  /** Attempt slots whose generation-1 result is missing (the grader crashed): subject selector index, task, index. */
  missing?: readonly { subject: number; task: string; index: number }[];
  /** Completed attempts on non-headline tasks whose grade errors in generation 1, as a probability. */
  errorRate: number;
  /** Why generation-1 errors happened (written into the grader's log). */
  errorReason: string;
  /** Repositories whose every completed attempt errors in generation 1. */
  erroredRepos?: readonly string[];
  /** Resolved attempts that generation 1 wrongly failed (picked by seed). */
  falseFailures?: number;
  /** Whether a generation 2 regrades every attempt with the regrader. */
  regrade?: boolean;
}

/** One demo plan. */
export interface PlanSpec {
  /** Bundle directory name (descriptive only: not identity). */
  dir: string;
  title: string;
  createdAt: string;
  seed: number;
  toolPolicy: ToolPolicyName;
  subjects: readonly PlannedSubject[];
  attempts: number;
  /** The ledger's tasks (default: the full widget-bugs ledger). */
  tasks?: readonly TaskSpec[];
  /** Tasks whose every attempt the harness reported as invalid_case. */
  invalidTasks?: readonly string[];
  grading: GradingSpec;
  grant: boolean;
}
