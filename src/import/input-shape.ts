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
  /**
   * Files of a directory whose relative path is not plain, read under their
   * plain path (plainPathOf): `from` as on disk, `to` as kept. The import
   * command says so; never part of a bundle (the kept originals carry the
   * plain names, so a re-import from them has none). Absent: none.
   */
  readonly renamed?: readonly { from: string; to: string }[];
}

/** The characters a relative path of an input file may hold: what every shell and file system takes as is. */
export const PLAIN_PATH = /^(?:[A-Za-z0-9_][A-Za-z0-9._@+=,-]*)(?:\/[A-Za-z0-9_][A-Za-z0-9._@+=,-]*)*$/;

/** True when a relative path is plain (PLAIN_PATH, at most 255 bytes, no '.' or '..' component). */
export function isPlainPath(path: string): boolean {
  return path.length <= 255 && PLAIN_PATH.test(path) && !path.split('/').some((c) => c === '.' || c === '..');
}

const PLAIN_CHAR = /^[A-Za-z0-9._@+=,-]$/u;
const PLAIN_FIRST = /^[A-Za-z0-9_]$/u;

/** One name (no `/`) with every character a plain name cannot hold replaced by `_`. */
function plainSegment(segment: string): string {
  let out = '';
  for (const ch of segment) out += (out === '' ? PLAIN_FIRST : PLAIN_CHAR).test(ch) ? ch : '_';
  return out;
}

/**
 * The plain path a relative path is read and kept under (itself when it is
 * plain): per `/`-separated name, every character a plain name cannot hold
 * (one code point at a time) becomes `_`, and so does a first character that
 * may not start one (`.`, `-`, `@`, `+`, `=`, `,`). Every ollama model's
 * Every Eval Ever sidecar needs it (`..._qwen2.5:0.5b_<id>.jsonl`). A pure
 * function of the path, so an importer that resolves a reference the source
 * wrote (EEE's aggregate names its sidecar) finds the same file in the input
 * and in a bundle's kept originals. Null when even that is not a plain path
 * (an empty, `.` or `..` name, or longer than a plain path may be).
 */
export function plainPathOf(path: string): string | null {
  if (isPlainPath(path)) return path;
  const plain = path.split('/').map(plainSegment).join('/');
  return isPlainPath(plain) ? plain : null;
}
