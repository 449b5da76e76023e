/** One line of attempts.jsonl (FORMAT.md section 5.1). */
import { z } from 'zod';
import { Agent, Count, Digest, Name, Timestamp } from './common.ts';

/** How an attempt ended, as the harness recorded it. */
export const Outcome = z.enum([
  'completed',
  'model_failure',
  'safety_failure',
  'harness_failure',
  'environment_failure',
  'invalid_case',
  'timeout',
  'cancelled',
]);
export type Outcome = z.infer<typeof Outcome>;

/** The cost states; consistency of state and micros is COST_STATE_INCONSISTENT, checked apart. */
export const CostState = z.enum(['complete', 'partial', 'unavailable', 'not_applicable', 'zero']);
export type CostState = z.infer<typeof CostState>;

/** One dispatched attempt. */
export const Attempt = z.strictObject({
  attempt_id: Name,
  task_id: Name,
  model: Name,
  agent: Agent,
  /** 1..attempts; an index outside the matrix is UNPLANNED_ATTEMPT, not a schema problem. */
  index: z.int(),
  observed_model: z.string(),
  outcome: Outcome,
  started_at: Timestamp,
  ended_at: Timestamp,
  wall_seconds: z.number().min(0),
  tokens: z.strictObject({ input: Count, output: Count }).nullable(),
  retries: Count,
  cost: z.strictObject({ state: CostState, micros: Count.nullable() }),
  patch: Digest.nullable(),
});
export type Attempt = z.infer<typeof Attempt>;
