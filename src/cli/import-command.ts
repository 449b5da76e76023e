/**
 * `ledgerboard import <format> <input>... -o <dir>` and `ledgerboard import
 * auto <path>... -o <dir>`: import other harnesses' logs as evidence bundles
 * marked imported (FORMAT.md section 9). The formats are src/import/registry.ts.
 */
import { ImportError } from '../import/errors.ts';
import type { Importer, ImportRequest } from '../import/importer.ts';
import { importInput, importPath, type ImportResult } from '../import/import-input.ts';
import { autoFlags, prefixedFlags, resolveAuto, unusedFlagWarnings } from '../import/auto.ts';
import { OPTIONS_MAX_BYTES, OptionsFileError, readOptionsFile, type FormatOptions } from '../import/options-file.ts';
import { IMPORTERS, importerNamed } from '../import/registry.ts';
import { importLimitsOf, loadConfigFile } from '../config/config.ts';
import { ConfigError } from '../config/errors.ts';
import { shortDigest } from '../json/canonical.ts';
import { EXIT, UsageError, type CliIo, type Command } from './command.ts';
import { painter, terminalSafe, useColour } from './terminal.ts';

/** Every format flag of every importer, once (a flag shared by formats has one type). */
function formatFlags(): Record<string, { type: 'string' | 'boolean' }> {
  const flags: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const importer of IMPORTERS) {
    for (const [name, flag] of Object.entries(importer.flags)) {
      const known = flags[name];
      if (known !== undefined && known.type !== flag.type) throw new Error(`import flag --${name} has two types`);
      flags[name] = { type: flag.type };
    }
  }
  return flags;
}

const BASE_OPTIONS = { out: { type: 'string', short: 'o' }, license: { type: 'string' }, config: { type: 'string' }, options: { type: 'string' } } as const;
/** `import auto`'s per-format flags: `--<format>-<flag>` for every flag an importer declares. */
const PREFIXED = prefixedFlags(IMPORTERS, [...Object.keys(BASE_OPTIONS), ...Object.keys(formatFlags()), 'help', 'debug']);

const formatLines = IMPORTERS.map((i) => `  ${i.name.padEnd(16)} ${i.summary}`).join('\n');
const flagLines = IMPORTERS.flatMap((i) => Object.values(i.flags).map((f) => `  ${`(${i.name})`.padEnd(16)} ${f.help}`)).join('\n');
const prefixedLines = IMPORTERS.filter((i) => Object.keys(i.flags).length > 0)
  .map((i) => `  ${`(${i.name})`.padEnd(16)} ${Object.keys(i.flags).map((f) => `--${i.name}-${f}`).join(' ')}`)
  .join('\n');

const USAGE = `Usage: ledgerboard import <format> <input>... -o <dir> [--license TEXT] [--config FILE] [format options]
       ledgerboard import auto <path>... -o <dir> [same options] [--<format>-<flag> VALUE] [--options FILE]

Imports another harness's logs as evidence bundles marked origin.kind
"imported" (FORMAT.md section 9): never frozen, never ranked against frozen
evidence, every loss stated in the bundle's NOTES.md, unknown never written
as zero. One bundle per input (a log file, or a run directory), written
create-only and atomically to <dir>/<slug>-<hex12> (the slug from the input's
name, hex12 from its bytes). The originals are kept in the bundle byte for
byte; every bundle is verified after it is written. The same input with the
same options and version gives the same bundle id on any machine.

Formats:
${formatLines}
  ${'auto'.padEnd(16)} recognise each input's format from its content and say which;
                   a directory no format claims is opened and each entry imported
                   on its own (entries no format recognises are listed, not failed)

Options:
  -o, --out DIR          parent directory of the bundles (required)
  --license TEXT         license of the tasks (ledger "license"; default empty: MISSING_LICENSE warning)
  --config FILE          read import_limits from this config (default: ledgerboard.config.json if present)
  --debug                print the stack of an unexpected error

Format options (each only for its format; with auto, used by every format that takes them):
${flagLines}

import auto only: one format's own flags, so a directory mixing formats imports in one call
(a format's own value wins over the unprefixed flag; one flag of a format both prefixed and in
--options is a usage error):
${prefixedLines}
  --options FILE         each format's flags from a JSON file (at most ${OPTIONS_MAX_BYTES} bytes), e.g.
                         {"helm": {"metric": "harm_bench_score", "pass-threshold": "1"}};
                         flag names without "--", values as typed ("0.5"), true/false for a switch;
                         an unknown format or flag, or a wrong type, is a usage error naming it
A format's own flags given while no input is that format are said (warning), not used.

Importing again into the same -o: an input whose bundle is already there (the
same bundle id) is said "already imported (same bundle id)" and counts as
imported (it is verified again); a different bundle at the same name is
refused, naming both ids. Nothing is ever overwritten.

Exit: 0 when every input was imported (or already was) and verified, 1 when any
was refused (nothing is written for it) or its bundle did not verify, 2 on a
usage error.
Field mapping, decisions and what is lost, per format: docs/importing.md.`;

/** The format flags given that an importer takes. */
function flagsFor(importer: Importer, values: Record<string, string | boolean | undefined>): Record<string, string | boolean> {
  const flags: Record<string, string | boolean> = {};
  for (const name of Object.keys(importer.flags)) {
    const value = values[name];
    if (value !== undefined) flags[name] = value;
  }
  return flags;
}

function printResult(r: ImportResult, io: CliIo, paint: ReturnType<typeof painter>, showFormat: boolean): boolean {
  const ok = r.status === 'verified';
  const s = r.summary;
  const format = showFormat ? `${r.format.padEnd(15)} ` : '';
  if (r.already === true) {
    // Nothing written: the bundle there is this very one (same bundle id), verified again.
    io.stdout.write(`${paint(ok ? 'green' : 'red', (ok ? 'already' : r.status).padEnd(10))} ${format}bundle ${shortDigest(r.bundleId)}  already imported (same bundle id)${ok ? '' : ', but it does not verify now'}  ${terminalSafe(r.dir)}\n`);
    for (const f of r.findings.filter((f) => f.severity === 'error')) io.stdout.write(`  ${f.code}: ${terminalSafe(f.message)}\n`);
    return ok;
  }
  io.stdout.write(
    `${paint(ok ? 'green' : 'red', r.status.padEnd(10))} ${format}bundle ${shortDigest(r.bundleId)}  ${s.attempts} attempts (${s.tasks} tasks x ${s.epochs} epochs), log ${terminalSafe(s.status)}  ${terminalSafe(r.dir)}\n`,
  );
  for (const m of s.missing) io.stdout.write(`  missing  ${terminalSafe(m)}\n`);
  // What the input held beyond the kept files: the bundle cannot say it (a re-import from the kept originals must give the same bundle).
  for (const u of s.unkept ?? []) io.stderr.write(`  note     ${terminalSafe(u)}\n`);
  for (const f of r.findings.filter((f) => f.severity === 'error')) io.stdout.write(`  ${f.code}: ${terminalSafe(f.message)}\n`);
  return ok;
}

export const importCommand: Command = {
  summary: 'import other harnesses\' logs (Inspect AI, ...) as imported evidence bundles',
  usage: USAGE,
  options: { ...BASE_OPTIONS, ...formatFlags(), ...Object.fromEntries([...PREFIXED].map(([name, p]) => [name, { type: p.type }])) },
  async run(values, positionals, io) {
    const [format, ...inputs] = positionals;
    const names = [...IMPORTERS.map((i) => i.name), 'auto'];
    if (format === undefined) throw new UsageError(`import needs a format (${names.join(', ')}): ledgerboard import <format> <input>... -o <dir>`);
    const importer = format === 'auto' ? null : importerNamed(format);
    if (importer === undefined) throw new UsageError(`unknown import format ${JSON.stringify(format)}: one of ${names.join(', ')}`);
    if (inputs.length === 0) throw new UsageError(`import ${format} needs at least one input`);
    if (typeof values.out !== 'string' || values.out === '') throw new UsageError(`import ${format} needs -o <dir>, the parent directory of the bundles`);
    const ownGiven = [...PREFIXED.keys()].filter((name) => values[name] !== undefined);
    if (importer !== null) {
      const foreign = Object.keys(formatFlags()).filter((f) => values[f] !== undefined && importer.flags[f] === undefined);
      if (foreign.length > 0) throw new UsageError(`import ${format} does not take ${foreign.map((f) => `--${f}`).join(', ')}`);
      const autoOnly = [...ownGiven.map((n) => `--${n}`), ...(values.options !== undefined ? ['--options'] : [])];
      if (autoOnly.length > 0) {
        throw new UsageError(`${autoOnly.join(', ')}: for import auto only; import ${format} takes its flags unprefixed (${Object.keys(importer.flags).map((f) => `--${f}`).join(', ') || 'none'})`);
      }
    }
    let file: { name: string; options: FormatOptions } | null = null;
    if (importer === null && typeof values.options === 'string') {
      try {
        file = { name: values.options, options: await readOptionsFile(values.options, IMPORTERS) };
      } catch (error) {
        if (error instanceof OptionsFileError) throw new UsageError(terminalSafe(`--options ${values.options}: ${error.message}`));
        throw error;
      }
    }
    let merged;
    try {
      merged = importer === null ? autoFlags(IMPORTERS, values, PREFIXED, file) : null;
    } catch (error) {
      if (error instanceof ImportError) throw new UsageError(terminalSafe(error.message));
      throw error;
    }
    const flagsOf = (i: Importer): Record<string, string | boolean> => merged?.flags.get(i.name) ?? flagsFor(i, values);
    for (const i of importer === null ? IMPORTERS : [importer]) {
      try {
        i.checkFlags?.(flagsOf(i));
      } catch (error) {
        if (!(error instanceof ImportError)) throw error;
        if (importer !== null) throw new UsageError(terminalSafe(error.message));
        // Which of the format's own values it was about, when one was given (the importers' messages name the flag: "--metric ...").
        const flag = /--([a-z0-9-]+)/.exec(error.message)?.[1];
        const given = flag === undefined ? undefined : merged?.own.get(i.name)?.get(flag);
        throw new UsageError(terminalSafe(`${i.name}${given === undefined ? '' : ` (${given})`}: ${error.message}`));
      }
    }
    let limits;
    try {
      limits = importLimitsOf((await loadConfigFile(typeof values.config === 'string' ? values.config : undefined)).config);
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    const out = values.out;
    const license = typeof values.license === 'string' ? values.license : '';
    const request = (i: Importer): ImportRequest => ({ license, flags: flagsOf(i), limits });
    const paint = painter(useColour(io.stdout));
    let failed = 0;
    let imported = 0;
    let already = 0;
    let unrecognised = 0;
    const refuse = (path: string, reason: string) => {
      failed++;
      io.stdout.write(`${paint('red', 'refused'.padEnd(10))} ${terminalSafe(path)}: ${terminalSafe(reason)}\n`);
    };
    const attempt = async (run: () => Promise<ImportResult>, path: string) => {
      try {
        const result = await run();
        if (!printResult(result, io, paint, importer === null)) failed++;
        else if (result.already === true) already++;
        else imported++;
      } catch (error) {
        if (!(error instanceof ImportError)) throw error;
        refuse(path, error.message);
      }
    };
    if (importer !== null) {
      for (const [i, path] of inputs.entries()) {
        io.stderr.write(`importing ${i + 1}/${inputs.length}: ${terminalSafe(path)}\n`);
        await attempt(() => importPath(importer, path, out, request(importer)), path);
      }
    } else {
      io.stderr.write(`recognising ${inputs.length} path${inputs.length === 1 ? '' : 's'} by content\n`);
      const resolved = await resolveAuto(inputs, IMPORTERS, limits);
      const used = new Set(resolved.flatMap((r) => ('importer' in r ? [r.importer.name] : [])));
      for (const warning of unusedFlagWarnings(IMPORTERS, used, merged!.own, values)) io.stderr.write(`ledgerboard: warning: ${terminalSafe(warning)}\n`);
      for (const [i, r] of resolved.entries()) {
        if ('refused' in r) {
          if (r.found && r.refused.startsWith('not a format')) {
            unrecognised++;
            io.stdout.write(`${paint('yellow', 'skipped'.padEnd(10))} ${terminalSafe(r.path)}: ${terminalSafe(r.refused)}\n`);
          } else refuse(r.path, r.refused);
          continue;
        }
        io.stderr.write(`importing ${i + 1}/${resolved.length}: ${terminalSafe(r.path)} as ${r.importer.label} (${r.importer.name})\n`);
        await attempt(() => importInput(r.importer, r.input, out, request(r.importer)), r.path);
      }
    }
    const total = imported + already + failed;
    io.stdout.write(
      `\n${total} input${total === 1 ? '' : 's'}: ${imported} imported and verified, ${already > 0 ? `${already} already imported (same bundle id), ` : ''}${failed} failed${unrecognised > 0 ? `; ${unrecognised} file${unrecognised === 1 ? '' : 's'} in the directories not recognised (skipped)` : ''}\n`,
    );
    return failed === 0 && total > 0 ? EXIT.ok : EXIT.notVerified;
  },
};
