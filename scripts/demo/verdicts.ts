/**
 * A small, independent reading of FORMAT.md sections 7.1-7.4, used only to
 * check that the demo shows what it is meant to show (one candidate that
 * passes, one that regresses, ...). It is not the project's analysis: it
 * ignores unaccounted slots (the demo has none) and imported evidence.
 */
import { digestCanonical } from '../../src/json/canonical.ts';
import type { Attempt, Grades, LedgerRecord, Plan } from '../../src/schema/index.ts';
import { headlineTaskIds } from './tasks.ts';

/** What the check reads of one verified bundle. */
export interface VerdictEvidence {
  plan: Plan;
  ledger: readonly LedgerRecord[];
  attempts: readonly Attempt[];
  grades: readonly Grades[];
}

/** A verdict of section 7.4, or null for the baseline itself. */
export type Verdict = 'PASS' | 'REGRESSION' | 'NO_VERDICT' | 'NO_GAIN';

/** One cohort's classes and verdict. */
export interface CohortVerdict {
  board: string;
  model: string;
  agent: string;
  role: 'baseline' | 'candidate';
  classes: { improved: number; regressed: number; unchanged: number; unclear: number } | null;
  verdict: Verdict | null;
}

type Side = 'pass' | 'fail' | 'mixed' | 'incomplete';

interface Graded {
  taskId: string;
  resolved: boolean;
  /** A completed attempt whose grade is missing or errored. */
  undecided: boolean;
}

interface Cohort {
  board: string;
  model: string;
  agent: string;
  role: 'baseline' | 'candidate';
  headline: Set<string>;
  attempts: Graded[];
}

/** Classes and verdicts of every cohort, sorted by board, model and agent. */
export function cohortVerdicts(bundles: readonly VerdictEvidence[]): CohortVerdict[] {
  const cohorts = new Map<string, Cohort>();
  for (const { plan, ledger, attempts, grades } of bundles) {
    const headline = headlineTaskIds(ledger);
    const sortedGrades = [...grades].sort((a, b) => b.generation - a.generation);
    for (const a of attempts) {
      const layer = sortedGrades.find((g) => g.results.some((r) => r.attempt_id === a.attempt_id));
      const verdict = layer?.results.find((r) => r.attempt_id === a.attempt_id)?.verdict;
      const grader = layer?.grader ?? { id: plan.grader.id, version: plan.grader.version, executable: plan.grader.executable };
      const board = digestCanonical({
        ledger: plan.ledger.digest,
        environment: { ...plan.environment, wiki: [...plan.environment.wiki].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0)) },
        harness: plan.harness,
        budget: plan.budget && { currency: plan.budget.currency, per_attempt_micros: plan.budget.per_attempt_micros, timeout_seconds: plan.budget.timeout_seconds },
        grading: grader,
        origin: plan.origin?.kind ?? 'frozen',
      });
      const agent = `${a.agent.name}@${a.agent.version}`;
      const key = JSON.stringify([board, a.model, agent]);
      const subject = plan.subjects.find((s) => s.model === a.model && s.agent.name === a.agent.name && s.agent.version === a.agent.version);
      let cohort = cohorts.get(key);
      if (!cohort) {
        cohort = { board, model: a.model, agent, role: subject?.role ?? 'candidate', headline, attempts: [] };
        cohorts.set(key, cohort);
      }
      const completed = a.outcome === 'completed';
      cohort.attempts.push({ taskId: a.task_id, resolved: completed && verdict === 'pass', undecided: completed && (verdict === undefined || verdict === 'error') });
    }
  }

  const order = (c: Cohort): string => JSON.stringify([c.board, c.model, c.agent]);
  const all = [...cohorts.values()].sort((x, y) => (order(x) < order(y) ? -1 : order(x) > order(y) ? 1 : 0));
  return all.map((c) => {
    if (c.role === 'baseline') return { board: c.board, model: c.model, agent: c.agent, role: c.role, classes: null, verdict: null };
    const baselines = all.filter((b) => b.board === c.board && b.role === 'baseline');
    const classes = { improved: 0, regressed: 0, unchanged: 0, unclear: 0 };
    let incomplete = baselines.length !== 1;
    for (const task of c.headline) {
      const mine = sideOf(c, task);
      const base = baselines.length === 1 ? sideOf(baselines[0]!, task) : 'incomplete';
      if (mine === 'incomplete' || base === 'incomplete') incomplete = true;
      if (mine === 'pass' && base === 'fail') classes.improved++;
      else if (mine === 'fail' && base === 'pass') classes.regressed++;
      else if (mine === base && (mine === 'pass' || mine === 'fail')) classes.unchanged++;
      else classes.unclear++;
    }
    const verdict: Verdict = classes.regressed > 0 ? 'REGRESSION' : incomplete ? 'NO_VERDICT' : classes.improved >= 1 ? 'PASS' : 'NO_GAIN';
    return { board: c.board, model: c.model, agent: c.agent, role: c.role, classes, verdict };
  });
}

function sideOf(cohort: Cohort, taskId: string): Side {
  const here = cohort.attempts.filter((a) => a.taskId === taskId);
  if (here.length === 0 || here.some((a) => a.undecided)) return 'incomplete';
  const resolved = here.filter((a) => a.resolved).length;
  return resolved === here.length ? 'pass' : resolved === 0 ? 'fail' : 'mixed';
}

/** The baseline's headline pass rate per plan, in created_at order (the drift the site shows). */
export function baselineRates(bundles: readonly VerdictEvidence[]): { created_at: string; resolved: number; graded: number }[] {
  return [...bundles]
    .sort((a, b) => (a.plan.created_at < b.plan.created_at ? -1 : 1))
    .map(({ plan, ledger, attempts, grades }) => {
      const base = plan.subjects.find((s) => s.role === 'baseline')!;
      const headline = headlineTaskIds(ledger);
      const mine = attempts.filter((a) => a.model === base.model && a.agent.version === base.agent.version && headline.has(a.task_id));
      const latest = [...grades].sort((x, y) => y.generation - x.generation);
      const resolved = mine.filter((a) => a.outcome === 'completed' && latest.find((g) => g.results.some((r) => r.attempt_id === a.attempt_id))?.results.find((r) => r.attempt_id === a.attempt_id)?.verdict === 'pass').length;
      return { created_at: plan.created_at, resolved, graded: mine.length };
    });
}
