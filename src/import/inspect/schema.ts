/**
 * zod schemas of the Inspect log fields the importer reads (inspect_ai
 * src/inspect_ai/log/_log.py: EvalLog, EvalSpec, EvalStats, EvalResults,
 * EvalSample; model/_model_output.py: ModelUsage; scorer/_metric.py: Score).
 *
 * Inspect logs are not our format: objects are loose (members the importer
 * does not use pass through and are kept only in the original file), but
 * every member it maps is validated here, at the edge, with its type.
 */
import { z } from 'zod';
import { describeIssue as describeZodIssue } from '../zod-issue.ts';

/** A JSON number that is finite (non-finite tokens were read as null before parsing). */
const Finite = z.number();
const NonNegative = z.number().min(0);
const NonNegativeInt = z.int().min(0);

/** ModelUsage: token counts and, since ~0.3.180, total_cost (USD). */
export const InspectModelUsage = z.looseObject({
  input_tokens: NonNegativeInt,
  output_tokens: NonNegativeInt,
  total_tokens: NonNegativeInt.optional(),
  input_tokens_cache_write: NonNegativeInt.nullish(),
  input_tokens_cache_read: NonNegativeInt.nullish(),
  reasoning_tokens: NonNegativeInt.nullish(),
  total_cost: NonNegative.nullish(),
});
export type InspectModelUsage = z.infer<typeof InspectModelUsage>;

/** Score: value is str | int | float | bool | list | dict; interpreted by the mapper. */
export const InspectScore = z.looseObject({
  value: z.unknown(),
  answer: z.string().nullish(),
  explanation: z.string().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
export type InspectScore = z.infer<typeof InspectScore>;

/** A sample id: int or str. */
export const InspectSampleId = z.union([z.int(), z.string()]);

/** EvalSample, the members the importer maps. */
export const InspectSample = z.looseObject({
  id: InspectSampleId,
  epoch: z.int().min(1),
  input: z.union([z.string(), z.array(z.unknown())]),
  target: z.union([z.string(), z.array(z.string())]),
  choices: z.array(z.string()).nullish(),
  output: z.looseObject({ model: z.string().nullish() }).nullish(),
  scores: z.record(z.string(), InspectScore).nullish(),
  model_usage: z.record(z.string(), InspectModelUsage).nullish(),
  started_at: z.string().nullish(),
  completed_at: z.string().nullish(),
  total_time: NonNegative.nullish(),
  error: z.looseObject({ message: z.string() }).nullish(),
  error_retries: z.array(z.unknown()).nullish(),
  limit: z.looseObject({ type: z.string(), limit: Finite.nullish() }).nullish(),
  invalidation: z.unknown().optional(),
});
export type InspectSample = z.infer<typeof InspectSample>;

/** EvalScorer (eval.scorers[]). */
export const InspectScorer = z.looseObject({ name: z.string() });

/** EvalScore (results.scores[]). */
export const InspectResultScore = z.looseObject({ name: z.string(), scorer: z.string(), params: z.record(z.string(), z.unknown()).nullish() });

/** EvalSpec, the members the importer maps. */
export const InspectEvalSpec = z.looseObject({
  created: z.string(),
  task: z.string(),
  task_version: z.union([z.int(), z.string()]).nullish(),
  model: z.string(),
  dataset: z
    .looseObject({
      name: z.string().nullish(),
      samples: NonNegativeInt.nullish(),
      sample_ids: z.array(InspectSampleId).nullish(),
    })
    .nullish(),
  solver: z.string().nullish(),
  config: z.looseObject({ epochs: z.int().min(1).nullish() }).nullish(),
  packages: z.record(z.string(), z.string()).nullish(),
  scorers: z.array(InspectScorer).nullish(),
  model_generate_config: z.looseObject({ seed: z.int().nullish() }).nullish(),
  sandbox: z.unknown().optional(),
});
export type InspectEvalSpec = z.infer<typeof InspectEvalSpec>;

/** EvalPlan. */
export const InspectPlan = z.looseObject({
  steps: z.array(z.looseObject({ solver: z.string() })).nullish(),
  config: z.looseObject({ seed: z.int().nullish() }).nullish(),
});

/** The log's header: everything but the samples (header.json of a .eval, the top level of a .json). */
export const InspectHeader = z.looseObject({
  version: z.int().min(1),
  status: z.enum(['started', 'success', 'cancelled', 'error']),
  eval: InspectEvalSpec,
  plan: InspectPlan.nullish(),
  results: z
    .looseObject({
      total_samples: NonNegativeInt.nullish(),
      completed_samples: NonNegativeInt.nullish(),
      scores: z.array(InspectResultScore).nullish(),
    })
    .nullish(),
  stats: z.looseObject({ started_at: z.string().nullish(), completed_at: z.string().nullish() }).nullish(),
  error: z.looseObject({ message: z.string() }).nullish(),
});
export type InspectHeader = z.infer<typeof InspectHeader>;

/** _journal/start.json of a .eval whose header.json was never written (a run that did not finish). */
export const InspectStart = z.looseObject({ version: z.int().min(1), eval: InspectEvalSpec, plan: InspectPlan.nullish() });

/** The newest log format version the importer reads (inspect_ai LOG_SCHEMA_VERSION). */
export const MAX_LOG_VERSION = 2;

/** A one-line description of the first schema problem, for an ImportError. */
export const describeIssue = (error: z.ZodError): string => describeZodIssue(error, 'does not match the Inspect log schema');
