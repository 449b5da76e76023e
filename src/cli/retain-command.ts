/** `ledgerboard retain [--bundles DIR] [--config FILE]`: retain the current report, create-only. */
import { bundleDirs, configPath, limitsOf, loadConfigFile } from '../config/config.ts';
import { verifyPaths } from '../pipeline/verify-paths.ts';
import { buildReport } from '../report/build-report.ts';
import { RetainError, retainReport } from '../site/retained.ts';
import { checkHistoryIn } from '../history/compare.ts';
import { RetainedManifestError, retainManifests } from '../history/retained-manifests.ts';
import type { VerifiedBundle } from '../pipeline/verify-paths.ts';
import type { Report } from '../report/schema.ts';
import type { Manifest } from '../schema/index.ts';
import { EXIT, UsageError, type Command } from './main.ts';

/** The manifests of the bundles a report counted, by bundle id. */
function countedManifests(report: Report, results: readonly VerifiedBundle[]): Manifest[] {
  const counted = new Set(report.bundles.filter((b) => b.counted && b.bundle_id !== null).map((b) => b.bundle_id));
  const byId = new Map<string, Manifest>();
  for (const r of results) {
    const manifest = r.verification.evidence.manifest;
    if (manifest && counted.has(manifest.bundle_id)) byId.set(manifest.bundle_id, manifest);
  }
  return [...byId.values()];
}

export const retainCommand: Command = {
  summary: 'retain the current report in the retained reports directory (create-only)',
  usage: `Usage: ledgerboard retain [--bundles DIR] [--config FILE]

Builds the report from the bundles (the config's bundles_dir by default) and
writes it to <retained_reports_dir>/<report-hex>.json as RFC 8785 JSON (the
config's paths are relative to the config file's directory). A
retained report is never overwritten: retaining the same report twice is a
no-op; a different file under that name is an error. Every later build
publishes each retained report at /reports/<hex>/ with its own numbers.

It also keeps the manifest of every bundle the report counted, as
<retained_reports_dir>/manifests/<bundle-hex>.json (create-only): when a
retained plan later reappears with another bundle, each file is classified
as unchanged, appended, added, removed or rewritten, and removed or
rewritten files are REWRITTEN_EVIDENCE (the bundle is not counted).

Exit: 0 retained (or already retained), 1 the name is taken by other bytes, 2 usage.`,
  options: { bundles: { type: 'string' }, config: { type: 'string' } },
  async run(values, positionals, io) {
    if (positionals.length > 0) throw new UsageError('retain takes no positional arguments');
    const loaded = await loadConfigFile(typeof values.config === 'string' ? values.config : undefined);
    const { config } = loaded;
    const dirs = typeof values.bundles === 'string' ? [values.bundles] : bundleDirs(loaded);
    const retainedDir = configPath(loaded, config.retained_reports_dir);
    const { results } = await checkHistoryIn(await verifyPaths(dirs, undefined, { limits: limitsOf(config), requireBundles: typeof values.bundles === 'string' }), retainedDir);
    const report = buildReport(results, config);
    try {
      const { path, outcome } = await retainReport(retainedDir, report);
      io.stdout.write(outcome === 'created' ? `retained ${report.report_id} as ${path}\n` : `already retained: ${path} (same bytes)\n`);
      const manifests = await retainManifests(retainedDir, countedManifests(report, results));
      io.stdout.write(`manifests of the counted bundles: ${manifests.created} retained, ${manifests.existing} already retained\n`);
      return EXIT.ok;
    } catch (error) {
      if (!(error instanceof RetainError) && !(error instanceof RetainedManifestError)) throw error;
      io.stderr.write(`ledgerboard: ${error.message}\n`);
      return EXIT.notVerified;
    }
  },
};
