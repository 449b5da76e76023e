/**
 * `ledgerboard verify-site <url|dir> [--key PEM|KEYID]... [--json]`: a
 * published site checked with the INSTALLED ledgerboard (a stranger's own
 * copy, never the script the site serves): every id and digest, the
 * signature of a pinned key (FORMAT.md 10), and the report re-derived from
 * the evidence (FORMAT.md 8) by this version's verifier and analysis. It
 * says which version re-derived it; a site made by another version whose
 * report this one cannot reproduce is said to be so (exit 3), not a
 * mismatch. The site's own /verify.mjs is compared with the one this
 * version bundles when the versions agree.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { digestBytes } from '../json/canonical.ts';
import { directorySource, urlSource } from '../rederive/site-checks.mjs';
import { BOUNDS_HELP, boundsOf, main } from '../rederive/verify-main.ts';
import type { FetchBounds } from '../rederive/bounded-fetch.ts';
import { VERIFIER_DIR } from '../site/build/verifier-files.ts';
import { VERSION } from '../version.ts';
import { UsageError, type Command } from './command.ts';

export const verifySiteCommand: Command = {
  summary: 're-derive a published site from its evidence with this ledgerboard, and check its signature by a pinned key',
  usage: `Usage: ledgerboard verify-site [--json] [--key PEM-FILE|KEYID]... [--timeout SECONDS] [--max-document-bytes BYTES] <site-url-or-dir>

Checks a site over HTTP(S) or a copy on disk with this installed
ledgerboard (not the script the site serves):
- every id and digest: report_id, board and cohort ids, the cohort files,
  every bundle's content_digest, and for every counted bundle its
  bundle_id, plan_id and the SHA-256 of every file its manifest lists;
- the report re-derived (FORMAT.md 8): every published bundle verified
  again by the format's rules (imports re-run on their kept originals),
  the counted ones analysed with the config the report carries, compared
  with /report.json byte for byte; then the cohort files, leaderboard.csv,
  changes.json, the feed, the figures the pages print and every cohort's
  badge (/badges/). A difference names the first member that differs.
- every time-stamp anchor (FORMAT.md 12): the pinned roots at
  /timestamp-roots/<hex>.pem against their names, each anchors/*.tsr
  token checked again, the report's anchor time against the tokens', and
  the openssl ts -verify command that checks each anchored bundle's token
  with a root you trust.
- the site's /verify.mjs compared with the one this version makes, when
  the report names this version.

With --key (a public key PEM file, or the 64-hex id of a key listed in the
site's /keys.json) the current report must carry a valid signature by that
pinned key (FORMAT.md 10) over /report.json and every counted manifest as
fetched. Without it, who signed is shown and said not to be pinned.

${BOUNDS_HELP}

Exit: 0 every check matches, 1 any mismatch (or no valid signature by a
pinned key), 2 usage error or the site cannot be read (unreachable, an
HTTP error, a bound broken), 3 the report was
made by another ledgerboard version and this one re-derives another report
(re-derive it with that version: npx ledgerboard@<version> verify-site).`,
  options: { json: { type: 'boolean' }, key: { type: 'string', multiple: true }, timeout: { type: 'string' }, 'max-document-bytes': { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw new UsageError('verify-site takes one site URL or directory', 'verify-site');
    const keys = (values.key as unknown as string[] | undefined) ?? [];
    const site = positionals[0]!;
    const timeout = values.timeout as string | undefined;
    const documentBytes = values['max-document-bytes'] as string | undefined;
    const bounds = boundsOf(timeout, documentBytes);
    if (typeof bounds === 'string') throw new UsageError(bounds, 'verify-site');
    const args = [
      ...(values.json === true ? ['--json'] : []),
      ...keys.flatMap((k) => ['--key', k]),
      ...(timeout !== undefined ? ['--timeout', timeout] : []),
      ...(documentBytes !== undefined ? ['--max-document-bytes', documentBytes] : []),
      site,
    ];
    const write = (stream: NodeJS.WritableStream) => (line: string) => stream.write(`${line}\n`);
    const code = await main(args, write(io.stdout), write(io.stderr), {
      program: 'ledgerboard verify-site',
      ...((io.stderr as NodeJS.WriteStream).isTTY ? { progress: (text: string) => io.stderr.write(`\r\x1b[K${text}`) } : {}),
      rederiveWith: (version) => `re-derive it with that version: npx --yes --package ledgerboard@${version} ledgerboard verify-site ${site}`,
    });
    if (code === 2 || values.json === true) return code;
    // The site's own script, when it claims to be this version's: is it the one this version makes?
    const line = await scriptLine(site, bounds);
    if (line !== null) io.stdout.write(`${line.text}\n`);
    return line?.mismatch && code === 0 ? 1 : code;
  },
};

/** Compares the site's /verify.mjs with this version's, when the site's report names this version. */
async function scriptLine(site: string, bounds: FetchBounds): Promise<{ text: string; mismatch: boolean } | null> {
  const get = /^https?:\/\//i.test(site) ? urlSource(site, bounds) : directorySource(site, bounds);
  const [report, script, own] = await Promise.all([
    get('/report.json').catch(() => null),
    get('/verify.mjs').catch(() => null),
    readFile(join(VERIFIER_DIR, 'verify.mjs')).catch(() => null),
  ]);
  if (report === null || own === null) return null;
  let version: unknown;
  try {
    version = (JSON.parse(new TextDecoder().decode(report)) as { generator?: { version?: unknown } }).generator?.version;
  } catch {
    return null;
  }
  if (version !== VERSION) return { text: `info  verify.mjs the site was made by ledgerboard ${String(version)}: its /verify.mjs is not compared with this version's`, mismatch: false };
  if (script === null) return { text: 'MISMATCH verify.mjs /verify.mjs is not published', mismatch: true };
  const same = digestBytes(script) === digestBytes(own);
  return same
    ? { text: `ok  verify.mjs /verify.mjs is the script ledgerboard ${VERSION} makes (${digestBytes(own)})`, mismatch: false }
    : { text: `MISMATCH verify.mjs /verify.mjs (${digestBytes(script)}) is not the script ledgerboard ${VERSION} makes (${digestBytes(own)})`, mismatch: true };
}
