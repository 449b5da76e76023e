/**
 * The read side of the lm-evaluation-harness format (src/import/importer.ts SourceReader):
 * what the site reads back from a bundle's kept originals (the results file and the samples files under `source/`) and its
 * plan. Reached by the site only through src/import/sources.ts.
 */
import { ImportError } from '../errors.ts';
import type { SourceFormat } from '../importer.ts';
import { parseSourceJson } from '../source-json.ts';
import { parseGraderId, passRuleSentence, rerunFlagsOf, ruleOfTask } from './rules.ts';
import { lmEvalTranscripts } from './transcript.ts';

const RESULTS_FILE = /^source\/results_.+\.json$/;
const SAMPLES_FILE = /^source\/samples_(.+)_([^/]+)\.jsonl$/;

/** The `origin.format` of lm-eval imports. */
export const LMEVAL_ORIGIN_FORMAT = 'lm-eval-harness';

export const lmEvalSourceReader: SourceFormat = {
  name: 'lm-eval',
  origin: LMEVAL_ORIGIN_FORMAT,
  label: 'lm-evaluation-harness run',
  input: 'directory',
  async sourceMetrics(sources, graderId) {
    const grader = parseGraderId(graderId);
    const resultsPath = [...sources.keys()].find((p) => RESULTS_FILE.test(p));
    if (grader === null || resultsPath === undefined) return null;
    const { value } = parseSourceJson(sources.get(resultsPath)!, resultsPath);
    const results = typeof value === 'object' && value !== null && !Array.isArray(value) ? value.results : null;
    if (typeof results !== 'object' || results === null || Array.isArray(results)) throw new ImportError(`${resultsPath} is not an lm-eval results file: it has no "results" object`);
    const tasks = [...sources.keys()].map((p) => SAMPLES_FILE.exec(p)?.[1]).filter((t): t is string => t !== undefined);
    const metrics: { name: string; value: number | null }[] = [];
    for (const task of tasks) {
      const entry = results[task];
      const rule = ruleOfTask(grader, task);
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry) || rule === null) continue;
      for (const key of [`${rule.metric},${rule.filter}`, `${rule.metric}_stderr,${rule.filter}`]) {
        if (!Object.hasOwn(entry, key)) continue;
        const v = entry[key];
        // A stderr lm-eval could not compute is the string "N/A": shown as no value.
        metrics.push({ name: `${task} ${key}`, value: typeof v === 'number' && Number.isFinite(v) ? v : null });
      }
    }
    return metrics.length === 0 ? null : metrics;
  },
  async transcripts(sources, limits) {
    return lmEvalTranscripts(sources, limits);
  },
  rerunFlags(plan) {
    return rerunFlagsOf(plan.grader.id);
  },
  passRule(plan) {
    return passRuleSentence(plan.grader.id);
  },
};
