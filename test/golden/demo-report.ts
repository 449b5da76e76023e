/** The demo report as the golden file holds it: canonical JSON of `report` over content/bundles with the repo's config. */
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { runPipeline } from '../../src/run/pipeline.ts';

/** The golden text (canonical JSON and a final newline) for the repository at `root`. */
export async function demoReportText(root: string): Promise<string> {
  const config = await loadConfig(join(root, 'ledgerboard.config.json'));
  // The pipeline without history: the golden file is the demo evidence's own report.
  const { report } = await runPipeline({ paths: [join(root, 'content', 'bundles')], config, retainedDir: null, requireBundles: true });
  return `${canonicalJson(report)}\n`;
}
