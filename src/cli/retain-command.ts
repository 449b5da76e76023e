/** `ledgerboard retain [--bundles DIR] [--config FILE]`: retain the current report, create-only. */
import { configPath, loadConfigFile } from '../config/config.ts';
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { buildReport } from '../report/build-report.ts';
import { RetainError, retainReport } from '../site/retained.ts';
import { EXIT, UsageError, type Command } from './main.ts';

export const retainCommand: Command = {
  summary: 'retain the current report in the retained reports directory (create-only)',
  usage: `Usage: ledgerboard retain [--bundles DIR] [--config FILE]

Builds the report from the bundles (the config's bundles_dir by default) and
writes it to <retained_reports_dir>/<report-hex>.json as RFC 8785 JSON (the
config's paths are relative to the config file's directory). A
retained report is never overwritten: retaining the same report twice is a
no-op; a different file under that name is an error. Every later build
publishes each retained report at /reports/<hex>/ with its own numbers.

Exit: 0 retained (or already retained), 1 the name is taken by other bytes, 2 usage.`,
  options: { bundles: { type: 'string' }, config: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('retain takes no positional arguments');
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const { config } = loaded;
    const dir = typeof values.bundles === 'string' ? values.bundles : configPath(loaded, config.bundles_dir);
    const report = buildReport(await verifyPaths([dir]), config);
    try {
      const { path, outcome } = await retainReport(configPath(loaded, config.retained_reports_dir), report);
      io.stdout.write(outcome === 'created' ? `retained ${report.report_id} as ${path}\n` : `already retained: ${path} (same bytes)\n`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof RetainError)) throw error;
      io.stderr.write(`ledgerboard: ${error.message}\n`);
      return EXIT.notVerified;
    }
  },
};
