/**
 * The published JSON Schemas (public/schema/<name>.json), generated from the
 * zod schemas with `z.toJSONSchema`: the zod definitions are the one source.
 * It lives above the evidence schemas (src/schema), beside the report's,
 * because it gathers the evidence files', the report's, the config's and the
 * score card's: the evidence schemas import nothing above them.
 */
import { z } from 'zod';
import { Attempt } from '../schema/attempt.ts';
import { Grades } from '../schema/grades.ts';
import { Grant } from '../schema/grant.ts';
import { LedgerRecord } from '../schema/ledger.ts';
import { Manifest } from '../schema/manifest.ts';
import { Plan } from '../schema/plan.ts';
import { Assessments } from '../schema/assessments.ts';
import { Scorecard } from '../schema/scorecard.ts';
import { Report } from './schema.ts';
import { Config } from '../config/schema.ts';

/** File name (without .json) to schema, in publication order. */
export const PUBLISHED_SCHEMAS = {
  manifest: Manifest,
  plan: Plan,
  'ledger-record': LedgerRecord,
  attempt: Attempt,
  grades: Grades,
  grant: Grant,
  assessments: Assessments,
  report: Report,
  config: Config,
  scorecard: Scorecard,
} as const;

/** Schemas of files people write by hand: described as input (members with a default are optional). */
const INPUT_SCHEMAS: ReadonlySet<keyof typeof PUBLISHED_SCHEMAS> = new Set(['config', 'scorecard']);

/** The JSON Schema text of one published schema, 2-space indented with a final newline. */
export function jsonSchemaText(name: keyof typeof PUBLISHED_SCHEMAS): string {
  const schema = z.toJSONSchema(PUBLISHED_SCHEMAS[name], { target: 'draft-2020-12', unrepresentable: 'any', io: INPUT_SCHEMAS.has(name) ? 'input' : 'output' });
  const titled = { $id: `/schema/${name}.json`, title: `ledgerboard ${name}`, ...schema };
  return `${JSON.stringify(titled, null, 2)}\n`;
}
