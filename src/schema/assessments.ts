/**
 * assessments.json (FORMAT.md 11.2): human assessments of score-card
 * indicators, evidence like every other file of a bundle (listed in its
 * manifest, parsed strictly). The verifier does not know the card, so it
 * never judges `indicator` or `level` names: the claims (src/claims/) do.
 */
import { z } from 'zod';
import { Agent, Name } from './common.ts';

/** One assessment: an indicator's level for one subject of the plan, by someone, on an optional basis (a manifest-listed path). */
export const Assessment = z.strictObject({
  indicator: Name,
  /** A subject of the plan, named by its model and agent (ASSESSMENT_UNKNOWN_SUBJECT otherwise). */
  subject: z.strictObject({ model: Name, agent: Agent }),
  level: Name,
  /** Who assessed: free text, shown escaped. */
  by: Name,
  /** A manifest-listed path of the bundle (ASSESSMENT_BASIS_MISSING otherwise); optional. */
  basis: Name.optional(),
});
export type Assessment = z.infer<typeof Assessment>;

/** The file. Two assessments of one indicator for one subject are a SCHEMA_VIOLATION (checked by the verifier, which names both). */
export const Assessments = z.strictObject({
  schema: z.literal('ledgerboard.assessments.v1'),
  assessments: z.array(Assessment),
});
export type Assessments = z.infer<typeof Assessments>;

/** The bundle path of the file. */
export const ASSESSMENTS_PATH = 'assessments.json';
