/**
 * `ledgerboard build`: the pipeline runs once (read, verify, analyse into the
 * report), then the static site is rendered from the report into the output
 * directory, replaced atomically (a failed build leaves the old one).
 */
import { loadConfig } from '../config/config.ts';
import { shortDigest } from '../json/canonical.ts';
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { buildReport } from '../report/build-report.ts';
import { summaryLine, verifyText } from './format-verify.ts';
import { EXIT, UsageError, type Command } from './main.ts';
import { progressReporter } from './progress.ts';
import { painter, useColour } from './terminal.ts';

/** Default output directory. */
export const DEFAULT_OUT_DIR = 'dist';

export const buildCommand: Command = {
  summary: 'build the static site from the bundles directory',
  usage: `Usage: ledgerboard build [--bundles DIR] [--out DIR] [--config FILE] [--strict]

Reads and verifies every bundle under DIR (the config's bundles_dir, default
content/bundles), prints each bundle's status and findings, analyses the
verified ones into the report, and renders the static site into the output
directory (replaced only when the whole build succeeded). Bundles that are
not verified are published with their findings, never dropped, never counted.

Options:
  --bundles DIR   the bundles directory (default: the config's bundles_dir)
  --out DIR       the output directory (default ${DEFAULT_OUT_DIR})
  --config FILE   the config (default ./ledgerboard.config.json when present)
  --strict        exit 1 if any bundle is not verified (the site is still built)`,
  options: { bundles: { type: 'string' }, out: { type: 'string' }, config: { type: 'string' }, strict: { type: 'boolean' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError(`build takes no positional arguments (got ${JSON.stringify(positionals[0])}); use --bundles DIR`);
    const config = await loadConfig(typeof values.config === 'string' ? values.config : undefined);
    const dir = typeof values.bundles === 'string' ? values.bundles : config.bundles_dir;
    const out = typeof values.out === 'string' ? values.out : DEFAULT_OUT_DIR;
    const results = await verifyPaths([dir], progressReporter(io.stderr, 'verified'));
    io.stdout.write(verifyText(results, painter(useColour(io.stdout)), false));
    const report = buildReport(results, config);
    const { buildSite } = await import('../site/build-site.ts');
    const site = await buildSite(report, results, config, out, (line) => io.stderr.write(`build: ${line}\n`));
    io.stderr.write(
      `build: ${summaryLine(results)}; report ${shortDigest(report.report_id)}: ${report.boards.length} boards, ${report.cohorts.length} cohorts; ${site.pages} pages and ${site.files} files in ${out}\n`,
    );
    const allVerified = results.every((r) => r.verification.status === 'verified');
    return values.strict === true && !allVerified ? EXIT.notVerified : EXIT.ok;
  },
};
