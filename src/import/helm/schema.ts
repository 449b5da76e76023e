/**
 * zod schemas of the HELM run files the importer reads (stanford-crfm/helm:
 * benchmark/run_spec.py RunSpec, adaptation/adapter_spec.py AdapterSpec,
 * metrics/statistic.py Stat, metrics/metric_name.py MetricName and
 * PerturbationDescription, benchmark/runner.py per_instance_stats.json,
 * adaptation/scenario_state.py ScenarioState and request_state.py
 * RequestState, scenarios/scenario.py Instance, common/request.py
 * RequestResult).
 *
 * HELM's files are not our format: objects are loose (members the importer
 * does not use pass through and are kept only in the original files), but
 * every member it maps is validated here, at the edge, with its type.
 */
import { z } from 'zod';

/** A number; non-finite tokens (NaN, Infinity) were read as null before parsing, so a stat value may be null. */
const Num = z.number();

/** MetricName: the stat's name, split, sub_split and perturbation (a perturbed variant of the metric). */
export const HelmMetricName = z.looseObject({
  name: z.string(),
  split: z.string().nullish(),
  sub_split: z.string().nullish(),
  perturbation: z.looseObject({ name: z.string().nullish() }).nullish(),
});
export type HelmMetricName = z.infer<typeof HelmMetricName>;

/** Stat: count, sum, ... and mean (absent when count is 0). */
export const HelmStat = z.looseObject({
  name: HelmMetricName,
  count: z.int().min(0),
  sum: Num.nullish(),
  sum_squared: Num.nullish(),
  min: Num.nullish(),
  max: Num.nullish(),
  mean: Num.nullish(),
});
export type HelmStat = z.infer<typeof HelmStat>;

/** One entry of per_instance_stats.json. */
export const HelmInstanceStats = z.looseObject({
  instance_id: z.string(),
  train_trial_index: z.int().min(0),
  perturbation: z.looseObject({ name: z.string().nullish() }).nullish(),
  stats: z.array(HelmStat),
});
export type HelmInstanceStats = z.infer<typeof HelmInstanceStats>;

export const HelmPerInstanceStats = z.array(HelmInstanceStats);
export const HelmStats = z.array(HelmStat);

/** AdapterSpec: the members the importer maps (the rest is digested as recorded). */
export const HelmAdapterSpec = z.looseObject({
  method: z.string().nullish(),
  model: z.string().min(1),
  model_deployment: z.string().nullish(),
  num_train_trials: z.int().min(1).nullish(),
  max_train_instances: z.int().min(0).nullish(),
  num_outputs: z.int().min(0).nullish(),
});
export type HelmAdapterSpec = z.infer<typeof HelmAdapterSpec>;

/** RunSpec. */
export const HelmRunSpec = z.looseObject({
  name: z.string().min(1),
  scenario_spec: z.looseObject({ class_name: z.string().min(1), args: z.unknown().optional() }),
  adapter_spec: HelmAdapterSpec,
  metric_specs: z.array(z.unknown()).nullish(),
  groups: z.array(z.string()).nullish(),
});
export type HelmRunSpec = z.infer<typeof HelmRunSpec>;

/** RequestState: the instance, its trial, its request's model and the result's success and time. */
export const HelmRequestState = z.looseObject({
  instance: z.looseObject({
    id: z.string().nullish(),
    input: z.unknown(),
    references: z.unknown().optional(),
    split: z.string().nullish(),
    sub_split: z.string().nullish(),
    perturbation: z.looseObject({ name: z.string().nullish() }).nullish(),
  }),
  train_trial_index: z.int().min(0),
  request: z.looseObject({ model: z.string().nullish() }).nullish(),
  result: z
    .looseObject({
      success: z.boolean().nullish(),
      request_time: Num.min(0).nullish(),
      completions: z.array(z.looseObject({ text: z.string().nullish() })).nullish(),
    })
    .nullish(),
});
export type HelmRequestState = z.infer<typeof HelmRequestState>;

/** ScenarioState. */
export const HelmScenarioState = z.looseObject({
  adapter_spec: z.unknown().optional(),
  request_states: z.array(HelmRequestState),
});
export type HelmScenarioState = z.infer<typeof HelmScenarioState>;
