/**
 * The read side of the HELM format (src/import/importer.ts SourceReader):
 * what the site reads back from a bundle's kept run directory (stats.json,
 * scenario_state.json, per_instance_stats.json, run_spec.json under
 * `source/`) and its plan. Reached by the site only through
 * src/import/sources.ts.
 */
import type { SourceFormat } from '../importer.ts';
import { parseHelmGraderId } from './grader-id.ts';
import { helmAggregate, STATS } from './read-run.ts';
import { helmConfigurationDifferences, helmTranscripts } from './transcript.ts';

/**
 * The pass rule of a HELM bundle, read back from its grader id (map.ts
 * helmGraderId): the stat, the split and the threshold, and what a request
 * that failed at the provider counts as. One plain sentence.
 */
export function helmPassRule(graderId: string): string {
  const parsed = parseHelmGraderId(graderId);
  if (parsed === null) return 'the grader id is not one the HELM importer writes, so its pass rule is not known';
  const stat = `HELM's per-instance stat ${JSON.stringify(parsed.metric.slice(0, 200))} on the ${parsed.split} split (unperturbed)`;
  const rule = parsed.passThreshold === null ? `${stat} passes at 1 and fails at 0 (a 0/1 stat)` : `${stat} passes at or above ${parsed.passThreshold} (higher is better)`;
  return `${rule}; a request that failed at the provider but that HELM scored is graded by that score, one it did not score is a harness failure.`;
}

/** The `origin.format` of HELM imports. */
export const HELM_ORIGIN_FORMAT = 'helm-run';

export const helmSourceReader: SourceFormat = {
  name: 'helm',
  origin: HELM_ORIGIN_FORMAT,
  label: 'HELM run directory',
  input: 'directory',
  async sourceMetrics(sources, graderId) {
    const parsed = parseHelmGraderId(graderId);
    const stats = sources.get(`source/${STATS}`);
    if (parsed === null || stats === undefined) return null;
    const aggregate = helmAggregate(stats, parsed.metric, parsed.split);
    if (aggregate === null) return null;
    return [
      { name: `mean (HELM stats.json, ${parsed.split})`, value: aggregate.mean },
      { name: 'count (train trials)', value: aggregate.count },
      { name: 'num_instances', value: aggregate.instances },
    ];
  },
  async transcripts(sources, limits) {
    return helmTranscripts(sources, limits);
  },
  async configurationDifferences(a, b, limits) {
    return helmConfigurationDifferences(a, b, limits);
  },
  passRule(plan) {
    return helmPassRule(plan.grader.id);
  },
  rerunFlags(plan) {
    const parsed = parseHelmGraderId(plan.grader.id);
    if (parsed === null) return [];
    return [['--metric', parsed.metric], ...(parsed.split === 'test' ? [] : [['--split', parsed.split]]), ...(parsed.passThreshold === null ? [] : [['--pass-threshold', parsed.passThreshold]])];
  },
};
