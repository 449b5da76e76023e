/**
 * `ledgerboard build`: the site build. Today it runs the pipeline once (read,
 * verify, analyse into the report) and prints the result; rendering the Astro
 * site into dist/ is not implemented yet, and it says so.
 */
import { loadConfig } from '../config/config.ts';
import { shortDigest } from '../json/canonical.ts';
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { buildReport } from '../report/build-report.ts';
import { summaryLine, verifyText } from './format-verify.ts';
import { EXIT, type Command } from './main.ts';
import { progressReporter } from './progress.ts';
import { painter, useColour } from './terminal.ts';

/** Default bundles directory, relative to the working directory. */
export const DEFAULT_BUNDLES_DIR = 'content/bundles';

export const buildCommand: Command = {
  summary: 'build the site from the bundles directory',
  usage: `Usage: ledgerboard build [--bundles DIR] [--config FILE] [--strict]

Reads and verifies every bundle under DIR (the config's bundles_dir, default
${DEFAULT_BUNDLES_DIR}), prints each bundle's status and findings, and
analyses the verified ones into the report. Bundles that are not verified
are reported, never dropped, and never counted.

Not implemented yet: rendering the static site (dist/). This command
currently stops after the report and writes nothing.

Options:
  --bundles DIR   the bundles directory (default: the config's bundles_dir)
  --config FILE   the config (default ./ledgerboard.config.json when present)
  --strict        exit 1 if any bundle is not verified`,
  options: { bundles: { type: 'string' }, config: { type: 'string' }, strict: { type: 'boolean' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new (await import('./main.ts')).UsageError(`build takes no positional arguments (got ${JSON.stringify(positionals[0])}); use --bundles DIR`);
    const config = await loadConfig(typeof values.config === 'string' ? values.config : undefined);
    const dir = typeof values.bundles === 'string' ? values.bundles : config.bundles_dir;
    const results = await verifyPaths([dir], progressReporter(io.stderr, 'verified'));
    io.stdout.write(verifyText(results, painter(useColour(io.stdout)), false));
    const report = buildReport(results, config);
    io.stderr.write(
      `build: ${summaryLine(results)}; report ${shortDigest(report.report_id)}: ${report.boards.length} boards, ${report.cohorts.length} cohorts. The site is not rendered yet (not implemented); nothing was written.\n`,
    );
    const allVerified = results.every((r) => r.verification.status === 'verified');
    return values.strict === true && !allVerified ? EXIT.notVerified : EXIT.ok;
  },
};
