/**
 * What an import is given, as every importer sees it (read from disk by
 * input.ts, or rebuilt from a bundle's kept originals by rederive.ts): no
 * disk access here, so the importers run wherever the bytes are.
 */

/** One import's input, read. */
export interface ImportInput {
  /** The input's own name (its last path component), used only for the bundle directory's slug; never part of a bundle. */
  readonly name: string;
  /** A file input, or a directory input. */
  readonly kind: 'file' | 'directory';
  /**
   * The input's files by relative path ('/'-separated, byte order): a file
   * input has exactly one entry, under its own name; a directory input one
   * per regular file under it.
   */
  readonly files: ReadonlyMap<string, Uint8Array>;
  /** Relative paths of a directory's hidden entries (a name starting with '.'), never read: the import command says so; never part of a bundle (a re-import from the kept originals has none). */
  readonly skipped: readonly string[];
}

/** The characters a relative path of an input file may hold: what every shell and file system takes as is. */
export const PLAIN_PATH = /^(?:[A-Za-z0-9_][A-Za-z0-9._@+=,-]*)(?:\/[A-Za-z0-9_][A-Za-z0-9._@+=,-]*)*$/;

/** True when a relative path is plain (PLAIN_PATH, at most 255 bytes, no '.' or '..' component). */
export function isPlainPath(path: string): boolean {
  return path.length <= 255 && PLAIN_PATH.test(path) && !path.split('/').some((c) => c === '.' || c === '..');
}
