/**
 * The one error base (stage 1: imports nothing). Every error class of
 * ledgerboard extends LedgerboardError and states, as static members, a
 * stable `code` (one per class, never reused: a script may match on it) and
 * the `exitStatus` the CLI ends with when the error reaches its entry point
 * (`src/cli/main.ts`, `exitFor`: the one place errors become exit codes).
 * A class without its own `code` would inherit its parent's; the test
 * `test/errors.test.ts` refuses that. The table of codes and exit statuses
 * is in docs/cli.md.
 */

/** The CLI's exit statuses. */
export const EXIT_STATUS = {
  /** Success: every bundle verified. */
  ok: 0,
  /** Some bundle not verified, or a create-only write that found other bytes there. */
  notVerified: 1,
  /** A usage error, or a build or command that cannot run as asked in its surroundings. */
  usage: 2,
  /** An unexpected, internal error (a bug). */
  internal: 3,
} as const;

export type ExitStatus = (typeof EXIT_STATUS)[keyof typeof EXIT_STATUS];

/**
 * The base of every ledgerboard error. `code` and `exitStatus` are read from
 * the class (static members), so they are not own properties of an error
 * object: a thrown error compares, clones and prints as before.
 */
export abstract class LedgerboardError extends Error {
  /** The stable code of the class (SCREAMING_SNAKE_CASE). */
  static readonly code: string = 'LEDGERBOARD_ERROR';
  /** The exit status of the CLI when this error reaches its entry point. */
  static readonly exitStatus: ExitStatus = EXIT_STATUS.internal;
  /** Whether the CLI follows the message with "Run 'ledgerboard <command> --help' for usage." */
  static readonly showsUsage: boolean = false;

  /** The stable code of this error's class. */
  get code(): string {
    return (this.constructor as typeof LedgerboardError).code;
  }

  /** The exit status the CLI ends with for this error. */
  get exitStatus(): ExitStatus {
    return (this.constructor as typeof LedgerboardError).exitStatus;
  }

  /** Whether the CLI adds its usage hint after the message. */
  get showsUsage(): boolean {
    return (this.constructor as typeof LedgerboardError).showsUsage;
  }
}

/** Whether a value is a LedgerboardError (of this copy of the module). */
export function isLedgerboardError(error: unknown): error is LedgerboardError {
  return error instanceof LedgerboardError;
}
