/**
 * The score card (FORMAT.md 11.1) as the claims read it, and the Claim shape
 * (11.3). The card's strict schema lives with the evidence schemas
 * (src/schema/scorecard.ts, stage 2) because the config loader (stage 4)
 * reads the card; it is re-exported here for the claims and the site.
 */
import { z } from 'zod';

export { FIGURES, ORIGIN_KINDS, Scorecard, parseScorecard, type Figure, type Indicator } from '../schema/scorecard.ts';

/** One claim of a cohort (FORMAT.md 11.3), in the card's indicator order. */
export const Claim = z.strictObject({
  indicator: z.string(),
  /** The claimed level: the weaker of `uncapped` and `ceiling`. */
  level: z.string(),
  /** The indicator's own level (11.2). */
  uncapped: z.string(),
  /** The cohort's ceiling (11.3). */
  ceiling: z.string(),
  reason: z.string().nullable(),
});
export type Claim = z.infer<typeof Claim>;
