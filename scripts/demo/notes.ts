/** NOTES.md for a demo bundle: the publisher's prose plus facts computed from the evidence. */
import { Outcome as OutcomeSchema, type Grades, type Outcome, type Plan } from '../../src/schema/index.ts';
import type { PlanStory } from './plans.ts';
import type { SimAttempt } from './simulate.ts';
import { TASKS } from './tasks.ts';

const OUTCOMES: readonly Outcome[] = OutcomeSchema.options;

/** Micro-dollars as "USD 12.345678". */
export function usd(micros: number): string {
  return `USD ${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
}

/** The notes text. */
export function notesText(plan: Plan, story: PlanStory, sims: readonly SimAttempt[], generations: readonly Grades[]): string {
  const budget = plan.budget!;
  const holdout = TASKS.filter((t) => t.holdout).length;
  const known = sims.reduce((sum, s) => sum + (s.attempt.cost.micros ?? 0), 0);
  const unknown = sims.filter((s) => s.attempt.cost.state === 'unavailable').length;
  const partial = sims.filter((s) => s.attempt.cost.state === 'partial').length;
  const gaps = [unknown > 0 ? `${unknown} attempts have no cost figure` : '', partial > 0 ? `${partial} only a partial one` : ''].filter((g) => g !== '');
  const subjects = plan.subjects.map((s) => {
    const name = s.selector === s.model ? `\`${s.model}\`` : `\`${s.selector}\` resolved to \`${s.model}\``;
    return `  - ${name}, agent ${s.agent.name} ${s.agent.version}${s.role === 'baseline' ? ' (baseline)' : ''}`;
  });
  const graded = new Set(generations[0]?.results.map((r) => r.attempt_id));
  const ungraded = sims.filter((s) => s.attempt.outcome === 'completed' && !graded.has(s.attempt.attempt_id)).map((s) => `\`${s.attempt.attempt_id}\``);
  const grading = generations.map((g, i) => {
    const errors = g.results.filter((r) => r.verdict === 'error').length;
    const line = `- Generation ${g.generation}: ${g.grader.id} ${g.grader.version}, ${g.results.length} results, ${errors} errored`;
    const before = new Map(generations[i - 1]?.results.map((r) => [r.attempt_id, r.verdict]));
    if (i === 0) return line;
    const changed = g.results.filter((r) => before.has(r.attempt_id) && before.get(r.attempt_id) !== r.verdict).length;
    return `${line}; ${changed} verdicts differ from generation ${generations[i - 1]!.generation}`;
  });
  const outcomeRows = OUTCOMES.map((o) => [o, sims.filter((s) => s.attempt.outcome === o).length] as const)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `| ${o} | ${n} |`);

  return [
    `# ${plan.title}`,
    '',
    story.intro,
    '',
    `Plan id \`${plan.plan_id}\`, frozen ${plan.created_at}. Re-derive it with`,
    "`jq -cjS 'del(.plan_id)' plan.json | sha256sum`.",
    '',
    '## What ran',
    '',
    `- Ledger: ${plan.ledger.name}, ${plan.ledger.tasks} tasks (${holdout} holdout, ${TASKS.length - holdout} public)`,
    '- Subjects:',
    ...subjects,
    `- ${plan.attempts} attempts per task and subject: ${sims.length} attempts`,
    `- Budget: ${usd(budget.aggregate_micros)} in total, at most ${usd(budget.per_attempt_micros)} per attempt, ${budget.timeout_seconds} s per attempt`,
    `- Known spend: ${usd(known)}${gaps.length > 0 ? ` (a lower bound: ${gaps.join(', ')})` : ''}`,
    '',
    '## Outcomes',
    '',
    '| outcome | attempts |',
    '|---|---|',
    ...outcomeRows,
    '',
    '## Grading',
    '',
    ...grading,
    ...(ungraded.length > 0 ? [`- No result at all for ${ungraded.join(', ')} (counted as a grader failure)`] : []),
    '',
    '## Caveats',
    '',
    ...story.caveats.map((c) => `- ${c}`),
    '',
    'The harness and its task format are described at [example.com/yylo-benchmark](https://example.com/yylo-benchmark).',
    '',
  ].join('\n');
}
