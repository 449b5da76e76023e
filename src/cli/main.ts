/**
 * The `ledgerboard` command line: parse arguments with node:util parseArgs,
 * lazy-import the command, and map every error to an exit code in one place.
 * Exit codes: 0 success (all verified), 1 some bundle not verified,
 * 2 usage error or a build that cannot run as asked (its output is held by
 * another build, cannot be written or is on a full disk, or the evidence
 * changed during the build: one line says what to do), 3 unexpected
 * internal error. An error reaching the entry point becomes its exit code
 * in one place, `exitFor`, from its class's `exitStatus` (src/errors.ts;
 * the table is in docs/cli.md).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT, UsageError, type CliIo, type Command } from './command.ts';
import { EXIT_STATUS, LedgerboardError, type ExitStatus } from '../errors.ts';
import { VERSION } from '../version.ts';
import { didYouMean } from '../author/suggest.ts';

export { EXIT, UsageError, type CliIo, type Command } from './command.ts';

const COMMANDS: Record<string, () => Promise<Command>> = {
  verify: async () => (await import('./verify-command.ts')).verifyCommand,
  report: async () => (await import('./report-command.ts')).reportCommand,
  build: async () => (await import('./build-command.ts')).buildCommand,
  retain: async () => (await import('./retain-command.ts')).retainCommand,
  freeze: async () => (await import('./freeze-command.ts')).freezeCommand,
  seal: async () => (await import('./seal-command.ts')).sealCommand,
  import: async () => (await import('./import-command.ts')).importCommand,
  preview: async () => (await import('./preview-command.ts')).previewCommand,
  init: async () => (await import('./init-command.ts')).initCommand,
  keygen: async () => (await import('./keygen-command.ts')).keygenCommand,
  sign: async () => (await import('./sign-command.ts')).signCommand,
  'verify-site': async () => (await import('./verify-site-command.ts')).verifySiteCommand,
  cache: async () => (await import('./cache-command.ts')).cacheCommand,
};

/** Every command's name, as `ledgerboard <name>` takes it. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

const MAIN_HELP = `ledgerboard ${VERSION}: verify evaluation evidence bundles and publish them as a re-verifiable leaderboard

Usage: ledgerboard <command> [options]

Commands:
  init [DIR]                           scaffold a board repository (config, evidence/, package.json, Pages workflow)
  verify [--json] [--all] <path>...   re-derive every id and digest of the bundles under each path
  report [--json] [<bundles-dir>...]  analyse verified bundles: cohorts, score vectors, verdicts
  build [--out DIR] [--strict]         verify, analyse and render the static site (default dist/)
  retain                               keep the current report in the append-only history
  keygen -o DIR                        write an Ed25519 key pair for signing reports
  sign --key FILE                      sign the current report (DSSE, in-toto; kept in the config's attestations_dir)
  verify-site <url|dir> [--key K]      re-derive a published site's ids; with --key, check its signature by a pinned key
  freeze <plan.yaml> --ledger FILE [--aliases FILE] (-o DIR | --dry-run)
                                       freeze a YAML plan into DIR/plan.json + ledger.jsonl (create-only)
  seal [--json] <bundle-dir>           write manifest.json for a filled bundle (create-only), then verify it
  import <format> <input>... -o DIR   import other harnesses' logs as imported evidence bundles
                                       (formats: ledgerboard import --help; auto recognises them)
  preview [--out DIR] [--port N]       serve the built site locally at its base path
  cache fill --shard K/N --cache DIR  verify one share of the evidence into a cache directory (one CI job of N)
  cache merge DIR... --into DIR        merge shards' cache directories (entries sealed under the same key only)

Options:
  -h, --help      show help (also: ledgerboard <command> --help)
  -v, --version   print the version
  --debug         print the stack of an unexpected error

Exit codes: 0 all verified, 1 some bundle not verified, 2 usage error (or a build that
cannot run as asked: output locked, unwritable or full, evidence changed), 3 unexpected error.
The evidence format (cited as "FORMAT.md N", its section N): docs/format.md; every finding
code: docs/finding-codes.md. Every docs/ file a help cites is in the package:
node_modules/ledgerboard/docs/ (docs/format.md is node_modules/ledgerboard/docs/format.md).
`;

/** Runs the CLI with the given arguments and returns the exit code. */
export async function main(argv: readonly string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const debug = argv.includes('--debug');
  try {
    const [name, ...rest] = argv;
    if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
      io.stdout.write(MAIN_HELP);
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    if (name === '-v' || name === '--version') {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load) throw new UsageError(unknownCommand(name));
    const command = await load();
    const options = { ...command.options, help: { type: 'boolean', short: 'h' }, debug: { type: 'boolean' } } as const;
    let parsed;
    try {
      parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError(argumentProblem(error as NodeJS.ErrnoException, rest, options), name);
    }
    if (parsed.values.help) {
      io.stdout.write(`${command.usage}\n`);
      return EXIT.ok;
    }
    return await command.run(parsed.values as Record<string, string | boolean | undefined>, parsed.positionals, io);
  } catch (error) {
    const { status, text } = exitFor(error, argv, debug);
    io.stderr.write(text);
    return status;
  }
}

/**
 * The one mapping from an error to the CLI's exit status and what it prints
 * on stderr. A LedgerboardError whose class states a status other than
 * `internal` is one line, `ledgerboard: <message>`, followed by the usage
 * hint when its class `showsUsage` (naming the command's --help: the
 * UsageError's own command, else the command on the line); anything else,
 * a plain Error or a LedgerboardError meant never to reach here, is an
 * unexpected error (exit 3), its stack printed with --debug. With --debug a
 * LedgerboardError's `code` is printed too.
 */
export function exitFor(error: unknown, argv: readonly string[], debug = false): { status: ExitStatus; text: string } {
  if (error instanceof LedgerboardError && error.exitStatus !== EXIT_STATUS.internal) {
    const code = debug ? `(code ${error.code}, exit ${error.exitStatus})\n` : '';
    if (!error.showsUsage) return { status: error.exitStatus, text: `ledgerboard: ${error.message}\n${code}` };
    const command = error instanceof UsageError && error.command !== undefined ? error.command : argv.find((a) => Object.hasOwn(COMMANDS, a));
    return { status: error.exitStatus, text: `ledgerboard: ${error.message}\nRun 'ledgerboard ${command === undefined ? '' : `${command} `}--help' for usage.\n${code}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = debug && error instanceof Error && error.stack ? `${error.stack}\n` : '(run again with --debug for the stack trace)\n';
  const code = debug && error instanceof LedgerboardError ? `(code ${error.code})\n` : '';
  return { status: EXIT_STATUS.internal, text: `ledgerboard: unexpected error: ${message}\n${code}${stack}` };
}

/** "unknown command", with the closest command when one is a plausible typo. */
function unknownCommand(name: string): string {
  const suggestion = didYouMean(name, Object.keys(COMMANDS));
  return `unknown command ${JSON.stringify(name)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; the commands are ${Object.keys(COMMANDS).join(', ')}`;
}

/**
 * What was wrong with the arguments, in our words rather than parseArgs'
 * (its codes are stable; its messages are written for programmers): an
 * unknown option with the closest known one, an option without its value,
 * a value given to a flag.
 */
function argumentProblem(error: NodeJS.ErrnoException, args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): string {
  const names = Object.keys(options).map((o) => `--${o}`);
  const given = /'(-[^'\s]*)/.exec(error.message)?.[1] ?? args.find((a) => a.startsWith('-') && !names.includes(a.split('=')[0]!)) ?? '';
  const flag = given.split('=')[0]!;
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const suggestion = didYouMean(flag.replace(/^-+/, ''), Object.keys(options));
      return `unknown option ${JSON.stringify(flag)}${suggestion ? ` (did you mean "--${suggestion}"?)` : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const name = /--([A-Za-z0-9-]+)/.exec(error.message)?.[1] ?? flag.replace(/^-+/, '');
      const option = options[name];
      return option?.type === 'string' ? `option --${name} needs a value (--${name} VALUE)` : `option --${name} takes no value`;
    }
    default:
      return error.message;
  }
}
