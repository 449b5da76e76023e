/** The lm-evaluation-harness importer: one output directory (one run with --log_samples) per bundle (docs/importing.md, "lm-evaluation-harness"). */
import { ImportError } from '../errors.ts';
import type { Importer, ImportRequest } from '../importer.ts';
import { isPlainPath } from '../input-shape.ts';
import { DEFAULT_IMPORT_LIMITS } from '../limits.ts';
import { parsePassThreshold } from '../threshold.ts';
import { parseSourceJson } from '../source-json.ts';
import { DEFAULT_FILTER, DEFAULT_METRIC, LMEVAL_ORIGIN_FORMAT, mapLmEvalRun, parseGraderId, type LmEvalOptions } from './map.ts';
import { looksLikeRun, readLmEvalRun } from './read-run.ts';

/** Metric and filter names: what lm-eval names them with (acc, acc_norm, exact_match, pass@1; none, strict-match, maj@64). */
const NAME = /^[A-Za-z0-9_][A-Za-z0-9_@.+-]{0,199}$/;

/** The lm-eval options of a request: --metric, --filter, --pass-threshold, --results; else the defaults. */
export function lmEvalOptions(request: Pick<ImportRequest, 'license' | 'flags'> & { limits?: ImportRequest['limits'] }): LmEvalOptions & { results: string | null } {
  const { flags } = request;
  const text = (name: string): string | null => (typeof flags[name] === 'string' ? (flags[name] as string) : null);
  const metric = text('metric') ?? DEFAULT_METRIC;
  const filter = text('filter') ?? DEFAULT_FILTER;
  for (const [flag, value] of [['--metric', metric], ['--filter', filter]] as const) {
    if (!NAME.test(value)) throw new ImportError(`${flag} must be a metric or filter name (letters, digits, "_@.+-"), not ${JSON.stringify(value.slice(0, 40))}`);
  }
  const threshold = text('pass-threshold');
  const results = text('results');
  if (results !== null && (!isPlainPath(results) || results.includes('/'))) {
    throw new ImportError(`--results must name a results file at the top of the directory (a plain file name), not ${JSON.stringify(results.slice(0, 60))}`);
  }
  return {
    license: request.license,
    metric,
    filter,
    passThreshold: threshold === null ? null : parsePassThreshold(threshold),
    maxStringBytes: request.limits?.maxStringBytes ?? DEFAULT_IMPORT_LIMITS.maxStringBytes,
    results,
  };
}

const RESULTS_FILE = /^source\/results_.+\.json$/;
const SAMPLES_FILE = /^source\/samples_(.+)_([^/]+)\.jsonl$/;

export const lmEvalImporter: Importer = {
  name: 'lm-eval',
  origin: LMEVAL_ORIGIN_FORMAT,
  label: 'lm-evaluation-harness run',
  summary: 'EleutherAI lm-evaluation-harness output directories (results_<ts>.json with --log_samples samples_<task>_<ts>.jsonl), one bundle per run',
  input: 'directory',
  flags: {
    metric: { type: 'string', help: `--metric NAME        the per-doc metric that grades (default ${DEFAULT_METRIC}); its values must be 0/1 or booleans unless --pass-threshold is given` },
    filter: { type: 'string', help: `--filter NAME        the filter whose scored responses are imported (default ${DEFAULT_FILTER}); other filters are not imported` },
    'pass-threshold': {
      type: 'string',
      help: '--pass-threshold N   lm-eval: a metric value >= N passes (needed for a continuous metric such as f1 per doc; 0/1 metrics need none)',
    },
    results: { type: 'string', help: '--results FILE       lm-eval: the results_<ts>.json of the directory to import when it holds several runs' },
  },
  async detect(input) {
    return looksLikeRun(input);
  },
  checkFlags(flags) {
    lmEvalOptions({ license: '', flags });
  },
  async map(input, request) {
    const options = lmEvalOptions(request);
    const run = readLmEvalRun(input, request.limits, options.results);
    return mapLmEvalRun(run, options, input.skipped.length);
  },
  async sourceMetrics(sources, graderId) {
    const grader = parseGraderId(graderId);
    const resultsPath = [...sources.keys()].find((p) => RESULTS_FILE.test(p));
    if (grader === null || resultsPath === undefined) return null;
    const { value } = parseSourceJson(sources.get(resultsPath)!, resultsPath);
    const results = typeof value === 'object' && value !== null && !Array.isArray(value) ? value.results : null;
    if (typeof results !== 'object' || results === null || Array.isArray(results)) return null;
    const tasks = [...sources.keys()].map((p) => SAMPLES_FILE.exec(p)?.[1]).filter((t): t is string => t !== undefined);
    const metrics: { name: string; value: number | null }[] = [];
    for (const task of tasks) {
      const entry = results[task];
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
      for (const key of [`${grader.metric},${grader.filter}`, `${grader.metric}_stderr,${grader.filter}`]) {
        if (!Object.hasOwn(entry, key)) continue;
        const v = entry[key];
        // A stderr lm-eval could not compute is the string "N/A": shown as no value.
        metrics.push({ name: `${task} ${key}`, value: typeof v === 'number' && Number.isFinite(v) ? v : null });
      }
    }
    return metrics.length === 0 ? null : metrics;
  },
  rerunFlags(plan) {
    const grader = parseGraderId(plan.grader.id);
    if (grader === null) return [];
    return [
      ...(grader.metric === DEFAULT_METRIC ? [] : [['--metric', grader.metric]]),
      ...(grader.filter === DEFAULT_FILTER ? [] : [['--filter', grader.filter]]),
      ...(grader.threshold === null ? [] : [['--pass-threshold', grader.threshold]]),
    ];
  },
};
