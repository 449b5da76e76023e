/** The SWE-bench importer: one run directory per bundle (docs/importing.md, "SWE-bench"). */
import type { Importer } from '../importer.ts';
import { mapSweRun } from './map.ts';
import { isRunDirectory, readSweRun } from './read-run.ts';
import { sweSourceReader } from './source-reader.ts';

export { swePassRule, sweSourceMetrics } from './source-reader.ts';

export const sweBenchImporter: Importer = {
  summary: 'SWE-bench evaluation runs: a run directory with predictions JSONL, run report and per-instance report.json (harness or SWE-bench/experiments layout), one bundle per directory',
  flags: {},
  async detect(input) {
    try {
      return isRunDirectory(input);
    } catch {
      return false;
    }
  },
  async map(input, request) {
    const mapped = mapSweRun(readSweRun(input, request.limits), request.license);
    // Said on the command line only: NOTES.md must be the same when a stranger re-imports from the kept originals alone.
    const unkept = input.files.size - [...mapped.files.keys()].filter((p) => p.startsWith('source/')).length;
    if (unkept > 0) (mapped.summary.unkept ??= []).push(`${unkept === 1 ? '1 other file' : `${unkept} other files`} of the input not kept (only the predictions, the run report or results.json, the per-instance reports and, without predictions, metadata.yaml are)`);
    return mapped;
  },
  ...sweSourceReader,
};
