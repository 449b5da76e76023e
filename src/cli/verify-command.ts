/** `ledgerboard verify [--json] [--all] <path>...` (FORMAT.md section 6). */
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { importLimitsOf, limitsOf, loadConfig, readTimestampRoots, timestampRootsOf } from '../config/config.ts';
import { verifyJson, verifyText } from './format-verify.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { painter, useColour } from './terminal.ts';
import { progressReporter } from './progress.ts';

export const verifyCommand: Command = {
  summary: 're-derive every id and digest of evidence bundles',
  usage: `Usage: ledgerboard verify [--json] [--all] [--config FILE] [--timestamp-root PEM]... <path>...

Verifies evidence bundles: re-derives every id and digest (RFC 8785, SHA-256)
and applies every rule of the format. A path is one bundle (a directory
holding manifest.json) or a directory searched for bundles.

Options:
  --json    print {"bundles":[{"path","bundle_id","plan_id","status","findings"}]} to stdout
  --all     list every finding (by default at most 10 per code and file are printed)
  --config FILE   the config whose \`limits\`, \`import_limits\` and \`timestamp_roots\`
            apply (default ./ledgerboard.config.json when present, else the
            defaults); nothing else of it matters here
  --timestamp-root PEM   a PEM file of root certificates of time-stamp
            authorities you trust (repeatable), besides the config's
            \`timestamp_roots\`: an anchor whose signer chains to one is pinned
  --debug   print the stack of an unexpected error

verify judges each bundle by its own bytes. An imported bundle that verifies
is imported again from the originals it keeps and compared (IMPORT_MISMATCH,
or IMPORT_NOT_REPRODUCED when this version has no such importer). Whether a retained plan was
rewritten since (REWRITTEN_EVIDENCE) needs the history: see report and build.

Under each bundle a line gives its anchor (FORMAT.md 12, anchors/<name>.tsr):
"anchored by <authority> at <genTime> (pinned|not pinned), before the first
attempt" (or "after the first attempt"), or "not anchored". Anchors are checked
from the bundle's bytes alone, never over the network.

Exit: 0 when every bundle is verified, 1 when any is invalid or no_verdict, 2 on a usage error.`,
  options: { json: { type: 'boolean' }, all: { type: 'boolean' }, config: { type: 'string' }, 'timestamp-root': { type: 'string', multiple: true } },
  async run(values, positionals, io) {
    if (positionals.length === 0) throw new UsageError('verify needs at least one bundle or directory path');
    const config = await loadConfig(typeof values.config === 'string' ? values.config : undefined);
    const rootFiles = (values['timestamp-root'] ?? []) as string[];
    const ownRoots = await readTimestampRoots(rootFiles, '', () => '--timestamp-root');
    const timestampRoots = [...timestampRootsOf(config), ...ownRoots];
    const results = await verifyPaths(positionals, progressReporter(io.stderr, 'verified'), { limits: limitsOf(config), importLimits: importLimitsOf(config), timestampRoots });
    io.stdout.write(values.json ? verifyJson(results) : verifyText(results, painter(useColour(io.stdout)), values.all === true));
    return results.every((r) => r.verification.status === 'verified') ? EXIT.ok : EXIT.notVerified;
  },
};
