/** plan.json (FORMAT.md sections 3 and 9). */
import { z } from 'zod';
import { Agent, Count, Digest, Name, Timestamp } from './common.ts';

/** A subject under test: exact model + agent, the selector asked for, and its role. */
export const Subject = z.strictObject({
  selector: Name,
  model: Name,
  agent: Agent,
  role: z.enum(['candidate', 'baseline']),
});
export type Subject = z.infer<typeof Subject>;

/** The spend ceiling; `null` only for imported evidence (section 9). */
export const Budget = z.strictObject({
  currency: Name,
  aggregate_micros: Count,
  per_attempt_micros: Count,
  timeout_seconds: Count,
});
export type Budget = z.infer<typeof Budget>;

/** Where the evidence came from: frozen before the run (default) or imported afterwards. */
export const Origin = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('frozen') }),
  z.strictObject({
    kind: z.literal('imported'),
    format: Name,
    source: Digest,
    tool: z.strictObject({ name: Name, version: Name }),
  }),
]);
export type Origin = z.infer<typeof Origin>;

/** The grader pinned by the plan. */
export const PlanGrader = z.strictObject({ profile: Name, id: Name, version: Name, executable: Digest });

/** The frozen plan. */
export const Plan = z.strictObject({
  schema: z.literal('ledgerboard.plan.v1'),
  plan_id: Digest,
  title: z.string(),
  created_at: Timestamp,
  ledger: z.strictObject({ name: Name, digest: Digest, tasks: z.int().min(1) }),
  environment: z.strictObject({
    tool_policy: Digest,
    wiki: z.array(z.strictObject({ path: z.string(), sha256: Digest })),
    isolation: z.string(),
    session_topology: z.string(),
  }),
  harness: z.strictObject({
    name: Name,
    version: Name,
    commit: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'expected 40 or 64 lowercase hex digits'),
  }),
  grader: PlanGrader,
  subjects: z.array(Subject).min(1),
  attempts: z.int().min(1),
  budget: Budget.nullable(),
  access_tier: Name,
  seed: z.int(),
  origin: Origin.optional(),
});
export type Plan = z.infer<typeof Plan>;
