/**
 * The import limits an imported bundle's kept originals (FORMAT.md 9, its
 * `source/` files) are held to wherever they are read again: re-deriving the
 * import (rederive.ts, IMPORT_NOT_REPRODUCED past a limit) and the site's
 * pages that read them (the source's own figure, transcripts:
 * src/site/model/originals.ts). Judged from the sizes already known (the manifest,
 * the reader's listing) before any byte is read, so one rule decides both.
 */
import type { ImportLimits } from './limits.ts';

/** The first limit the originals pass: which (as `import_limits` names it), its value and what the originals have. */
export interface OriginalsOverLimit {
  /** The original past `file_bytes`, or `manifest.json` for a limit on all of them together. */
  file: string;
  /** The member of the config's `import_limits`. */
  member: 'file_bytes' | 'files' | 'input_bytes';
  /** The same limit as ImportLimits names it. */
  field: 'maxFileBytes' | 'maxFiles' | 'maxInputBytes';
  value: number;
  /** The file's size, the number of originals, or their total size where the total first passed the limit. */
  actual: number;
}

/**
 * The first import limit the originals (path and size, in the order read)
 * break, or null: more than `files` originals for a directory importer, an
 * original past `file_bytes`, or (directory importers) a running total past
 * `input_bytes`.
 */
export function originalsOverLimit(originals: readonly { path: string; bytes: number }[], input: 'file' | 'directory', limits: ImportLimits): OriginalsOverLimit | null {
  if (input === 'directory' && originals.length > limits.maxFiles) {
    return { file: 'manifest.json', member: 'files', field: 'maxFiles', value: limits.maxFiles, actual: originals.length };
  }
  let total = 0;
  for (const { path, bytes } of originals) {
    if (bytes > limits.maxFileBytes) return { file: path, member: 'file_bytes', field: 'maxFileBytes', value: limits.maxFileBytes, actual: bytes };
    total += bytes;
    if (input === 'directory' && total > limits.maxInputBytes) return { file: 'manifest.json', member: 'input_bytes', field: 'maxInputBytes', value: limits.maxInputBytes, actual: total };
  }
  return null;
}
