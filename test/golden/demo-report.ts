/** The demo report as the golden file holds it: canonical JSON of `report` over content/bundles with the repo's config and its freeze log. */
import { join } from 'node:path';
import { freezeLogPathOf, loadConfigFile } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { runPipeline } from '../../src/run/pipeline.ts';

/** The golden text (canonical JSON and a final newline) for the repository at `root`. */
export async function demoReportText(root: string): Promise<string> {
  const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
  // The pipeline without retained history: the golden file is the demo evidence's own report, with the demo's freeze log (FORMAT.md 12's site says what was frozen and never published).
  const { report } = await runPipeline({ paths: [join(root, 'content', 'bundles')], config: loaded.config, retainedDir: null, freezeLog: freezeLogPathOf(loaded), requireBundles: true });
  return `${canonicalJson(report)}\n`;
}
