/**
 * The read side of the Every Eval Ever format (src/import/importer.ts
 * SourceReader): what the site reads back from a bundle's kept aggregate and
 * samples sidecar (under `source/`) and its plan. Reached by the site only
 * through src/import/sources.ts.
 */
import { parseStrictJson } from '../../json/strict-json.ts';
import { ImportError } from '../errors.ts';
import type { SourceFormat, SourceMetric } from '../importer.ts';
import { eeePassRule, linkResult } from './metric.ts';
import { EEE_MAX_DEPTH, looksLikeAggregate } from './read.ts';
import { EeeAggregate } from './schema.ts';
import { eeeTranscripts } from './transcript.ts';

/** The plan's `origin.format` of EEE imports. */
export const EEE_ORIGIN_FORMAT = 'every-eval-ever';

export const eeeSourceReader: SourceFormat = {
  name: 'eee',
  origin: EEE_ORIGIN_FORMAT,
  label: 'Every Eval Ever record',
  input: 'directory',
  async sourceMetrics(sources, graderId): Promise<SourceMetric[] | null> {
    const aggregates = [...sources.values()].filter(looksLikeAggregate);
    if (aggregates.length !== 1) throw new ImportError(aggregates.length === 0 ? 'no original reads as an Every Eval Ever aggregate' : `the originals hold ${aggregates.length} Every Eval Ever aggregates, not one`);
    const parsed = parseStrictJson(aggregates[0]!, { maxDepth: EEE_MAX_DEPTH });
    if (!parsed.ok) throw new ImportError(`the aggregate is not readable JSON: ${parsed.error.message}`);
    const aggregate = EeeAggregate.safeParse(parsed.value);
    if (!aggregate.success) throw new ImportError('the aggregate is not an Every Eval Ever aggregate as the importer reads it');
    const link = linkResult(aggregate.data, graderId);
    if (link === null) return null;
    const config = link.result.metric_config;
    return [{ name: config.metric_name ?? config.metric_id ?? config.evaluation_description ?? link.result.evaluation_name, value: link.result.score_details.score }];
  },
  async transcripts(sources, limits) {
    return eeeTranscripts(sources, limits);
  },
  rerunFlags(plan) {
    const flags = [['--metric', plan.grader.id]];
    const profile = (plan.grader as { profile?: unknown }).profile;
    const threshold = typeof profile === 'string' ? /^every-eval-ever score (?:>=|<=) (-?[0-9.]+)$/.exec(profile)?.[1] : undefined;
    if (threshold !== undefined) flags.push(['--pass-threshold', threshold]);
    return flags;
  },
  passRule(plan) {
    return eeePassRule(plan);
  },
};
