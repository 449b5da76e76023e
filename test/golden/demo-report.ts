/** The demo report as the golden file holds it: canonical JSON of `report` over content/bundles with the repo's config. */
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';

/** The golden text (canonical JSON and a final newline) for the repository at `root`. */
export async function demoReportText(root: string): Promise<string> {
  const config = await loadConfig(join(root, 'ledgerboard.config.json'));
  const results = await verifyPaths([join(root, 'content', 'bundles')]);
  return `${canonicalJson(buildReport(results, config))}\n`;
}
