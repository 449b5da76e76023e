/**
 * The limits on what one bundle may make ledgerboard read, and their
 * defaults: pure data, so the config's schema (config/schema.ts, bundled for
 * a browser) takes them without the reader. What a limit means and how a
 * bundle over one is reported: src/evidence/limits.ts.
 */

/** Every limit, with its default. */
export const LIMIT_DEFAULTS = {
  /** Entries (files, directories, links) in one bundle. */
  files: 1_000_000,
  /** Bytes of any one file (hashed in 1 MiB reads, never held): 64 GiB. */
  file_bytes: 64 * 1024 ** 3,
  /** Bytes of one structured file, which is read into memory and parsed (manifest, plan, ledger, attempts, grades, grant): 512 MiB. */
  structured_file_bytes: 512 * 1024 ** 2,
  /** Bytes of all the structured files of one bundle together (all are held in memory while it is verified): 2 GiB. */
  structured_total_bytes: 2 * 1024 ** 3,
  /** Lines of one JSONL file (ledger.jsonl, attempts.jsonl). */
  jsonl_lines: 10_000_000,
  /** Bytes of one JSONL line: 1 MiB. */
  line_bytes: 1024 ** 2,
  /** JSON nesting depth (the top-level value is depth 1); FORMAT.md makes anything deeper than 64 BAD_JSON, so at most 64. */
  depth: 64,
  /** Bytes of NOTES.md (rendered as Markdown on the site): 1 MiB. */
  notes_bytes: 1024 ** 2,
  /**
   * UTF-8 bytes of any one string (a value or a member name, after
   * unescaping) in a structured file: 64 KiB. Strings end up on pages, so a
   * 50 MB plan title would make a 400 MB page; checked by the strict parser
   * as it reads each string.
   */
  string_bytes: 64 * 1024,
} as const;

/** The limits in force. */
export type Limits = { -readonly [K in keyof typeof LIMIT_DEFAULTS]: number };

/** The name of a limit. */
export type LimitName = keyof Limits;
