/**
 * Checks, before anything is written, that the demo shows what it is meant
 * to: every outcome and cost state, unknown tokens, retries, errored and
 * missing grades, baseline drift, and the intended verdict per candidate on
 * the main board. A failed check is a bug in the demo's parameters.
 */
import type { Attempt } from '../../src/schema/index.ts';
import { baselineRates, cohortVerdicts, type Verdict, type VerdictEvidence } from './verdicts.ts';

/** The main board's intended verdict per candidate (model, agent@version). */
export const INTENDED_VERDICTS: Readonly<Record<string, Verdict>> = {
  'acme/mini-2026-08-01 loop@3.1.0': 'PASS',
  'acme/mini-2026-08-01 loop@3.2.0': 'NO_VERDICT',
  'lumen/sage-2026-05-20 loop@3.1.0': 'NO_GAIN',
  'lumen/sage-2026-10-15 loop@3.1.0': 'PASS',
  'orbit/coder-7b-2026-07 loop@3.1.0': 'REGRESSION',
};

const OUTCOMES = ['completed', 'model_failure', 'safety_failure', 'harness_failure', 'environment_failure', 'invalid_case', 'timeout', 'cancelled'];
const COST_STATES = ['complete', 'partial', 'unavailable', 'not_applicable', 'zero'];

/** What is wrong with the demo's design (empty when it shows everything it should). */
export function designProblems(bundles: readonly VerdictEvidence[]): string[] {
  const problems: string[] = [];
  const attempts = bundles.flatMap((b) => b.attempts);
  const outcomes = new Set(attempts.map((a) => a.outcome));
  for (const o of OUTCOMES) if (!outcomes.has(o as Attempt['outcome'])) problems.push(`no attempt ends ${o}`);
  const states = new Set(attempts.map((a) => a.cost.state));
  for (const s of COST_STATES) if (!states.has(s as Attempt['cost']['state'])) problems.push(`no cost is ${s}`);
  if (!attempts.some((a) => a.tokens === null)) problems.push('no attempt has unknown tokens');
  if (!attempts.some((a) => a.retries > 0)) problems.push('no attempt was retried');
  if (!bundles.some((b) => b.grades.some((g) => g.results.some((r) => r.verdict === 'error')))) problems.push('no grade errored');
  if (!bundles.some((b) => b.grades.length > 1)) problems.push('no regrade');
  const missing = bundles.some((b) => {
    const graded = new Set(b.grades.flatMap((g) => g.results.map((r) => r.attempt_id)));
    return b.attempts.some((a) => a.outcome === 'completed' && !graded.has(a.attempt_id));
  });
  if (!missing) problems.push('no completed attempt lacks a grade');

  const main = mainBoard(bundles);
  const verdicts = cohortVerdicts(main);
  if (new Set(verdicts.map((v) => v.board)).size !== 1) problems.push('the main plans do not share one board');
  const seen: Record<string, Verdict | null> = {};
  for (const v of verdicts) if (v.role === 'candidate') seen[`${v.model} ${v.agent}`] = v.verdict;
  if (JSON.stringify(seen, Object.keys(seen).sort()) !== JSON.stringify(INTENDED_VERDICTS, Object.keys(INTENDED_VERDICTS).sort())) {
    problems.push(`main-board verdicts ${JSON.stringify(seen)} are not the intended ${JSON.stringify(INTENDED_VERDICTS)}`);
  }
  const rates = baselineRates(main).map((r) => r.resolved / r.graded);
  if (new Set(rates).size < 2) problems.push('the baseline shows no drift between plans');
  return problems;
}

/** The bundles of the main board: the plans on the most common tool policy. */
export function mainBoard<T extends VerdictEvidence>(bundles: readonly T[]): T[] {
  const counts = new Map<string, number>();
  for (const b of bundles) counts.set(b.plan.environment.tool_policy, (counts.get(b.plan.environment.tool_policy) ?? 0) + 1);
  const policy = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  return bundles.filter((b) => b.plan.environment.tool_policy === policy);
}
