/**
 * The Terminal-Bench importer: a Terminal-Bench 1 run directory or a Harbor
 * job directory (Terminal-Bench 2) per bundle (docs/importing.md,
 * "Terminal-Bench").
 */
import { parsePassThreshold } from '../threshold.ts';
import type { Importer, ImportRequest } from '../importer.ts';
import { mapTbenchInput } from './map.ts';
import type { TbenchOptions } from './normalize.ts';
import { detectLayout } from './read.ts';
import { tbenchSourceReader } from './source-reader.ts';

export { tbenchPassRule } from './source-reader.ts';

/** Parses --pass-threshold (threshold.ts): a plain decimal, no sign (rewards are never negative); the text is kept as given in the grader id. */
export const parseTbenchThreshold = (text: string): number => parsePassThreshold(text, { sign: false });

/** The Terminal-Bench options of a request. */
export function tbenchOptions(request: Pick<ImportRequest, 'license' | 'flags'>): TbenchOptions {
  const threshold = request.flags['pass-threshold'];
  if (typeof threshold !== 'string') return { license: request.license, passThreshold: null, passThresholdText: null };
  return { license: request.license, passThreshold: parseTbenchThreshold(threshold), passThresholdText: threshold };
}

export const tbenchImporter: Importer = {
  summary: 'Terminal-Bench: a Terminal-Bench 1 run directory (results.json, run_metadata.json) or a Harbor job directory (result.json per job and trial), one bundle per directory',
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
  ...tbenchSourceReader,
};
