/** grant.json, the spend authorization grant (FORMAT.md section 3.3). */
import { Grant } from '../schema/index.ts';
import { compareTimes } from '../bundle/times.ts';
import { contentOf, addFinding, type VerifyContext } from './context.ts';
import { parseJsonFile } from './parse-evidence.ts';

const FILE = 'grant.json';

/** The grant echoes the plan exactly, and every attempt started before it expired. */
export function checkGrant(ctx: VerifyContext): void {
  const bytes = contentOf(ctx, FILE);
  if (bytes === undefined) return;
  const grant = parseJsonFile(ctx, FILE, bytes, Grant, false)?.data;
  if (!grant) return;
  ctx.grant = grant;
  const plan = ctx.plan;
  if (plan) {
    const differs: string[] = [];
    if (grant.plan_id !== plan.plan_id) differs.push(`plan_id ${grant.plan_id} is not the plan's ${plan.plan_id}`);
    const models = plan.subjects.map((s) => s.model);
    const distinct = [...new Set(models)];
    if (!sameList(grant.models, models) && !sameList(grant.models, distinct)) {
      differs.push(`models ${JSON.stringify(grant.models)} are not the plan's models in plan order ${JSON.stringify(distinct)}`);
    }
    if (plan.budget === null) {
      differs.push('the plan declares no budget, so there is nothing to grant');
    } else {
      for (const member of ['currency', 'aggregate_micros', 'per_attempt_micros'] as const) {
        if (grant[member] !== plan.budget[member]) {
          differs.push(`${member} ${JSON.stringify(grant[member])} is not the plan's ${JSON.stringify(plan.budget[member])}`);
        }
      }
    }
    for (const message of differs) addFinding(ctx, 'GRANT_MISMATCH', FILE, `the grant does not echo the plan: ${message}`);
  }
  const attempts = ctx.attempts;
  // Only when the latest start is not before the expiry can any attempt be: then each is checked, in line order.
  if (!attempts || attempts.newestStart === null || compareTimes(attempts.newestStart, grant.expires_at) < 0) return;
  for (let row = 0; row < attempts.count; row++) {
    const started = attempts.startedAt(row);
    if (compareTimes(started, grant.expires_at) >= 0) {
      const line = attempts.line[row]!;
      addFinding(
        ctx,
        'GRANT_MISMATCH',
        'attempts.jsonl',
        `line ${line}: attempt ${JSON.stringify(attempts.attemptId(row))} started at ${started}, not before the grant expired at ${grant.expires_at}`,
        line,
      );
    }
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
