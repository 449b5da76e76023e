/**
 * The one error an import raises for a log it cannot turn into a bundle: the
 * log is unreadable (not a zip, corrupt, too large, not an Inspect log) or it
 * holds nothing a bundle could carry (no samples). The message says why, in
 * one sentence a user can act on; nothing is written when it is thrown.
 */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}
