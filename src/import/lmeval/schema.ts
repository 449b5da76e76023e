/**
 * zod schemas of the lm-evaluation-harness output fields the importer reads
 * (lm_eval/evaluator.py simple_evaluate / evaluate, lm_eval/loggers/
 * evaluation_tracker.py save_results_aggregated / save_results_samples).
 *
 * lm-eval output is not our format: objects are loose (members the importer
 * does not map pass through and stay only in the original files), but every
 * member it maps is validated here, at the edge, with its type.
 */
import { z } from 'zod';
import { describeIssue as describeZodIssue } from '../zod-issue.ts';

/** `n-samples[task]`: docs in the dataset split and docs evaluated (after --limit). */
const NSamples = z.looseObject({ original: z.int().min(0).nullish(), effective: z.int().min(0) });

/** The run `config` block: the model backend, its arguments, seeds and limits. */
export const LmEvalConfig = z.looseObject({
  model: z.string().nullish(),
  model_args: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  model_sha: z.string().nullish(),
  random_seed: z.int().nullish(),
});
export type LmEvalConfig = z.infer<typeof LmEvalConfig>;

/** The aggregate results file (`results_<timestamp>.json`). */
export const LmEvalResults = z.looseObject({
  results: z.record(z.string(), z.record(z.string(), z.unknown())),
  configs: z.record(z.string(), z.unknown()).nullish(),
  versions: z.record(z.string(), z.unknown()).nullish(),
  'n-shot': z.record(z.string(), z.unknown()).nullish(),
  'n-samples': z.record(z.string(), NSamples).nullish(),
  group_subtasks: z.record(z.string(), z.array(z.string())).nullish(),
  config: LmEvalConfig.nullish(),
  git_hash: z.string().nullish(),
  date: z.number().nullish(),
  model_name: z.string().nullish(),
  lm_eval_version: z.string().nullish(),
  task_hashes: z.record(z.string(), z.unknown()).nullish(),
  /**
   * Per task (and group), per metric name (without filter): whether a higher
   * value is better, as each task's metric_list says. lm-eval writes null for
   * a group whose subtasks disagree; any other type is not lm-eval output.
   */
  higher_is_better: z.record(z.string(), z.record(z.string(), z.boolean().nullable())).nullish(),
});
export type LmEvalResults = z.infer<typeof LmEvalResults>;

/** One line of a samples file: one doc under one filter, with its per-doc metric values as top-level members. */
export const LmEvalSample = z.looseObject({
  doc_id: z.int().min(0),
  doc: z.unknown(),
  target: z.unknown(),
  arguments: z.unknown(),
  resps: z.unknown(),
  filtered_resps: z.unknown(),
  filter: z.string().optional(),
  metrics: z.array(z.string()).nullish(),
  doc_hash: z.string().nullish(),
  prompt_hash: z.string().nullish(),
  target_hash: z.string().nullish(),
});
export type LmEvalSample = z.infer<typeof LmEvalSample>;

/** A one-line description of the first schema problem, for an ImportError. */
export const describeIssue = (error: z.ZodError): string => describeZodIssue(error, 'does not match the lm-eval output schema');
