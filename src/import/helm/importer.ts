/** The HELM importer: one run directory (benchmark_output/runs/<suite>/<run>/) per bundle (docs/importing.md, "HELM"). */
import { ImportError } from '../errors.ts';
import { parsePassThreshold } from '../threshold.ts';
import type { Importer, ImportRequest } from '../importer.ts';
import { DEFAULT_HELM_OPTIONS, HELM_SPLITS, mapHelmRun, type HelmOptions, type HelmSplit } from './map.ts';
import { PER_INSTANCE_STATS, readHelmRun, RUN_SPEC } from './read-run.ts';
import { helmSourceReader } from './source-reader.ts';

export { helmPassRule } from './source-reader.ts';

/** Parses --pass-threshold (threshold.ts), an exponent allowed: the grader id writes the threshold back with String(n). */
export const parseHelmThreshold = (text: string): number => parsePassThreshold(text, { exponent: true });

/** The HELM options of a request: --metric, --split and --pass-threshold, else the defaults. */
export function helmOptions(request: Pick<ImportRequest, 'license' | 'flags'>): HelmOptions {
  const { metric, split, 'pass-threshold': threshold } = request.flags;
  if (split !== undefined && (typeof split !== 'string' || !(HELM_SPLITS as readonly string[]).includes(split))) {
    throw new ImportError(`--split must be one of ${HELM_SPLITS.join(', ')}, not ${JSON.stringify(String(split).slice(0, 40))}`);
  }
  if (metric !== undefined && (typeof metric !== 'string' || metric === '')) throw new ImportError('--metric needs the name of a stat');
  return {
    license: request.license,
    metric: typeof metric === 'string' ? metric : DEFAULT_HELM_OPTIONS.metric,
    split: typeof split === 'string' ? (split as HelmSplit) : DEFAULT_HELM_OPTIONS.split,
    passThreshold: typeof threshold === 'string' ? parseHelmThreshold(threshold) : DEFAULT_HELM_OPTIONS.passThreshold,
  };
}

/** The first 64 KiB of a file as text (detect reads no more). */
function head(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64 * 1024)).toString('utf8');
}

export const helmImporter: Importer = {
  summary: 'Stanford CRFM HELM run directories (run_spec.json, per_instance_stats.json, scenario_state.json), one bundle per run',
  flags: {
    metric: {
      type: 'string',
      help: "--metric NAME        the per-instance stat that grades (default: the main metric HELM's schema names for the run's groups; else the refusal lists the stats)",
    },
    split: { type: 'string', help: '--split test|valid   the split imported (default test, as the HELM leaderboard; the other is counted, not imported)' },
    'pass-threshold': {
      type: 'string',
      help: '--pass-threshold N   a stat value >= N passes (default none: the stat must be 0/1, 1 passes; a continuous stat without it is refused)',
    },
  },
  async detect(input) {
    if (input.kind !== 'directory') return false;
    const spec = input.files.get(RUN_SPEC);
    const stats = input.files.get(PER_INSTANCE_STATS);
    if (spec === undefined || stats === undefined) return false;
    const text = head(spec);
    return /^\s*\{/.test(text) && /"adapter_spec"\s*:\s*\{/.test(text) && /"scenario_spec"\s*:\s*\{/.test(text) && /^\s*\[/.test(head(stats));
  },
  checkFlags(flags) {
    helmOptions({ license: '', flags });
  },
  async map(input, request) {
    const options = helmOptions(request);
    return mapHelmRun(readHelmRun(input, request.limits), options, request.limits);
  },
  ...helmSourceReader,
};
