/** `ledgerboard import inspect <log>... -o <dir>`: import Inspect AI eval logs as evidence bundles (FORMAT.md section 9). */
import { ImportError } from '../import/errors.ts';
import { importLogFile } from '../import/import-log.ts';
import { DEFAULT_IMPORT_OPTIONS, type ImportOptions } from '../import/inspect/map.ts';
import { shortDigest } from '../json/canonical.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { painter, terminalSafe, useColour } from './terminal.ts';

const USAGE = `Usage: ledgerboard import inspect <log>... -o <dir> [--license TEXT] [--pass-threshold N] [--scorer NAME]

Imports Inspect AI eval logs (.eval archives, deflate or zstd entries, and
.json logs) as evidence bundles marked origin.kind "imported" (FORMAT.md
section 9). One bundle per log, written create-only and atomically to
<dir>/<slug>-<hex12>: the slug is the log's file name reduced to [a-z0-9-],
hex12 the first 12 hex digits of the log's SHA-256. The original log is kept
in the bundle byte for byte. Every bundle is verified after it is written.
Importing the same log with the same options and version gives the same
bundle id on any machine.

Options:
  -o, --out DIR          parent directory of the bundles (required)
  --license TEXT         license of the tasks (ledger "license"; default empty: MISSING_LICENSE warning)
  --pass-threshold N     a numeric score >= N passes (default 1.0); C passes, I and N
                         fail, P (partial credit, 0.5) passes only when N <= 0.5,
                         true passes, false fails
  --scorer NAME          the score that grades the attempts (default: the log's first scorer)
  --debug                print the stack of an unexpected error

Exit: 0 when every log was imported and verified, 1 when any failed (nothing
is written for it) or its bundle did not verify, 2 on a usage error.
Field mapping, decisions and what is lost: docs/importing.md.`;

/** Parses --pass-threshold: a plain decimal number (no hex, no exponent games). */
function parseThreshold(text: string): number {
  if (!/^-?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text)) throw new UsageError(`--pass-threshold must be a decimal number, not ${JSON.stringify(text)}`);
  return Number(text);
}

export const importCommand: Command = {
  summary: 'import Inspect AI eval logs as imported evidence bundles',
  usage: USAGE,
  options: { out: { type: 'string', short: 'o' }, license: { type: 'string' }, 'pass-threshold': { type: 'string' }, scorer: { type: 'string' } },
  async run(values, positionals, io) {
    const [format, ...logs] = positionals;
    if (format === undefined) throw new UsageError('import needs a log format: ledgerboard import inspect <log>... -o <dir>');
    if (format !== 'inspect') throw new UsageError(`unknown import format ${JSON.stringify(format)}: the only one is "inspect"`);
    if (logs.length === 0) throw new UsageError('import inspect needs at least one log file');
    if (typeof values.out !== 'string' || values.out === '') throw new UsageError('import inspect needs -o <dir>, the parent directory of the bundles');
    const options: ImportOptions = {
      license: typeof values.license === 'string' ? values.license : DEFAULT_IMPORT_OPTIONS.license,
      passThreshold: typeof values['pass-threshold'] === 'string' ? parseThreshold(values['pass-threshold']) : DEFAULT_IMPORT_OPTIONS.passThreshold,
      scorer: typeof values.scorer === 'string' ? values.scorer : null,
    };
    const paint = painter(useColour(io.stdout));
    let failed = 0;
    for (const [i, log] of logs.entries()) {
      io.stderr.write(`importing ${i + 1}/${logs.length}: ${terminalSafe(log)}\n`);
      try {
        const r = await importLogFile(log, values.out, options);
        const ok = r.status === 'verified';
        if (!ok) failed++;
        const s = r.summary;
        io.stdout.write(
          `${paint(ok ? 'green' : 'red', r.status.padEnd(10))} bundle ${shortDigest(r.bundleId)}  ${s.attempts} attempts (${s.tasks} tasks x ${s.epochs} epochs), log ${s.status}  ${terminalSafe(r.dir)}\n`,
        );
        for (const m of s.missing) io.stdout.write(`  missing  ${terminalSafe(m)}\n`);
        for (const f of r.findings.filter((f) => f.severity === 'error')) io.stdout.write(`  ${f.code}: ${terminalSafe(f.message)}\n`);
      } catch (error) {
        if (!(error instanceof ImportError)) throw error;
        failed++;
        io.stdout.write(`${paint('red', 'failed'.padEnd(10))} ${terminalSafe(log)}: ${terminalSafe(error.message)}\n`);
      }
    }
    io.stdout.write(`\n${logs.length} log${logs.length === 1 ? '' : 's'}: ${logs.length - failed} imported and verified, ${failed} failed\n`);
    return failed === 0 ? EXIT.ok : EXIT.notVerified;
  },
};
