/**
 * verify.mjs, the command line (docs/site.md, "Re-deriving"): every id and
 * digest of a published site (site-checks.mjs), the signature of a pinned
 * key (FORMAT.md 10), and the report re-derived from the evidence with the
 * format's rules and the analysis (rederive.ts, FORMAT.md 8). Bundled into
 * one file that imports nothing but Node's standard library
 * (scripts/bundle-verifier.mjs); `ledgerboard verify-site` runs the same
 * function from the installed package.
 *
 *   node verify.mjs https://example.org/board/     fetch the site over HTTP(S)
 *   node verify.mjs ./dist                         read a copy on disk (URL path /x/y is DIR/x/y)
 *   node verify.mjs --json ./dist                  the same results as JSON
 *   node verify.mjs --timeout 20 https://...       fail a request after 20 s without a byte
 *
 * Every read is bounded (bounded-fetch.ts): time (--timeout), bytes (a blob
 * its listed size, any other file --max-document-bytes), redirects (5,
 * http(s) only); a broken bound is one line naming the URL and the bound.
 *
 * Exit status: 0 every check matches, 1 any mismatch (a blob longer than its
 * listed size included), 2 usage error, or the site cannot be read (its
 * /report.json unreachable, an HTTP error, a bound of the verifier broken), 3 the report was made by another
 * ledgerboard version and this one re-derives another report (re-derive it
 * with that version).
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { directorySource, HEX64, keyIdOf, parseJsonBytes, publicKeyOf, urlSource, verifySignatures, verifySite } from './site-checks.mjs';
import { BoundError, DEFAULT_TIMEOUT_SECONDS, DOCUMENT_BYTES, fetchBounds, MAX_REDIRECTS, SiteReadError, TOTAL_PER_IDLE, type FetchBounds } from './bounded-fetch.ts';
import { rederiveSite } from './rederive.ts';
import type { RederiveLine, RederiveResult, SiteGet } from './types.ts';
import { VERSION } from '../version.ts';

/** One printed result: as site-checks.mjs gives them, and the re-derivation's lines. */
interface Result {
  status: string;
  check: string;
  subject: string;
  detail: string;
  count: number;
  failed: number;
  problems: string[];
}

/** Who runs it: the site's script, or the installed CLI (the words and the version line differ). */
export interface MainOptions {
  program: string;
  /** How a reader re-derives with the version a site names (shown when versions differ). */
  rederiveWith?: (version: string) => string;
  /** Where to show progress on long work (a terminal's stderr; nothing when absent). */
  progress?: (text: string) => void;
}

const HELP = (program: string) => `usage: ${program} [--json] [--key PEM-FILE|KEYID]... [--timeout SECONDS] [--max-document-bytes BYTES] <site-url-or-dir>

Re-derives a ledgerboard site from its published bytes:
- every id and digest: report_id, board and cohort ids, every bundle's
  content_digest (files.json), and for every counted bundle its bundle_id,
  plan_id and the size and SHA-256 of every file its manifest lists
  (served at /blobs/<sha256 hex>), and every "what changed" diff;
- the report itself (FORMAT.md 8): every published bundle verified again by
  the format's rules (imports re-run on their kept originals, FORMAT.md 9),
  the counted ones analysed with the config the report carries (and the
  score card it names, /scorecard.json, whose digest must match: FORMAT.md
  11), and the report so made compared with /report.json byte for byte,
  every claim included; then the cohort
  files, leaderboard.csv, changes.json, the feed, the cohorts' badges and
  the figures the pages print. A difference names the first member that
  differs;
- every time-stamp anchor (FORMAT.md 12): each pinned root the report's
  config names, at /timestamp-roots/<hex>.pem, must be the certificate of
  that digest; each anchors/*.tsr token is checked again (its imprint is
  SHA-256 of the plan id's 32 bytes, its signature), the report's
  anchor.gen_time must be the earliest genTime of the tokens that check,
  and each anchored bundle gets the openssl ts -verify command that checks
  its token with a root you trust.
With --key (a public key PEM file, or a 64-hex key id to look up in the
site's /keys.json), the report must carry a valid signature (FORMAT.md 10)
by each pinned key over /report.json and every counted manifest as fetched;
without it, who signed is shown but not trusted.
${BOUNDS_HELP}
Exit status: 0 all match, 1 any mismatch, 2 usage error or a site that
cannot be read (unreachable, an HTTP error, a bound broken), 3 made by
another ledgerboard version that re-derives another report.`;

/** The bounds on reading a site, as both commands' help says them. */
export const BOUNDS_HELP = `Every read of the site is bounded: a request fails after --timeout
SECONDS without a byte (default ${DEFAULT_TIMEOUT_SECONDS}) or ${TOTAL_PER_IDLE} times that in all; at most
${MAX_REDIRECTS} redirects, to http(s) only (never https to http); a blob is read
up to the size its listing gives and no further (longer: a mismatch);
any other file (report.json, files.json, a manifest, a page) up to
--max-document-bytes (default ${DOCUMENT_BYTES}, 256 MiB). A broken bound
stops the run with one line naming the URL and the bound (exit 2).`;

/** The value of --timeout (seconds, > 0, at most a day) or --max-document-bytes (a positive integer), or an error text. */
export function boundsOf(timeout: string | undefined, documentBytes: string | undefined): FetchBounds | string {
  const seconds = timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : /^\d+(?:\.\d+)?$/.test(timeout) ? Number(timeout) : Number.NaN;
  if (!(seconds > 0 && seconds <= 86_400)) return `--timeout ${timeout}: not a number of seconds above 0 (at most 86400)`;
  const bytes = documentBytes === undefined ? DOCUMENT_BYTES : /^[1-9]\d{0,15}$/.test(documentBytes) ? Number(documentBytes) : Number.NaN;
  if (!Number.isSafeInteger(bytes)) return `--max-document-bytes ${documentBytes}: not a positive whole number of bytes`;
  return fetchBounds(seconds, bytes);
}

const asResult = (l: RederiveLine): Result => ({ ...l, count: l.status === 'info' ? 0 : 1, failed: l.status === 'MISMATCH' ? 1 : 0, problems: [] });

/**
 * Where a reader finds a file of the site by its URL path (the anchors' `openssl ts -verify` lines): its absolute
 * URL for a site on the web, its absolute path for a copy on disk. Only digest-named blobs are asked for.
 */
export function siteLocation(site: string): (urlPath: string) => string {
  if (/^https?:\/\//i.test(site)) {
    const root = new URL(site).href.replace(/[?#].*$/, '').replace(/\/?$/, '/');
    return (urlPath) => new URL(urlPath.replace(/^\//, ''), root).href;
  }
  return (urlPath) => resolve(site, ...urlPath.replace(/^\//, '').split('/'));
}

/** Runs the command line; returns the exit status. */
export async function main(args: readonly string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error, options: MainOptions = { program: 'node verify.mjs' }): Promise<number> {
  const help = HELP(options.program);
  if (args.includes('--help') || args.includes('-h')) return (out(help), 0);
  const asJson = args.includes('--json');
  const pinned: { keyid: string; key?: unknown }[] = [];
  const targets: string[] = [];
  const given: { timeout?: string; documentBytes?: string } = {};
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json') continue;
    if (args[i] === '--timeout' || args[i] === '--max-document-bytes') {
      const value = args[++i];
      if (value === undefined) return (err(help), 2);
      given[args[i - 1] === '--timeout' ? 'timeout' : 'documentBytes'] = value;
      continue;
    }
    if (args[i] !== '--key') {
      targets.push(args[i]!);
      continue;
    }
    const value = args[++i];
    if (value === undefined) return (err(help), 2);
    if (HEX64.test(value)) pinned.push({ keyid: value });
    else {
      let pem: string;
      try {
        pem = await readFile(value, 'utf8');
      } catch (error) {
        // An older keygen named a pair by the first 16 hex digits of its id: 64 bits is too little to pin a key by.
        if (/^[0-9a-f]{16}$/.test(value)) return (err(`${options.program}: --key ${value}: 16 hex digits are only the start of a key id (an older keygen's file name), too few to pin a key: give the whole 64-hex key id (keygen printed it) or the public key file ledgerboard-${value}.pub`), 2);
        return (err(`${options.program}: --key ${value}: neither a 64-hex key id nor a readable PEM file (${(error as Error).message})`), 2);
      }
      const key = publicKeyOf(pem);
      if (key instanceof Error) return (err(`${options.program}: --key ${value}: ${key.message}`), 2);
      pinned.push({ keyid: keyIdOf(key), key });
    }
  }
  if (targets.length !== 1 || targets[0]!.startsWith('-')) return (err(help), 2);
  // A file that could not be read (bounded-fetch.ts: a bound broken, an HTTP error): one line naming the URL and why, exit 2; nothing else is printed.
  const stopped = (error: Error): number => (options.progress?.(''), err(`${options.program}: ${error.message}; the site cannot be verified${error instanceof BoundError ? ' within the bounds' : ''}`), 2);
  const bounds = boundsOf(given.timeout, given.documentBytes);
  if (typeof bounds === 'string') return (err(`${options.program}: ${bounds}`), 2);
  const site = targets[0]!;
  let get: SiteGet & { broken?: () => Error | null };
  let reportBytes: Uint8Array | null;
  try {
    if (/^https?:\/\//i.test(site)) get = urlSource(site, bounds);
    else if ((await stat(site).catch(() => null))?.isDirectory()) get = directorySource(site, bounds);
    else return (err(`${options.program}: ${site} is neither an http(s) URL nor a directory`), 2);
    reportBytes = await get('/report.json');
    if (reportBytes === null) return (err(`${options.program}: ${site} has no /report.json`), 2);
  } catch (error) {
    // A SiteReadError's message names the URL and the bound it broke.
    const e = error as Error & { cause?: Error };
    return (err(`${options.program}: cannot read /report.json of ${site}: ${e.cause?.message ?? e.message}`), 2);
  }
  // A read that failed where a check cannot take it as a mismatch (a bound broken, an HTTP error on a file every check needs).
  const failed = (error: unknown): number => {
    if (get.broken?.()) return stopped(get.broken()!);
    if (error instanceof SiteReadError) return stopped(error);
    throw error;
  };
  let results: Result[];
  try {
    results = await verifySite(get, reportBytes);
  } catch (error) {
    return failed(error);
  }
  if (get.broken?.()) return stopped(get.broken()!);
  let report: unknown = null;
  try {
    report = parseJsonBytes(reportBytes);
  } catch {
    // verifySite already reported it.
  }
  const isReport = report !== null && typeof report === 'object' && !Array.isArray(report);
  if (isReport) {
    try {
      results.push(...(await verifySignatures(get, reportBytes, report, pinned)));
    } catch (error) {
      return failed(error);
    }
  } else if (pinned.length > 0) results.push({ status: 'MISMATCH', check: 'signature', subject: '/report.json', detail: 'no report to check a signature of', count: 1, failed: 1, problems: [] });
  if (get.broken?.()) return stopped(get.broken()!);

  // The report re-derived from the evidence (FORMAT.md 8).
  let shown = 0;
  let rederived: RederiveResult;
  try {
    rederived = await rederiveSite(get, {
      tokenLocation: siteLocation(site),
      onProgress: (p) => {
        const now = Date.now();
        if (options.progress === undefined || (now - shown < 250 && p.done < p.total)) return;
        shown = now;
        options.progress(`re-deriving: ${p.phase} ${p.done}/${p.total}, ${(p.bytes / 1e6).toFixed(1)} MB of evidence read`);
      },
    });
  } catch (error) {
    // A file the re-derivation needs could not be read (an HTTP error, a bound broken): said in one line, exit 2.
    return failed(error);
  }
  if (get.broken?.()) return stopped(get.broken()!);
  options.progress?.('');
  const versionDiffers = rederived.version.report !== null && rederived.version.report !== VERSION;
  let status = 0;
  if (versionDiffers && rederived.mismatches > 0) {
    // Another version may analyse differently: not proof of a forgery, and not a match either.
    const first = rederived.lines.find((l) => l.status === 'MISMATCH');
    results.push(...rederived.lines.filter((l) => l.status !== 'MISMATCH').map(asResult));
    results.push({
      status: 'NOT REPRODUCED',
      check: 'version',
      subject: '/report.json',
      detail: `the report was made by ledgerboard ${rederived.version.report}; ledgerboard ${VERSION} re-derives another report (first difference: ${first?.check} ${first?.subject} ${first?.detail}); ${options.rederiveWith?.(rederived.version.report!) ?? `re-derive it with the verify.mjs of ledgerboard ${rederived.version.report}`}`,
      count: 1,
      failed: 0,
      problems: [],
    });
    status = 3;
  } else results.push(...rederived.lines.map(asResult));
  const checks = results.reduce((n, r) => n + r.count, 0);
  const mismatches = results.reduce((n, r) => n + r.failed, 0);
  if (mismatches > 0) status = 1;
  if (asJson) out(JSON.stringify({ site, rederived_by: `ledgerboard ${VERSION}`, report_by: rederived.version.report === null ? null : `ledgerboard ${rederived.version.report}`, checks, mismatches, results }, null, 2));
  else {
    for (const r of results) {
      out(`${r.status === 'MISMATCH' || r.status === 'NOT REPRODUCED' ? `${r.status} ` : `${r.status}  `}${r.check} ${r.subject}${r.detail ? ` ${r.detail}` : ''}`);
      for (const problem of r.problems) out(`    ${problem}`);
    }
    out(`re-derived by ledgerboard ${VERSION}${rederived.version.report !== null ? ` (the report names ledgerboard ${rederived.version.report})` : ''}`);
    out(`${checks} checks, ${mismatches} mismatches`);
  }
  return status;
}
