/**
 * Each cohort's headline figures per plan it pools, for the over-time chart
 * (src/site/charts/charts.ts timeChart), which draws a subject's rate pooled
 * over its plans up to each plan's date: read from the attempt index
 * (src/facts/attempt-index.ts), which holds each attempt's cohort, bundle and
 * terminal class as the analysis pooled them, never a second count.
 *
 * Counted as the report counts a headline (analysis/cohort-part.ts): every
 * attempt on a headline task is graded, a resolved one resolved. `usable`
 * counts the attempts that say something about the model
 * (views/usable-grades.ts): resolved, a model or safety failure, a timeout,
 * or a grade of fail; a grader failure whose reason the index does not hold
 * (past a cell's first rows, in a cell that also has errored or missing
 * grades) is not counted as usable, so a point is left out rather than drawn
 * as a 0% it may not be.
 *
 * A cohort whose per-plan figures do not add up to its headline in the report
 * gets none (the chart then keeps the report's points only): the chart never
 * shows a figure the report does not account for.
 */
import type { AttemptIndex } from '../../facts/attempt-index.ts';
import { TERMINAL_CLASSES } from '../../analysis/grading.ts';
import type { Report } from '../../report/schema.ts';
import type { PlanTally } from '../charts/charts.ts';

const USABLE_CLASSES = new Set(['resolved', 'model_failure', 'safety_failure', 'timeout'].map((c) => String(TERMINAL_CLASSES.indexOf(c as (typeof TERMINAL_CLASSES)[number]))));
const GRADER_FAILURE = String(TERMINAL_CLASSES.indexOf('grader_failure'));
const RESOLVED = String(TERMINAL_CLASSES.indexOf('resolved'));

/** Per cohort id, its headline figures per plan (the cohort's plans in report order); absent: no attempt index, or figures that do not add up. */
export function planTallies(report: Report, index: AttemptIndex): Map<string, PlanTally[]> {
  const out = new Map<string, PlanTally[]>();
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  for (const board of report.boards) {
    const tasks = (index.boards[board.board_id]?.tasks ?? []).filter((t) => t.splits.includes('headline'));
    board.cohorts.forEach((id, i) => {
      const cohort = cohorts.get(id);
      if (cohort === undefined) return;
      const byPlan = new Map<string, { resolved: number; graded: number; usable: number }>();
      for (const task of tasks) {
        const cell = task.cells[i];
        if (cell === undefined) continue;
        const failedOnly = cell.reasons.errored + cell.reasons.missing === 0;
        for (let j = 0; j < cell.strip.length; j++) {
          const detail = cell.first[j];
          const bundle = detail !== undefined ? detail.bundle : cell.rest.bundle[j - cell.first.length]!;
          const plan = index.bundles[bundle]!.plan_id;
          let t = byPlan.get(plan);
          if (t === undefined) byPlan.set(plan, (t = { resolved: 0, graded: 0, usable: 0 }));
          const terminal = cell.strip[j]!;
          t.graded++;
          if (terminal === RESOLVED) t.resolved++;
          if (USABLE_CLASSES.has(terminal) || (terminal === GRADER_FAILURE && (detail !== undefined ? detail.reason === 'failed' : failedOnly))) t.usable++;
        }
      }
      const tallies = cohort.plans.map((p) => ({ plan_id: p.plan_id, created_at: p.created_at, ...(byPlan.get(p.plan_id) ?? { resolved: 0, graded: 0, usable: 0 }) }));
      const sum = (k: 'resolved' | 'graded') => tallies.reduce((n, t) => n + t[k], 0);
      if (sum('resolved') === cohort.headline.resolved && sum('graded') === cohort.headline.graded) out.set(id, tallies);
    });
  }
  return out;
}
