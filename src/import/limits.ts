/**
 * What one import may make ledgerboard read, for every format. An input over
 * a limit is refused with an ImportError naming the limit (nothing written);
 * the defaults keep a parse well inside V8's heap: parsed JSON takes about 13
 * times its bytes (a 100 MB Inspect sample measured 1.34 GB RSS), so 128 MiB
 * of input stays under 2 GB. A config's `import_limits` overrides any of
 * them (docs/importing.md, "Limits").
 */
export interface ImportLimits {
  /** Largest single input file read at all (an .eval archive, a results JSON, a JSONL of samples). */
  maxFileBytes: number;
  /** Most files an input directory may hold (walked recursively; symlinks are never followed). */
  maxFiles: number;
  /** Largest total size of the files of one input (a directory's files together). */
  maxInputBytes: number;
  /** Most records (samples, instances, trials, JSONL lines) one input may hold. */
  maxRecords: number;
  /** Longest string a mapped field keeps (model names, sample ids, scorer names); a longer one is refused, never cut. */
  maxStringBytes: number;
  /** Most entries an archive's central directory may list. */
  maxEntries: number;
  /** Largest uncompressed size of one archive entry that is read. */
  maxEntryBytes: number;
  /** Largest total uncompressed size of the archive entries read. */
  maxTotalBytes: number;
}

export const DEFAULT_IMPORT_LIMITS: Readonly<ImportLimits> = Object.freeze({
  maxFileBytes: 128 * 1024 * 1024,
  maxFiles: 10_000,
  maxInputBytes: 128 * 1024 * 1024,
  maxRecords: 1_000_000,
  maxStringBytes: 64 * 1024,
  maxEntries: 200_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 128 * 1024 * 1024,
});
