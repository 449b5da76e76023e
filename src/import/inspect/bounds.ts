/**
 * `import_limits.string_bytes` for an Inspect log, applied as every importer
 * applies it: a string of the log that the mapping keeps (a name, an id, a
 * model, a version) or parses (a timestamp) and that is longer than the limit
 * refuses the import, naming the field and the limit; it is never cut (a cut
 * id could equal another). Strings the mapping only hashes (inputs, targets,
 * outputs, score receipts inside artifacts) or does not read are the
 * original log's, bounded by the file and entry limits.
 */
import { boundedString } from '../text.ts';
import type { InspectLog } from './read-log.ts';

/** The members of the log the mapping (map.ts) keeps or parses as text, each checked against `maxStringBytes` before anything is mapped. */
export function checkStringBounds(log: InspectLog, maxStringBytes: number, scorer: string | null = null): void {
  const bounded = (value: unknown, what: string) => {
    if (typeof value === 'string') boundedString(value, maxStringBytes, what);
  };
  const { header } = log;
  const spec = header.eval;
  // The plan: title and ledger name, selector, agent, harness and grader version, isolation, times.
  bounded(spec.task, 'eval.task');
  bounded(spec.model, 'eval.model');
  bounded(spec.created, 'eval.created');
  bounded(spec.dataset?.name, 'eval.dataset.name');
  bounded(spec.solver, 'eval.solver');
  bounded(spec.packages?.inspect_ai, 'eval.packages.inspect_ai');
  const sandbox = spec.sandbox;
  if (typeof sandbox === 'object' && sandbox !== null && !Array.isArray(sandbox)) bounded((sandbox as Record<string, unknown>).type, 'eval.sandbox.type');
  const steps = (header.plan?.steps ?? []).map((s) => s.solver);
  steps.forEach((solver, i) => bounded(solver, `plan.steps[${i}].solver`));
  // Without eval.solver the agent's name is the steps joined: the whole name is what is kept.
  if (spec.solver === null || spec.solver === undefined) bounded(steps.join(' > '), 'the agent name (plan.steps[].solver joined)');
  bounded(header.stats?.started_at, 'stats.started_at');
  bounded(header.stats?.completed_at, 'stats.completed_at');
  // Scorer names: each may become the grader id.
  bounded(scorer, 'the --scorer name');
  (spec.scorers ?? []).forEach((s, i) => bounded(s.name, `eval.scorers[${i}].name`));
  (header.results?.scores ?? []).forEach((s, i) => bounded(s.name, `results.scores[${i}].name`));
  // Each sample: its id (the task id), the model its output reports, its times, its score keys.
  log.samples.forEach((s, i) => {
    const at = `samples[${i}]`;
    bounded(s.id, `${at}.id`);
    bounded(s.output?.model, `${at}.output.model`);
    bounded(s.started_at, `${at}.started_at`);
    bounded(s.completed_at, `${at}.completed_at`);
    for (const key of Object.keys(s.scores ?? {})) bounded(key, `a score name of ${at}`);
  });
}
