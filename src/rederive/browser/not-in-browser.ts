import { EXIT_STATUS, LedgerboardError } from '../../errors.ts';

/**
 * The error a browser shim throws for work only Node can do (re-importing an
 * Inspect .eval archive needs yauzl's streams and zlib). The re-derivation
 * core recognises it (`isNotInBrowser`) and lists the check as "not
 * re-derived here: run verify.mjs", never as a MISMATCH or a failure.
 * Pure: no browser or Node API, so both the worker and the core import it.
 */
export class NotInBrowserError extends LedgerboardError {
  static override readonly code: string = 'NOT_IN_BROWSER';
  static override readonly exitStatus = EXIT_STATUS.internal;
  override readonly name = 'NotInBrowserError';
  /** What could not run, e.g. "re-importing an Inspect .eval archive". */
  readonly what: string;

  constructor(what: string) {
    super(`${what} cannot run in the browser: run verify.mjs (node verify.mjs <site>) to re-derive it`);
    this.what = what;
  }
}

/** Whether an error is a NotInBrowserError (by name too, so a copy from another bundle is recognised). */
export function isNotInBrowser(error: unknown): error is NotInBrowserError {
  return error instanceof NotInBrowserError || (error instanceof Error && error.name === 'NotInBrowserError');
}
