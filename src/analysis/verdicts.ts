/**
 * Per-task classes and verdicts against the board's baseline (FORMAT.md
 * section 7.4), over the headline tasks.
 *
 * A side is incomplete on a task when it has no attempt there, an
 * unaccounted slot there (a contributing plan's slot for this subject and
 * task with no attempt in the cohort), or a completed attempt whose grade is
 * missing or errored; otherwise its outcome is pass (all attempts resolved),
 * fail (none) or mixed.
 */
import type { AcceptanceRule } from '../config/config.ts';
import type { ContributingPlan } from './pool.ts';
import type { TaskTally } from './score.ts';

/** A side's outcome on one task. */
export type SideOutcome = 'pass' | 'fail' | 'mixed' | 'incomplete';
/** Why a side is incomplete on a task. */
export type IncompleteReason = 'no_attempt' | 'unaccounted_slot' | 'ungraded';
/** A task's class against the baseline. */
export type TaskClass = 'IMPROVED' | 'REGRESSED' | 'UNCHANGED' | 'UNCLEAR';
/** A candidate cohort's verdict. */
export type Verdict = 'PASS' | 'REGRESSION' | 'NO_GAIN' | 'NO_VERDICT';

/** One side of one task. */
export interface TaskSide {
  outcome: SideOutcome;
  reason: IncompleteReason | null;
  attempts: number;
  resolved: number;
}

/** One headline task compared. */
export interface TaskComparison {
  task_id: string;
  candidate: TaskSide;
  baseline: TaskSide;
  class: TaskClass;
}

/** A candidate's classes and verdict, with the reasons behind the verdict. */
export interface VerdictResult {
  classes: { improved: number; regressed: number; unchanged: number; unclear: number };
  verdict: Verdict;
  reasons: string[];
  regressed_tasks: string[];
  incomplete_tasks: { task_id: string; side: 'candidate' | 'baseline'; reason: IncompleteReason }[];
  tasks: TaskComparison[];
}

/** The side of one task for a cohort (its tallies and contributing plans). */
export function sideOf(tally: TaskTally | undefined, plans: ReadonlyMap<string, ContributingPlan>): TaskSide {
  if (!tally || tally.attempts === 0) return { outcome: 'incomplete', reason: 'no_attempt', attempts: 0, resolved: 0 };
  const counts = { attempts: tally.attempts, resolved: tally.resolved };
  for (const plan of plans.values()) {
    const filled = tally.filled.get(plan.plan_id) ?? 0;
    if (filled < plan.attempts_per_task) return { outcome: 'incomplete', reason: 'unaccounted_slot', ...counts };
  }
  if (tally.ungraded > 0) return { outcome: 'incomplete', reason: 'ungraded', ...counts };
  const outcome = tally.resolved === tally.attempts ? 'pass' : tally.resolved === 0 ? 'fail' : 'mixed';
  return { outcome, reason: null, ...counts };
}

/** The class of a task from both sides. */
export function classify(candidate: SideOutcome, baseline: SideOutcome): TaskClass {
  if (candidate === 'pass' && baseline === 'fail') return 'IMPROVED';
  if (candidate === 'fail' && baseline === 'pass') return 'REGRESSED';
  if ((candidate === 'pass' || candidate === 'fail') && candidate === baseline) return 'UNCHANGED';
  return 'UNCLEAR';
}

/** Why a board has no single baseline, or null when it has exactly one. */
export type BaselineProblem = 'no_baseline' | 'several_baselines' | null;

/**
 * The verdict of a candidate, the first that applies: REGRESSION (any task
 * regressed), NO_VERDICT (a headline task incomplete on either side, or no
 * single baseline), PASS (the acceptance rule holds), NO_GAIN.
 */
export function judge(
  headline: readonly string[],
  candidate: { tallies: ReadonlyMap<string, TaskTally>; plans: ReadonlyMap<string, ContributingPlan> },
  baseline: { tallies: ReadonlyMap<string, TaskTally>; plans: ReadonlyMap<string, ContributingPlan> } | null,
  baselineProblem: BaselineProblem,
  rule: AcceptanceRule,
): VerdictResult {
  const result: VerdictResult = {
    classes: { improved: 0, regressed: 0, unchanged: 0, unclear: 0 },
    verdict: 'NO_VERDICT',
    reasons: [],
    regressed_tasks: [],
    incomplete_tasks: [],
    tasks: [],
  };
  if (baseline === null) {
    result.reasons.push(baselineProblem === 'several_baselines' ? 'the board has more than one baseline cohort' : 'the board has no baseline cohort');
    return result;
  }
  for (const task_id of headline) {
    const c = sideOf(candidate.tallies.get(task_id), candidate.plans);
    const b = sideOf(baseline.tallies.get(task_id), baseline.plans);
    const cls = classify(c.outcome, b.outcome);
    result.tasks.push({ task_id, candidate: c, baseline: b, class: cls });
    result.classes[cls === 'IMPROVED' ? 'improved' : cls === 'REGRESSED' ? 'regressed' : cls === 'UNCHANGED' ? 'unchanged' : 'unclear']++;
    if (cls === 'REGRESSED') result.regressed_tasks.push(task_id);
    if (c.reason) result.incomplete_tasks.push({ task_id, side: 'candidate', reason: c.reason });
    if (b.reason) result.incomplete_tasks.push({ task_id, side: 'baseline', reason: b.reason });
  }
  if (result.regressed_tasks.length > 0) {
    result.verdict = 'REGRESSION';
    result.reasons.push(`${result.regressed_tasks.length} headline task(s) regressed: ${result.regressed_tasks.join(', ')}`);
    if (result.incomplete_tasks.length > 0) result.reasons.push(`${result.incomplete_tasks.length} side(s) of headline tasks were incomplete as well`);
  } else if (result.incomplete_tasks.length > 0) {
    result.verdict = 'NO_VERDICT';
    const list = result.incomplete_tasks.map((t) => `${t.task_id} (${t.side}: ${t.reason.replace('_', ' ')})`);
    result.reasons.push(`${result.incomplete_tasks.length} headline task side(s) incomplete: ${list.join(', ')}`);
  } else if (headline.length === 0) {
    result.reasons.push('the ledger has no headline task');
  } else if (result.classes.improved >= rule.min_improved) {
    result.verdict = 'PASS';
    result.reasons.push(`${result.classes.improved} improved, 0 regressed: the acceptance rule (regressed = 0, improved >= ${rule.min_improved}) holds`);
  } else {
    result.verdict = 'NO_GAIN';
    result.reasons.push(`${result.classes.improved} improved, 0 regressed: the acceptance rule (regressed = 0, improved >= ${rule.min_improved}) does not hold`);
  }
  return result;
}
