/**
 * The graded metric of an Every Eval Ever import, as both sides read it:
 * the metric key of a row, the aggregate result it names, and the pass rule
 * in a sentence. Pure: the write side (map.ts) and the read side
 * (source-reader.ts, transcript.ts) import it, so the read side never loads
 * the writer.
 */
import { ImportError } from '../errors.ts';
import type { EeeAggregate, EeeResult, EeeRow } from './schema.ts';

/** The metric key of a row: its evaluation_result_id (the schema's join key), else its evaluation_name. */
export function metricKey(row: Pick<EeeRow, 'evaluation_result_id' | 'evaluation_name'>): string {
  return row.evaluation_result_id ?? row.evaluation_name;
}

/**
 * The aggregate result a metric key names: by evaluation_result_id, else by
 * evaluation_name; when neither matches and the aggregate holds exactly one
 * result, that one (`only`). Null when none can be told; an ImportError when
 * a name matches several.
 */
export function linkResult(aggregate: Pick<EeeAggregate, 'evaluation_results'>, key: string): { result: EeeResult; only: boolean } | null {
  const results = aggregate.evaluation_results;
  const byId = results.filter((r) => r.evaluation_result_id === key);
  if (byId.length === 1) return { result: byId[0]!, only: false };
  const byName = results.filter((r) => r.evaluation_name === key);
  if (byId.length > 1 || byName.length > 1) throw new ImportError(`the aggregate holds ${Math.max(byId.length, byName.length)} results named ${JSON.stringify(key.slice(0, 200))}: the graded metric is ambiguous`);
  if (byName.length === 1) return { result: byName[0]!, only: false };
  if (results.length === 1) return { result: results[0]!, only: true };
  return null;
}

/**
 * The rule an import used to call an attempt resolved, in one sentence for
 * the plan page, read back from the plan's grader: its id is the metric, its
 * profile the rule (graderProfile). Fixed words, the threshold as a plain
 * number and the metric's own name (quoted, at most 120 characters) only.
 */
export function eeePassRule(plan: { grader: { id: string } }): string {
  const metric = JSON.stringify(plan.grader.id.length > 120 ? `${plan.grader.id.slice(0, 120)}…` : plan.grader.id);
  const profile = (plan.grader as { profile?: unknown }).profile;
  const tail = 'and it records no error; one attempt per sample, as the sidecar has one row per sample and metric';
  if (profile === 'every-eval-ever is_correct') return `a sample is resolved when its row for the binary metric ${metric} records is_correct true ${tail}`;
  const threshold = typeof profile === 'string' ? /^every-eval-ever score (>=|<=) (-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)$/i.exec(profile) : null;
  if (threshold !== null) {
    const [, op, n] = threshold;
    const side = op === '>=' ? `at or above ${n!} (--pass-threshold ${n!}; higher is better)` : `at or below ${n!} (--pass-threshold ${n!}; the metric is lower_is_better)`;
    return `a sample is resolved when its row for the metric ${metric} scores ${side}, whatever its is_correct says (a -1 on a levels metric with an unknown level is an error, not a fail), ${tail}`;
  }
  return `a sample is resolved when its row for the metric ${metric} passes the rule its grader profile records ${tail}`;
}
