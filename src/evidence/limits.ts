/**
 * Limits on what one bundle may make ledgerboard read (issue "Trust under
 * attack", point 3). A bundle over a limit is not judged: it gets a
 * LIMIT_EXCEEDED finding naming the limit and its value (no_verdict), and the
 * checks that need the input over the limit are skipped, never guessed.
 *
 * The defaults are far above any real evaluation (the 10^6-attempt benchmark
 * uses at most a tenth of each) and below what would exhaust the process: the
 * structured files are held in memory and parsed, everything else is only
 * hashed in 1 MiB reads. ledgerboard.config.json may change any of them
 * (`limits`); docs/format-decisions.md lists them.
 */

import { LIMIT_DEFAULTS, type LimitName, type Limits } from '../schema/limits.ts';

export { LIMIT_DEFAULTS, type LimitName, type Limits };

/** One limit a bundle went over: which, its value, and what the bundle has. */
export interface LimitHit {
  path: string;
  limit: LimitName;
  value: number;
  /** What the bundle has: a size, a count, a line number's length; `more` when counting stopped at the limit. */
  actual: number | 'more';
  line?: number;
  /** For `string_bytes`: where the string is in the file (`title`, `results[3].attempt_id`, `(a member name in) tokens`). */
  field?: string;
}

/** The message of a LIMIT_EXCEEDED finding. */
export function limitMessage(hit: LimitHit): string {
  const has = hit.actual === 'more' ? `more than ${hit.value}` : String(hit.actual);
  const what: Record<LimitName, string> = {
    files: 'entries in the bundle',
    file_bytes: 'bytes in one file',
    structured_file_bytes: 'bytes in one structured (parsed) file',
    structured_total_bytes: 'bytes of structured (parsed) files in the bundle',
    jsonl_lines: 'lines in one JSONL file',
    line_bytes: 'bytes in one JSONL line',
    depth: 'levels of JSON nesting',
    notes_bytes: 'bytes of NOTES.md',
    string_bytes: 'bytes in one JSON string',
  };
  const where = hit.field === undefined ? '' : ` (${hit.field})`;
  return `limits.${hit.limit} is ${hit.value} ${what[hit.limit]}; this has ${has}${where}: not read, and the checks that need it are skipped`;
}

/**
 * The line limits of one JSONL file's bytes: the first line longer than
 * `line_bytes`, or a line count over `jsonl_lines`. One native scan for `\n`.
 */
export function jsonlLimitHit(path: string, bytes: Uint8Array, limits: Limits): LimitHit | null {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let lines = 0;
  for (let start = 0; start < buffer.length; ) {
    let end = buffer.indexOf(0x0a, start);
    if (end === -1) end = buffer.length;
    lines++;
    if (end - start > limits.line_bytes) return { path, limit: 'line_bytes', value: limits.line_bytes, actual: end - start, line: lines };
    if (lines > limits.jsonl_lines) return { path, limit: 'jsonl_lines', value: limits.jsonl_lines, actual: 'more' };
    start = end + 1;
  }
  return null;
}

/**
 * Whether some JSON bytes nest deeper than `max`, counted as the strict
 * parser counts (FORMAT.md: the top-level value is depth 1, a value inside a
 * container at depth d is at depth d + 1, scalars included), outside strings.
 * A member name counts like its value, which is never shallower. With
 * `perLine` each line is its own document (JSONL). Returns where it first
 * goes over, or null. Only run when a config lowers `depth` below FORMAT.md's
 * 64, which the strict parser enforces itself.
 */
export function nestingOver(bytes: Uint8Array, max: number, perLine: boolean): { depth: number; line: number } | null {
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return { depth, line };
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x0a) {
      line++;
      if (perLine) depth = 0;
    } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x2c && c !== 0x3a) {
      // The start (or the inside) of a scalar, or a string: a value at depth + 1.
      if (c === 0x22) inString = true;
      if (depth + 1 > max) return { depth: depth + 1, line };
    }
  }
  return null;
}
