import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** A config that cannot be used: the message names the file and every problem (a usage error, exit 2). Kept apart from config.ts so the CLI's entry point can map it without loading the config's schema. */
export class ConfigError extends LedgerboardError {
  static override readonly code: string = 'CONFIG_INVALID';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
}
