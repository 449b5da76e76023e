/** The SWE-bench importer: one run directory per bundle (docs/importing.md, "SWE-bench"). */
import type { Importer, SourceMetric } from '../importer.ts';
import { mapSweRun, SWEBENCH_ORIGIN_FORMAT } from './map.ts';
import { sweTranscripts } from './transcript.ts';
import { classify, isRunDirectory, readSweRun } from './read-run.ts';
import { RunReport } from './schema.ts';

/** The source's own figures: the run report's resolved count over its total and submitted counts, or results.json's resolved count. */
export function sweSourceMetrics(sources: ReadonlyMap<string, Uint8Array>): SourceMetric[] | null {
  for (const bytes of sources.values()) {
    const found = classify(bytes);
    if (found === null) continue;
    if (found.kind === 'run-report') {
      const parsed = RunReport.safeParse(found.value);
      if (!parsed.success) return null;
      const r = parsed.data;
      const ratio = (d: number | undefined) => (d === undefined || d === 0 ? null : r.resolved_instances / d);
      return [
        { name: 'resolved_instances', value: r.resolved_instances },
        { name: 'resolved_instances / total_instances', value: ratio(r.total_instances) },
        { name: 'resolved_instances / submitted_instances', value: ratio(r.submitted_instances) },
      ];
    }
    if (found.kind === 'experiments-results') {
      const value = found.value as { resolved: unknown[] };
      return [{ name: 'resolved (results.json)', value: value.resolved.length }];
    }
  }
  return null;
}

export const sweBenchImporter: Importer = {
  name: 'swe-bench',
  origin: SWEBENCH_ORIGIN_FORMAT,
  label: 'SWE-bench run',
  summary: 'SWE-bench evaluation runs: a run directory with predictions JSONL, run report and per-instance report.json (harness or SWE-bench/experiments layout), one bundle per directory',
  input: 'directory',
  flags: {},
  async detect(input) {
    try {
      return isRunDirectory(input);
    } catch {
      return false;
    }
  },
  async map(input, request) {
    const mapped = mapSweRun(readSweRun(input, request.limits), request.license);
    // Said on the command line only: NOTES.md must be the same when a stranger re-imports from the kept originals alone.
    const unkept = input.files.size - [...mapped.files.keys()].filter((p) => p.startsWith('source/')).length;
    if (unkept > 0) (mapped.summary.unkept ??= []).push(`${unkept === 1 ? '1 other file' : `${unkept} other files`} of the input not kept (only the predictions, the run report or results.json, the per-instance reports and, without predictions, metadata.yaml are)`);
    return mapped;
  },
  async sourceMetrics(sources) {
    return sweSourceMetrics(sources);
  },
  async transcripts(sources, limits) {
    return sweTranscripts(sources, limits);
  },
  passRule(plan) {
    return swePassRule(plan.grader.id);
  },
};

/** The rule an import used to call an attempt resolved, read back from its grader id (one plain sentence for the plan page). */
export function swePassRule(graderId: string): string {
  if (graderId === 'swe-bench-results-json') {
    return "resolved: the instance's report.json says resolved (its FAIL_TO_PASS and PASS_TO_PASS tests pass) where the submission has one, else the instance is in results.json's resolved list (the submission's own results file, weaker than a report); in no list is fail, no_logs a harness failure, an empty patch a model failure";
  }
  return "resolved: the instance's report.json says resolved (its FAIL_TO_PASS and PASS_TO_PASS tests pass); a patch that did not apply is fail, an empty patch a model failure and a missing report.json a harness failure, neither graded";
}
