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

/**
 * One human assessment of a score-card indicator (FORMAT.md 11.2), written
 * into the bundle's assessments.json: for the plan subject at `subject`
 * (an index into `subjects`), on the basis of a file of the bundle.
 */
export interface AssessmentSpec {
  indicator: string;
  subject: number;
  level: string;
  by: string;
  /** The basis: a bundle path under artifacts/ (written from `basisText`, listed in the manifest). */
  basis: string;
}

/** The assessments a bundle carries, and the text of every basis file they name. */
export interface AssessmentsSpec {
  entries: readonly AssessmentSpec[];
  basisText: Readonly<Record<string, string>>;
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
  /** A red team's assessments, carried as assessments.json (FORMAT.md 11.2); none when absent. */
  assessments?: AssessmentsSpec;
}

/** What freezing a plan reads of its spec (a plan frozen and never run needs no more). */
export type FrozenPlanSpec = Pick<PlanSpec, 'title' | 'createdAt' | 'seed' | 'toolPolicy' | 'subjects' | 'attempts'>;
