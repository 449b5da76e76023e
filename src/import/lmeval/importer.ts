/** The lm-evaluation-harness importer: one output directory (one run with --log_samples) per bundle (docs/importing.md, "lm-evaluation-harness"). */
import { ImportError } from '../errors.ts';
import type { Importer, ImportRequest } from '../importer.ts';
import { isPlainPath } from '../input-shape.ts';
import { DEFAULT_IMPORT_LIMITS } from '../limits.ts';
import { DEFAULT_FILTER, mapLmEvalRun, type LmEvalOptions } from './map.ts';
import { looksLikeRun, readLmEvalRun } from './read-run.ts';
import { nameValue, parsePerTask, thresholdValue, type PerTask } from './rules.ts';
import { lmEvalSourceReader } from './source-reader.ts';

/** The lm-eval options of a request: --metric, --filter, --pass-threshold (each for every task or per task), --results. */
export function lmEvalOptions(request: Pick<ImportRequest, 'license' | 'flags'> & { limits?: ImportRequest['limits'] }): LmEvalOptions & { results: string | null } {
  const { flags } = request;
  const maxStringBytes = request.limits?.maxStringBytes ?? DEFAULT_IMPORT_LIMITS.maxStringBytes;
  const text = (name: string): string | null => (typeof flags[name] === 'string' ? (flags[name] as string) : null);
  const perTask = <T>(name: string, value: (text: string) => T): PerTask<T> => {
    const given = text(name);
    return given === null ? { all: null, tasks: new Map() } : parsePerTask(name, given, value, maxStringBytes);
  };
  const results = text('results');
  if (results !== null && (!isPlainPath(results) || results.includes('/'))) {
    throw new ImportError(`--results must name a results file at the top of the directory (a plain file name), not ${JSON.stringify(results.slice(0, 60))}`);
  }
  return {
    license: request.license,
    metric: perTask('metric', nameValue('metric')),
    filter: perTask('filter', nameValue('filter')),
    passThreshold: perTask('pass-threshold', thresholdValue),
    maxStringBytes,
    results,
  };
}

export const lmEvalImporter: Importer = {
  summary: 'EleutherAI lm-evaluation-harness output directories (results_<ts>.json with --log_samples samples_<task>_<ts>.jsonl), one bundle per run',
  flags: {
    metric: {
      type: 'string',
      help: '--metric NAME        the per-doc metric that grades: NAME for every task, TASK=NAME for one, comma-separated (acc,lambada_openai=perplexity); default: each task\'s only metric in the results file; 0/1 or boolean values unless --pass-threshold is given',
    },
    filter: {
      type: 'string',
      help: `--filter NAME        the filter whose scored responses are imported: NAME, TASK=NAME, comma-separated (default ${DEFAULT_FILTER} where a task has it, else the task's only filter); other filters are not imported`,
    },
    'pass-threshold': {
      type: 'string',
      help: "--pass-threshold N   lm-eval: N, TASK=N, comma-separated: a value >= N passes, or <= N where the results file's higher_is_better is false (needed for a continuous or lower-is-better metric; 0/1 metrics need none)",
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
  ...lmEvalSourceReader,
};
