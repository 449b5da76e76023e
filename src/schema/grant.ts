/** grant.json, the spend authorization grant (FORMAT.md section 3.3). */
import { z } from 'zod';
import { Count, Digest, Name, Timestamp } from './common.ts';

/** A grant MUST echo the plan's id, models and budget exactly. */
export const Grant = z.strictObject({
  schema: z.literal('ledgerboard.grant.v1'),
  plan_id: Digest,
  models: z.array(Name),
  currency: Name,
  aggregate_micros: Count,
  per_attempt_micros: Count,
  expires_at: Timestamp,
});
export type Grant = z.infer<typeof Grant>;
