/** The Every Eval Ever importer: a directory holding one aggregate and its samples sidecar per bundle (docs/importing.md, "Every Eval Ever"). */
import { parseStrictJson } from '../../json/strict-json.ts';
import { ImportError } from '../errors.ts';
import { parsePassThreshold } from '../threshold.ts';
import type { Importer, ImportRequest } from '../importer.ts';
import { mapEee, type EeeOptions } from './map.ts';
import { aggregatePaths, EEE_MAX_DEPTH, plainSidecarCandidates, readAggregate, readSidecar, sidecarCandidates, unsafeReference } from './read.ts';
import { eeeSourceReader } from './source-reader.ts';

/** Parses --pass-threshold (threshold.ts: a plain decimal number). */
export const parseEeeThreshold = (text: string): number => parsePassThreshold(text);

/** The options of a request: --metric and --pass-threshold. */
export function eeeOptions(request: Pick<ImportRequest, 'license' | 'flags' | 'limits'>): EeeOptions {
  const threshold = request.flags['pass-threshold'];
  const metric = request.flags.metric;
  if (metric !== undefined && (typeof metric !== 'string' || metric === '')) throw new ImportError('--metric needs a metric name');
  return {
    license: request.license,
    metric: typeof metric === 'string' ? metric : null,
    passThreshold: typeof threshold === 'string' ? parseEeeThreshold(threshold) : null,
    maxStringBytes: request.limits.maxStringBytes,
  };
}

export const eeeImporter: Importer = {
  summary: 'Every Eval Ever (evaleval) records: a directory holding one aggregate .json and the samples .jsonl sidecar it references, one bundle per directory',
  flags: {
    metric: { type: 'string', help: '--metric NAME        the metric that grades (a row evaluation_result_id, else evaluation_name; default: the only one)' },
    'pass-threshold': {
      type: 'string',
      help: '--pass-threshold N   a numeric score >= N passes (<= N for a lower_is_better EEE metric); needed unless the EEE metric is binary (is_correct decides)',
    },
  },
  /**
   * A directory holding exactly one aggregate and nothing else but the
   * sidecar it references (so a directory that also holds another format's
   * logs is opened by `import auto`, not swallowed).
   */
  async detect(input) {
    if (input.kind !== 'directory') return false;
    const paths = aggregatePaths(input.files);
    if (paths.length !== 1) return false;
    const others = [...input.files.keys()].filter((p) => p !== paths[0]);
    if (others.length === 0) return true;
    if (others.length > 1) return false;
    const parsed = parseStrictJson(input.files.get(paths[0]!)!, { maxDepth: EEE_MAX_DEPTH });
    if (!parsed.ok) return false;
    const ref = (parsed.value as { detailed_evaluation_results?: { file_path?: unknown } }).detailed_evaluation_results?.file_path;
    if (typeof ref !== 'string' || unsafeReference(ref) !== null) return false;
    return [...sidecarCandidates(paths[0]!, ref), ...plainSidecarCandidates(paths[0]!, ref)].includes(others[0]!);
  },
  checkFlags(flags) {
    eeeOptions({ license: '', flags, limits: { maxStringBytes: Number.MAX_SAFE_INTEGER } as ImportRequest['limits'] });
  },
  async map(input, request) {
    const options = eeeOptions(request);
    const agg = readAggregate(input);
    const sidecar = readSidecar(input, agg, request.limits.maxRecords, request.limits.maxStringBytes);
    const mapped = mapEee(agg, sidecar, options);
    // Said on the command line only: NOTES.md must be the same when a stranger re-imports from the kept originals alone.
    const unread = input.files.size - 2;
    if (unread > 0) (mapped.summary.unkept ??= []).push(`${unread === 1 ? '1 other file' : `${unread} other files`} of the input not read (only the aggregate and its sidecar are kept)`);
    return mapped;
  },
  ...eeeSourceReader,
};
