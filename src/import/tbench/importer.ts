/**
 * The Terminal-Bench importer: a Terminal-Bench 1 run directory or a Harbor
 * job directory (Terminal-Bench 2) per bundle (docs/importing.md,
 * "Terminal-Bench").
 */
import { parseStrictJson } from '../../json/strict-json.ts';
import { parsePassThreshold } from '../threshold.ts';
import type { Importer, ImportRequest, SourceMetric } from '../importer.ts';
import { TBENCH_ORIGIN_FORMAT, mapTbenchInput } from './map.ts';
import type { TbenchOptions } from './normalize.ts';
import { detectLayout } from './read.ts';
import { tbenchTranscripts } from './transcript.ts';

/** Parses --pass-threshold (threshold.ts): a plain decimal, no sign (rewards are never negative); the text is kept as given in the grader id. */
export const parseTbenchThreshold = (text: string): number => parsePassThreshold(text, { sign: false });

/** The Terminal-Bench options of a request. */
export function tbenchOptions(request: Pick<ImportRequest, 'license' | 'flags'>): TbenchOptions {
  const threshold = request.flags['pass-threshold'];
  if (typeof threshold !== 'string') return { license: request.license, passThreshold: null, passThresholdText: null };
  return { license: request.license, passThreshold: parseTbenchThreshold(threshold), passThresholdText: threshold };
}

function objectOf(bytes: Uint8Array | undefined): Record<string, unknown> | null {
  if (bytes === undefined) return null;
  const parsed = parseStrictJson(bytes, { maxDepth: 512 });
  return parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value) ? (parsed.value as Record<string, unknown>) : null;
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

export const tbenchImporter: Importer = {
  name: 'terminal-bench',
  origin: TBENCH_ORIGIN_FORMAT,
  label: 'Terminal-Bench run',
  summary: 'Terminal-Bench: a Terminal-Bench 1 run directory (results.json, run_metadata.json) or a Harbor job directory (result.json per job and trial), one bundle per directory',
  input: 'directory',
  flags: {
    'pass-threshold': {
      type: 'string',
      help: '--pass-threshold N   a Harbor reward >= N passes (default: only rewards of exactly 1 pass and 0 fail; another reward needs N); TB1 is_resolved does not depend on it',
    },
  },
  async detect(input) {
    try {
      return detectLayout(input) !== null;
    } catch {
      return false;
    }
  },
  checkFlags(flags) {
    tbenchOptions({ license: '', flags });
  },
  async map(input, request) {
    const options = tbenchOptions(request);
    // TB1 verdicts do not depend on the threshold: it is left out of the bundle (and of its id) for a TB1 run.
    const layout = detectLayout(input);
    return mapTbenchInput(input, layout === 'tb1' ? { ...options, passThreshold: null, passThresholdText: null } : options, request.limits);
  },
  async sourceMetrics(sources): Promise<SourceMetric[] | null> {
    const tb1 = objectOf(sources.get('source/results.json'));
    if (tb1 !== null) return 'accuracy' in tb1 ? [{ name: 'accuracy', value: finiteOrNull(tb1.accuracy) }] : null;
    const job = objectOf(sources.get('source/result.json'));
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
