/**
 * zod schemas of the Every Eval Ever (EEE) fields the importer reads:
 * every_eval_ever/schemas/eval.schema.json (the aggregate, EvaluationLog)
 * and instance_level_eval.schema.json (one sidecar row,
 * InstanceLevelEvaluationLog), schema versions 0.2.0 to 0.2.2.
 *
 * EEE files are not our format: objects are loose (members the importer does
 * not map pass through and stay only in the original files), but every
 * member it maps is validated here, at the edge, with its type. Two 0.2.0
 * spellings the published files use are accepted: a sample_id that is an
 * integer, and rows without `messages` (0.2.0 called them `interactions`).
 */
import { z } from 'zod';
import { describeIssue as describeZodIssue } from '../zod-issue.ts';

const NonNegativeInt = z.int().min(0);

/** metric_config: how a score reads (lower_is_better, score_type, range). */
export const EeeMetricConfig = z.looseObject({
  evaluation_description: z.string().optional(),
  metric_id: z.string().optional(),
  metric_name: z.string().optional(),
  lower_is_better: z.boolean(),
  score_type: z.enum(['binary', 'continuous', 'levels']).optional(),
  has_unknown_level: z.boolean().optional(),
  min_score: z.number().optional(),
  max_score: z.number().optional(),
});
export type EeeMetricConfig = z.infer<typeof EeeMetricConfig>;

/** One evaluation_results[] entry: a benchmark x metric and the source's own score. */
export const EeeResult = z.looseObject({
  evaluation_result_id: z.string().optional(),
  evaluation_name: z.string(),
  source_data: z.looseObject({ dataset_name: z.string().optional() }).optional(),
  evaluation_timestamp: z.string().optional(),
  metric_config: EeeMetricConfig,
  score_details: z.looseObject({ score: z.number() }),
  generation_config: z.unknown().optional(),
});
export type EeeResult = z.infer<typeof EeeResult>;

/** detailed_evaluation_results: the reference to the instance-level sidecar. */
export const EeeDetailed = z.looseObject({
  format: z.string(),
  file_path: z.string(),
  hash_algorithm: z.string().optional(),
  checksum: z.string().optional(),
  total_rows: NonNegativeInt.optional(),
});
export type EeeDetailed = z.infer<typeof EeeDetailed>;

/** The aggregate (EvaluationLog), the members the importer maps. */
export const EeeAggregate = z.looseObject({
  schema_version: z.string(),
  evaluation_id: z.string(),
  evaluation_timestamp: z.string().optional(),
  retrieved_timestamp: z.string(),
  source_metadata: z.looseObject({
    source_name: z.string().optional(),
    source_type: z.string(),
    source_organization_name: z.string(),
    evaluator_relationship: z.string(),
  }),
  model_info: z.looseObject({ name: z.string(), id: z.string() }),
  /** Required since 0.2.1; the 0.2.0 files name the library only in source_metadata.source_name. */
  eval_library: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  evaluation_results: z.array(EeeResult),
  detailed_evaluation_results: EeeDetailed.nullish(),
});
export type EeeAggregate = z.infer<typeof EeeAggregate>;

/** One sidecar row (InstanceLevelEvaluationLog): one sample scored by one aggregate result. */
export const EeeRow = z.looseObject({
  schema_version: z.string(),
  evaluation_id: z.string(),
  model_id: z.string(),
  evaluation_name: z.string(),
  evaluation_result_id: z.string().nullish(),
  sample_id: z.union([z.string(), z.int()]),
  interaction_type: z.string(),
  input: z.unknown().refine((v) => v !== undefined, 'required'),
  evaluation: z.looseObject({ score: z.number(), is_correct: z.boolean() }),
  token_usage: z
    .looseObject({ input_tokens: NonNegativeInt, output_tokens: NonNegativeInt, total_tokens: NonNegativeInt })
    .nullish(),
  performance: z
    .looseObject({ latency_ms: z.number().min(0).nullish(), generation_time_ms: z.number().min(0).nullish() })
    .nullish(),
  error: z.string().nullish(),
});
export type EeeRow = z.infer<typeof EeeRow>;

/** The first issue of a failed parse, as "path: message". */
export const describeIssue = (error: z.ZodError): string => describeZodIssue(error, 'does not match the schema');
