/**
 * zod schemas of the SWE-bench files the importer reads (swebench
 * harness/run_evaluation.py, grading.py and reporting.py; the
 * SWE-bench/experiments submission layout). SWE-bench files are not our
 * format: objects are loose (members the importer does not map pass through
 * and stay only in the original files), but every member it maps is
 * validated here, at the edge, with its type.
 */
import { z } from 'zod';
import { describeIssue as describeZodIssue } from '../zod-issue.ts';

/** One line of a predictions JSONL: the harness's required members. `model_patch` may be null or empty (no patch). */
export const Prediction = z.looseObject({
  instance_id: z.string().min(1),
  model_name_or_path: z.string().min(1),
  model_patch: z.string().nullable(),
});
export type Prediction = z.infer<typeof Prediction>;

const Tests = z.looseObject({ success: z.array(z.string()), failure: z.array(z.string()) });

/** The value of a per-instance report.json (`{<instance_id>: InstanceReport}`). */
export const InstanceReport = z.looseObject({
  patch_is_None: z.boolean().optional(),
  patch_exists: z.boolean().optional(),
  patch_successfully_applied: z.boolean(),
  resolved: z.boolean(),
  tests_status: z
    .looseObject({
      FAIL_TO_PASS: Tests.optional(),
      PASS_TO_PASS: Tests.optional(),
      FAIL_TO_FAIL: Tests.optional(),
      PASS_TO_FAIL: Tests.optional(),
    })
    .optional(),
});
export type InstanceReport = z.infer<typeof InstanceReport>;

const Ids = z.array(z.string());
const Count = z.int().min(0);

/** The run report `<model>.<run_id>.json` (reporting.make_run_report), schema_version 2 and earlier. */
export const RunReport = z.looseObject({
  total_instances: Count.optional(),
  submitted_instances: Count.optional(),
  completed_instances: Count.optional(),
  resolved_instances: Count,
  unresolved_instances: Count.optional(),
  empty_patch_instances: Count.optional(),
  error_instances: Count.optional(),
  submitted_ids: Ids.optional(),
  completed_ids: Ids.optional(),
  resolved_ids: Ids,
  unresolved_ids: Ids.optional(),
  empty_patch_ids: Ids.optional(),
  error_ids: Ids.optional(),
  schema_version: z.union([z.int(), z.string()]).optional(),
});
export type RunReport = z.infer<typeof RunReport>;

/** SWE-bench/experiments `results/results.json`: id lists by outcome (`resolved`, `no_generation`, `no_logs`, ...), every member a list of ids. */
export const ExperimentsResults = z.object({ resolved: Ids }).catchall(Ids);
export type ExperimentsResults = { resolved: string[] } & Record<string, unknown>;

/** A one-line description of the first schema problem, for an ImportError. */
export const describeIssue = (error: z.ZodError): string => describeZodIssue(error, 'does not match the expected shape');
