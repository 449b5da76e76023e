/** The Inspect AI importer: one .eval archive or .json log per bundle (docs/importing.md, "Inspect AI"). */
import { ImportError } from '../errors.ts';
import { parsePassThreshold } from '../threshold.ts';
import type { Importer, ImportRequest } from '../importer.ts';
import type { ImportInput } from '../input-shape.ts';
import { DEFAULT_IMPORT_OPTIONS, mapInspectLog, type ImportOptions } from './map.ts';
import { detectFormat, readInspectLog, readZipNames } from './read-log.ts';
import { inspectSourceReader, zipLimits } from './source-reader.ts';


export { parsePassThreshold };

/** The Inspect options of a request: --pass-threshold and --scorer, else the defaults. */
export function inspectOptions(request: Pick<ImportRequest, 'license' | 'flags'>): ImportOptions {
  const threshold = request.flags['pass-threshold'];
  const scorer = request.flags.scorer;
  return {
    license: request.license,
    // An exponent is accepted: the plan records a non-default threshold as String() writes it (1e-7), and the re-run command gives it back.
    passThreshold: typeof threshold === 'string' ? parsePassThreshold(threshold, { exponent: true }) : DEFAULT_IMPORT_OPTIONS.passThreshold,
    scorer: typeof scorer === 'string' ? scorer : null,
  };
}

/** The one file of an Inspect input; a directory is refused. */
function logBytes(input: ImportInput): Uint8Array {
  const only = input.kind === 'file' ? [...input.files.values()][0] : undefined;
  if (only === undefined) throw new ImportError('an Inspect log is one file (.eval or .json): give the log file, not a directory');
  return only;
}

export const inspectImporter: Importer = {
  summary: 'Inspect AI eval logs: .eval archives (deflate or zstd entries) and .json logs, one bundle per log',
  flags: {
    'pass-threshold': {
      type: 'string',
      help: '--pass-threshold N   a numeric score >= N passes (default 1.0); C passes, I and N fail, P (partial credit, 0.5) passes only when N <= 0.5, true passes, false fails',
    },
    scorer: { type: 'string', help: "--scorer NAME        the score that grades the attempts (default: the log's first scorer)" },
  },
  async detect(input, limits) {
    if (input.kind !== 'file') return false;
    const bytes = logBytes(input);
    const format = detectFormat(bytes);
    if (format === 'eval') {
      try {
        const names = await readZipNames(bytes, zipLimits(limits));
        return names.includes('header.json') || names.includes('_journal/start.json');
      } catch {
        return false;
      }
    }
    if (format !== 'json') return false;
    // A JSON log opens with its header's members: "version" and "eval" come before the (possibly huge) samples.
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 64 * 1024)).toString('utf8');
    return /"version"\s*:\s*[0-9]/.test(head) && /"eval"\s*:\s*\{/.test(head) && /"(?:task|task_id)"\s*:/.test(head);
  },
  checkFlags(flags) {
    inspectOptions({ license: '', flags });
  },
  async map(input, request) {
    const bytes = logBytes(input);
    const log = await readInspectLog(bytes, zipLimits(request.limits));
    return mapInspectLog(log, bytes, inspectOptions(request), request.limits);
  },
  ...inspectSourceReader,
};
