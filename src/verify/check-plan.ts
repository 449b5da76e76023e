/** Steps over plan.json: schema, plan id, subjects, wiki paths and the money arithmetic (FORMAT.md section 3). */
import { DIGEST_PATTERN, selfId } from '../json/canonical.ts';
import { quotePath, unsafePathReason } from '../evidence/paths.ts';
import { Plan } from '../schema/index.ts';
import { subjectKey } from '../bundle/subject.ts';
import { contentOf, addFinding, type VerifyContext } from './context.ts';
import { parseJsonFile } from './parse-evidence.ts';

/** plan.json: strict JSON, integer numbers, schema, plan_id re-derives, and the manifest names this plan. */
export function readPlan(ctx: VerifyContext): void {
  const bytes = contentOf(ctx, 'plan.json');
  if (bytes === undefined) return; // MISSING_FILE or NOT_REGULAR_FILE already reported.
  const parsed = parseJsonFile(ctx, 'plan.json', bytes, Plan, true);
  if (!parsed) return;
  const raw = parsed.raw;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return;
  if (typeof raw.plan_id === 'string') ctx.planIdRead = raw.plan_id;
  ctx.planRaw = raw;
  ctx.plan = parsed.data;
  // The id re-derives from the bytes whatever the schema says of them.
  if (ctx.planIdRead !== undefined && DIGEST_PATTERN.test(ctx.planIdRead) && parsed.nonIntegerTokens === 0) {
    const derived = selfId(raw, 'plan_id');
    if (derived !== ctx.planIdRead) {
      addFinding(ctx, 'PLAN_ID_MISMATCH', 'plan.json', `plan_id is ${ctx.planIdRead} but the plan re-derives to ${derived}`);
    }
  }
  const named = ctx.manifest?.plan_id;
  if (named !== undefined && ctx.planIdRead !== undefined && named !== ctx.planIdRead) {
    addFinding(ctx, 'PLAN_ID_MISMATCH', 'manifest.json', `the manifest names plan ${named} but plan.json is ${ctx.planIdRead}`);
  }
}

/** Subjects are distinct model + agent identities (DUPLICATE_SUBJECT); wiki paths follow the rules of 2.1. */
export function checkSubjects(ctx: VerifyContext): void {
  const plan = ctx.plan;
  if (!plan) return;
  const seen = new Map<string, string>();
  plan.subjects.forEach((subject, i) => {
    const key = subjectKey(subject.model, subject.agent);
    const first = seen.get(key);
    if (first !== undefined) {
      addFinding(
        ctx,
        'DUPLICATE_SUBJECT',
        'plan.json',
        `subjects[${i}]: selectors ${JSON.stringify(first)} and ${JSON.stringify(subject.selector)} both resolve to model ${JSON.stringify(subject.model)} with agent ${JSON.stringify(`${subject.agent.name}@${subject.agent.version}`)}`,
      );
    } else {
      seen.set(key, subject.selector);
    }
  });
  plan.environment.wiki.forEach((page, i) => {
    const unsafe = unsafePathReason(page.path);
    // UNSAFE_PATH is for manifest paths; a plan member breaking the path rules is a schema violation.
    if (unsafe !== null) addFinding(ctx, 'SCHEMA_VIOLATION', 'plan.json', `environment.wiki[${i}].path ${quotePath(page.path)}: ${unsafe}`);
  });
}

/** The number of dispatches: tasks x subjects x attempts (every entry of subjects counts). */
export function dispatchesOf(plan: Plan): bigint {
  return BigInt(plan.ledger.tasks) * BigInt(plan.subjects.length) * BigInt(plan.attempts);
}

/** per_attempt_micros = floor(aggregate / dispatches) >= 1 (ZERO_SHARE, CEILING_ARITHMETIC). Skipped without a budget. */
export function checkMoney(ctx: VerifyContext): void {
  const plan = ctx.plan;
  if (!plan || plan.budget === null) return;
  const { aggregate_micros: aggregate, per_attempt_micros: perAttempt } = plan.budget;
  const dispatches = dispatchesOf(plan);
  const share = BigInt(aggregate) / dispatches;
  if (share < 1n) {
    ctx.ceilingBroken = true;
    addFinding(ctx, 'ZERO_SHARE', 'plan.json', `budget.aggregate_micros ${aggregate} over ${dispatches} dispatches gives less than one micro per dispatch`);
  }
  if (BigInt(perAttempt) !== share) {
    ctx.ceilingBroken = true;
    addFinding(
      ctx,
      'CEILING_ARITHMETIC',
      'plan.json',
      `budget.per_attempt_micros is ${perAttempt}; floor(${aggregate} / ${dispatches} dispatches) is ${share}`,
    );
  }
}

/**
 * Origin (FORMAT.md section 9): a null budget is allowed only for imported
 * evidence, and an imported plan's `origin.source` must be a listed file of
 * the bundle whose bytes hash to it (MISSING_ARTIFACT otherwise).
 */
export function checkOrigin(ctx: VerifyContext): void {
  const plan = ctx.plan;
  if (!plan) return;
  const origin = plan.origin;
  if (plan.budget === null && origin?.kind !== 'imported') {
    addFinding(ctx, 'SCHEMA_VIOLATION', 'plan.json', 'budget: null is allowed only for imported evidence (origin.kind "imported"); a frozen plan declares its ceiling');
  }
  if (origin?.kind === 'imported' && ctx.manifest && !ctx.presentDigests.has(origin.source)) {
    addFinding(ctx, 'MISSING_ARTIFACT', 'plan.json', `origin.source ${origin.source} (the imported original) has no file: no listed file of the bundle with these bytes is present`);
  }
}
