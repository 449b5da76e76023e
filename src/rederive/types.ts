/**
 * The shapes of a site's re-derivation (FORMAT.md 8): how a verifier reads a
 * published site (URL path -> bytes), what it reports as it goes, and each
 * line of its result. Shared by verify.mjs (the Node bundle of this folder),
 * `ledgerboard verify-site` and the in-browser verifier's worker.
 */

/**
 * Reads one URL path of the site (starting with "/"): its bytes, or null when
 * the site has no such file (404/410). `listedBytes` is the size the site
 * lists for the file (a blob: files.json, a manifest): no more is read, and a
 * longer file is a BoundError with `listed` set (bounded-fetch.ts); without
 * it the reader's bound on a document applies. Every read is bounded in time
 * and bytes; a SiteReadError names the URL that could not be read.
 */
export type SiteGet = (urlPath: string, listedBytes?: number) => Promise<Uint8Array | null>;

/** Progress while re-deriving: the phase, how far it is, and the bytes fetched so far. */
export interface RederiveProgress {
  phase: 'bundles' | 'history' | 'analysis' | 'files' | 'pages';
  done: number;
  total: number;
  /** Evidence bytes fetched and hashed so far. */
  bytes: number;
}

/** One result line, as every verifier prints it: `ok`, `MISMATCH` (the first differing member named) or `info`. */
export interface RederiveLine {
  status: 'ok' | 'MISMATCH' | 'info';
  /** What was checked: "report", "bundle", "csv", "cohort json", "changes", "feed", "page", "import" ... */
  check: string;
  /** What it was checked on: a URL path, an id. */
  subject: string;
  /** What matched, or for a MISMATCH the first member that differs with both values. */
  detail: string;
}

/** What to re-derive. */
export interface RederiveOptions {
  /**
   * Only the counted evidence of these ledgers (by ledger digest) and what the
   * report says of them (the in-browser verifier above its size limit): every
   * other bundle, board and cohort is listed as not re-derived.
   */
  ledgers?: ReadonlySet<string>;
  onProgress?: (progress: RederiveProgress) => void;
  /**
   * Where a reader finds a file of the site, from its URL path: an absolute URL (a site on the web) or a
   * file path (a copy on disk), for the `openssl ts -verify` command printed for each anchored bundle.
   * Default: the URL path.
   */
  tokenLocation?: (urlPath: string) => string;
}

/** The outcome of a re-derivation. */
export interface RederiveResult {
  lines: RederiveLine[];
  mismatches: number;
  /** Boards (ids) whose figures were not re-derived (only with `ledgers`). */
  notRederived: string[];
  /** The ledgerboard version that re-derived it, and the one the report names. */
  version: { rederived: string; report: string | null };
}
