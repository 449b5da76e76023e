/** `ledgerboard verify [--json] [--all] <path>...` (FORMAT.md section 6). */
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { importLimitsOf, limitsOf, loadConfig } from '../config/config.ts';
import { verifyJson, verifyText } from './format-verify.ts';
import { EXIT, UsageError, type Command } from './command.ts';
import { painter, useColour } from './terminal.ts';
import { progressReporter } from './progress.ts';

export const verifyCommand: Command = {
  summary: 're-derive every id and digest of evidence bundles',
  usage: `Usage: ledgerboard verify [--json] [--all] [--config FILE] <path>...

Verifies evidence bundles: re-derives every id and digest (RFC 8785, SHA-256)
and applies every rule of the format. A path is one bundle (a directory
holding manifest.json) or a directory searched for bundles.

Options:
  --json    print {"bundles":[{"path","bundle_id","plan_id","status","findings"}]} to stdout
  --all     list every finding (by default at most 10 per code and file are printed)
  --config FILE   the config whose \`limits\` and \`import_limits\` apply (default
            ./ledgerboard.config.json when present, else the defaults); nothing
            else of it matters here
  --debug   print the stack of an unexpected error

verify judges each bundle by its own bytes. An imported bundle that verifies
is imported again from the originals it keeps and compared (IMPORT_MISMATCH,
or IMPORT_NOT_REPRODUCED when this version has no such importer). Whether a retained plan was
rewritten since (REWRITTEN_EVIDENCE) needs the history: see report and build.

Exit: 0 when every bundle is verified, 1 when any is invalid or no_verdict, 2 on a usage error.`,
  options: { json: { type: 'boolean' }, all: { type: 'boolean' }, config: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length === 0) throw new UsageError('verify needs at least one bundle or directory path');
    const config = await loadConfig(typeof values.config === 'string' ? values.config : undefined);
    const results = await verifyPaths(positionals, progressReporter(io.stderr, 'verified'), { limits: limitsOf(config), importLimits: importLimitsOf(config) });
    io.stdout.write(values.json ? verifyJson(results) : verifyText(results, painter(useColour(io.stdout)), values.all === true));
    return results.every((r) => r.verification.status === 'verified') ? EXIT.ok : EXIT.notVerified;
  },
};
