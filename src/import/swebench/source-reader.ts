/**
 * The read side of the SWE-bench format (src/import/importer.ts
 * SourceReader): what the site reads back from a bundle's kept run directory
 * (predictions, the run report or results.json, per-instance report.json
 * under `source/`) and its plan. Reached by the site only through
 * src/import/sources.ts.
 */
import { ImportError } from '../errors.ts';
import type { SourceFormat, SourceMetric } from '../importer.ts';
import { classify, readSweRun } from './read-run.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../limits.ts';
import { RunReport } from './schema.ts';
import { sweTranscripts } from './transcript.ts';

/** The source's own figures: the run report's resolved count over its total and submitted counts, or results.json's resolved count. */
export function sweSourceMetrics(sources: ReadonlyMap<string, Uint8Array>, limits: ImportLimits = DEFAULT_IMPORT_LIMITS): SourceMetric[] | null {
  const files = new Map<string, Uint8Array>();
  for (const [path, bytes] of sources) if (path.startsWith('source/')) files.set(path.slice('source/'.length), bytes);
  if (files.size === 0) return null;
  // The originals are read as the import reads them first: a run that does not read (a cut run report, say) is an ImportError, not "no figure".
  readSweRun({ name: 'source', kind: 'directory', files, skipped: [] }, limits);
  for (const bytes of sources.values()) {
    const found = classify(bytes);
    if (found === null) continue;
    if (found.kind === 'run-report') {
      const parsed = RunReport.safeParse(found.value);
      if (!parsed.success) throw new ImportError('the run report is not a SWE-bench run report as the importer reads it');
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

/** The rule an import used to call an attempt resolved, read back from its grader id (one plain sentence for the plan page). */
export function swePassRule(graderId: string): string {
  if (graderId === 'swe-bench-results-json') {
    return "resolved: the instance's report.json says resolved (its FAIL_TO_PASS and PASS_TO_PASS tests pass) where the submission has one, else the instance is in results.json's resolved list (the submission's own results file, weaker than a report); in no list is fail, no_logs a harness failure, an empty patch a model failure";
  }
  return "resolved: the instance's report.json says resolved (its FAIL_TO_PASS and PASS_TO_PASS tests pass); a patch that did not apply is fail, an empty patch a model failure and a missing report.json a harness failure, neither graded";
}

/** The `origin.format` of SWE-bench imports. */
export const SWEBENCH_ORIGIN_FORMAT = 'swe-bench-run';

export const sweSourceReader: SourceFormat = {
  name: 'swe-bench',
  origin: SWEBENCH_ORIGIN_FORMAT,
  label: 'SWE-bench run',
  input: 'directory',
  async sourceMetrics(sources, _graderId, limits) {
    return sweSourceMetrics(sources, limits);
  },
  async transcripts(sources, limits) {
    return sweTranscripts(sources, limits);
  },
  passRule(plan) {
    return swePassRule(plan.grader.id);
  },
};
