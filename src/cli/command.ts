/**
 * What every command shares with the CLI's entry point (main.ts): the exit
 * codes, the usage error, the I/O and the shape of a command. Commands import
 * this, never main.ts, so the entry point can lazy-load them without a cycle.
 */
import type { ParseArgsConfig } from 'node:util';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** A usage error: printed with a hint, exit 2. `command` names the command whose --help the hint points at. */
export class UsageError extends LedgerboardError {
  static override readonly code: string = 'USAGE';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/** Exit codes of the CLI (src/errors.ts). */
export const EXIT = EXIT_STATUS;

/** I/O the commands use, so tests can capture it. */
export interface CliIo {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** A command: its help text, its options and how to run it. */
export interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(values: Record<string, string | boolean | undefined>, positionals: string[], io: CliIo): Promise<number>;
}
