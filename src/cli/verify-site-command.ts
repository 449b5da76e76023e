/**
 * `ledgerboard verify-site <url|dir> [--key PEM|KEYID]... [--json]`: the
 * published site's own verify.mjs checks (every id re-derived from the bytes
 * served, and with --key the signature of a pinned key, FORMAT.md 10), run
 * from the CLI. It is the very script the site publishes (public/verify.mjs
 * of this package), so the two can never disagree.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UsageError, type Command } from './command.ts';

/** public/verify.mjs of this package (from src/cli or lib/cli, two levels up). */
const VERIFY_SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'public', 'verify.mjs');

export const verifySiteCommand: Command = {
  summary: "re-derive a published site's ids and check its signature by a pinned key",
  usage: `Usage: ledgerboard verify-site [--json] [--key PEM-FILE|KEYID]... <site-url-or-dir>

Runs the checks of the site's /verify.mjs against a site over HTTP(S) or a
copy on disk: report_id, board and cohort ids, the cohort files, every
bundle's content_digest, and for every counted bundle its bundle_id, plan_id
and the SHA-256 of every file its manifest lists, all from the bytes served.

With --key (a public key PEM file, or the 64-hex id of a key listed in the
site's /keys.json) the current report must carry a valid signature by that
pinned key (FORMAT.md 10) over /report.json and every counted manifest as
fetched. Without it, who signed is shown and said not to be pinned: a key
the site serves proves nothing on its own.

Exit: 0 every check matches, 1 any mismatch (or no valid signature by a
pinned key), 2 usage error or the site cannot be reached.`,
  options: { json: { type: 'boolean' }, key: { type: 'string', multiple: true } },
  async run(values, positionals, io) {
    if (positionals.length !== 1) throw new UsageError('verify-site takes one site URL or directory', 'verify-site');
    const keys = (values.key as unknown as string[] | undefined) ?? [];
    const args = [...(values.json === true ? ['--json'] : []), ...keys.flatMap((k) => ['--key', k]), positionals[0]!];
    const script = (await import(pathToFileURL(VERIFY_SCRIPT).href)) as { main(args: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> };
    return await script.main(args, (line) => io.stdout.write(`${line}\n`), (line) => io.stderr.write(`${line}\n`));
  },
};
