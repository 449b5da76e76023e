/**
 * zod schemas of the Terminal-Bench fields the importer reads, for both
 * layouts (docs/importing.md, "Terminal-Bench"):
 *
 * - Terminal-Bench 1 run directories (terminal_bench/harness/models.py:
 *   BenchmarkResults, TrialResults, RunMetadata);
 * - Harbor jobs, the Terminal-Bench 2 harness (harbor/models/trial/result.py
 *   TrialResult, models/job/result.py JobResult, verifier/result.py).
 *
 * Objects are loose (members the importer does not map pass through and stay
 * only in the originals), but every member it maps is type-checked here.
 */
import { z } from 'zod';
import { describeIssue as describeZodIssue } from '../zod-issue.ts';

const NonNegativeInt = z.int().min(0);

/** One TB1 trial (TrialResults), as in the run's results.json and in `<task>/<trial>/results.json`. */
export const Tb1Trial = z.looseObject({
  id: z.string().nullish(),
  trial_name: z.string(),
  task_id: z.string(),
  instruction: z.string(),
  is_resolved: z.boolean().nullish(),
  failure_mode: z.string().nullish(),
  parser_results: z.record(z.string(), z.string().nullable()).nullish(),
  total_input_tokens: NonNegativeInt.nullish(),
  total_output_tokens: NonNegativeInt.nullish(),
  trial_started_at: z.string().nullish(),
  trial_ended_at: z.string().nullish(),
});
export type Tb1Trial = z.infer<typeof Tb1Trial>;

/** The TB1 run-level results.json (BenchmarkResults). */
export const Tb1Results = z.looseObject({
  id: z.string().nullish(),
  results: z.array(z.unknown()),
  n_resolved: NonNegativeInt.nullish(),
  n_unresolved: NonNegativeInt.nullish(),
  resolved_ids: z.array(z.string()).nullish(),
  unresolved_ids: z.array(z.string()).nullish(),
  accuracy: z.number().nullish(),
});
export type Tb1Results = z.infer<typeof Tb1Results>;

/** The TB1 run_metadata.json (RunMetadata), the members the importer maps. */
export const Tb1RunMetadata = z.looseObject({
  run_id: z.string().nullish(),
  dataset_name: z.string().nullish(),
  dataset_version: z.string().nullish(),
  dataset_path: z.string().nullish(),
  agent_name: z.string().nullish(),
  model_name: z.string().nullish(),
  start_time: z.string().nullish(),
  end_time: z.string().nullish(),
  n_attempts: z.int().min(1).nullish(),
  commit_hash: z.string().nullish(),
  accuracy: z.number().nullish(),
});
export type Tb1RunMetadata = z.infer<typeof Tb1RunMetadata>;

/** One Harbor trial's result.json (TrialResult), the members the importer maps. */
export const HarborTrial = z.looseObject({
  id: z.string().nullish(),
  task_name: z.string(),
  trial_name: z.string(),
  task_checksum: z.string().nullish(),
  source: z.string().nullish(),
  config: z
    .looseObject({
      agent: z.looseObject({ name: z.string().nullish(), model_name: z.string().nullish() }).nullish(),
      environment: z.looseObject({ type: z.string().nullish() }).nullish(),
    })
    .nullish(),
  agent_info: z
    .looseObject({
      name: z.string(),
      version: z.string().nullish(),
      model_info: z.looseObject({ name: z.string().nullish(), provider: z.string().nullish() }).nullish(),
    })
    .nullish(),
  agent_result: z
    .looseObject({
      n_input_tokens: NonNegativeInt.nullish(),
      n_cache_tokens: NonNegativeInt.nullish(),
      n_output_tokens: NonNegativeInt.nullish(),
      cost_usd: z.number().nullish(),
    })
    .nullish(),
  verifier_result: z.looseObject({ rewards: z.record(z.string(), z.number().nullable()).nullish() }).nullish(),
  exception_info: z.looseObject({ exception_type: z.string(), exception_message: z.string().nullish() }).nullish(),
  started_at: z.string().nullish(),
  finished_at: z.string().nullish(),
});
export type HarborTrial = z.infer<typeof HarborTrial>;

/** One entry of the job's stats.evals (AgentDatasetStats). */
export const HarborEval = z.looseObject({
  n_trials: NonNegativeInt.nullish(),
  n_errors: NonNegativeInt.nullish(),
  metrics: z.array(z.record(z.string(), z.unknown())).nullish(),
  reward_stats: z.record(z.string(), z.record(z.string(), z.array(z.string()))).nullish(),
});

/** The Harbor job-level result.json (JobResult). */
export const HarborJob = z.looseObject({
  id: z.string().nullish(),
  started_at: z.string().nullish(),
  finished_at: z.string().nullish(),
  n_total_trials: NonNegativeInt.nullish(),
  stats: z.looseObject({ evals: z.record(z.string(), HarborEval).nullish() }).nullish(),
});
export type HarborJob = z.infer<typeof HarborJob>;

/** A one-line description of the first schema problem, for an ImportError. */
export const describeIssue = (error: z.ZodError): string => describeZodIssue(error, 'does not match the expected shape');
