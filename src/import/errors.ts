import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/**
 * The one error an import raises for a log it cannot turn into a bundle: the
 * log is unreadable (not a zip, corrupt, too large, not an Inspect log) or it
 * holds nothing a bundle could carry (no samples). The message says why, in
 * one sentence a user can act on; nothing is written when it is thrown.
 */
export class ImportError extends LedgerboardError {
  static override readonly code: string = 'IMPORT_REFUSED';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
  override readonly name = 'ImportError';
}

/**
 * An ImportError raised because the input is over one of the import limits
 * (ImportLimits, the config's `import_limits`), not because it cannot be
 * mapped: a re-derivation (rederive.ts) reports it as not reproduced under
 * its limits, never as a mismatch.
 */
export class ImportLimitError extends ImportError {
  static override readonly code: string = 'IMPORT_LIMIT';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
  constructor(
    message: string,
    /** The limit, as `import_limits` names it. */
    readonly limit: string,
  ) {
    super(message);
  }
}
