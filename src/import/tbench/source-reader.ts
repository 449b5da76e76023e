/**
 * The read side of the Terminal-Bench format (src/import/importer.ts
 * SourceReader): what the site reads back from a bundle's kept run or job
 * directory (results.json or result.json, each trial's result and log files
 * under `source/`) and its plan. Reached by the site only through
 * src/import/sources.ts.
 */
import { parseStrictJson } from '../../json/strict-json.ts';
import { ImportError } from '../errors.ts';
import type { SourceFormat, SourceMetric } from '../importer.ts';
import { tbenchTranscripts } from './transcript.ts';

/** A kept results file as an object; null when absent, an ImportError when it is not a JSON object. */
function objectOf(bytes: Uint8Array | undefined, path: string): Record<string, unknown> | null {
  if (bytes === undefined) return null;
  const parsed = parseStrictJson(bytes, { maxDepth: 512 });
  if (!parsed.ok) throw new ImportError(`${path} is not readable JSON: ${parsed.error.message}`);
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) throw new ImportError(`${path} is not a JSON object`);
  return parsed.value as Record<string, unknown>;
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * The pass rule of a Terminal-Bench bundle, read back from its grader id
 * (normalize.ts: `is_resolved` for TB1, `reward` or `reward>=N` for Harbor).
 */
export function tbenchPassRule(graderId: string): string {
  if (graderId === 'is_resolved') {
    return "is_resolved true, whatever the failure_mode (a trial resolved after the agent's timeout counts resolved, as Terminal-Bench's accuracy does); false fails; null (the tests did not finish or could not be parsed) is not graded";
  }
  const after = 'a passing reward counts resolved whatever the exception (an agent timeout, say), as Harbor\'s mean does; no reward is not graded';
  if (graderId === 'reward') return `the verifier's reward: 1 passes and 0 fails (any other reward needs --pass-threshold); ${after}`;
  const m = /^reward>=([0-9]+(?:\.[0-9]+)?)$/.exec(graderId);
  if (m) return `the verifier's reward at or above the threshold ${m[1]!} (--pass-threshold) passes, below it fails; ${after}`;
  return 'the Terminal-Bench or Harbor verifier\'s result, under a grader this version does not name';
}

/** The plan's `origin.format` of Terminal-Bench imports (both layouts). */
export const TBENCH_ORIGIN_FORMAT = 'terminal-bench-run';

export const tbenchSourceReader: SourceFormat = {
  name: 'terminal-bench',
  origin: TBENCH_ORIGIN_FORMAT,
  label: 'Terminal-Bench run',
  input: 'directory',
  async sourceMetrics(sources): Promise<SourceMetric[] | null> {
    const tb1 = objectOf(sources.get('source/results.json'), 'source/results.json');
    if (tb1 !== null) return 'accuracy' in tb1 ? [{ name: 'accuracy', value: finiteOrNull(tb1.accuracy) }] : null;
    const job = objectOf(sources.get('source/result.json'), 'source/result.json');
    const stats = job?.stats;
    const evals = typeof stats === 'object' && stats !== null ? (stats as Record<string, unknown>).evals : null;
    if (typeof evals !== 'object' || evals === null) return null;
    const metrics: SourceMetric[] = [];
    const entries = Object.values(evals as Record<string, unknown>);
    entries.forEach((e, i) => {
      const list = typeof e === 'object' && e !== null ? (e as Record<string, unknown>).metrics : null;
      if (!Array.isArray(list)) return;
      for (const m of list) {
        if (typeof m !== 'object' || m === null) continue;
        for (const [key, value] of Object.entries(m as Record<string, unknown>)) {
          metrics.push({ name: entries.length === 1 ? `${key} reward` : `${key} reward (eval ${i + 1})`, value: finiteOrNull(value) });
        }
      }
    });
    return metrics.length === 0 ? null : metrics;
  },
  transcripts(sources, limits) {
    return tbenchTranscripts(sources, limits);
  },
  passRule(plan) {
    return tbenchPassRule(plan.grader.id);
  },
  rerunFlags(plan) {
    const m = /^reward>=(.+)$/.exec(plan.grader.id);
    return m ? [['--pass-threshold', m[1]!]] : [];
  },
};
