/**
 * The demo's site model as the golden file holds it: the model `npm run build`
 * renders (the config's bundle directories, frozen and imported, with the
 * retained reports and the history check), as JSON with two-space indents
 * and a final newline.
 */
import { join } from 'node:path';
import { bundleDirs, configPath, freezeLogPathOf, loadConfigFile } from '../../src/config/config.ts';
import { readRetained } from '../../src/history/retained-reports.ts';
import { runPipeline } from '../../src/run/pipeline.ts';
import { buildSiteModel, type SiteModel } from '../../src/site/model/model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';

/** The demo's site model for the repository at `root`, built as `ledgerboard build` builds it (no SOURCE_DATE_EPOCH). */
export async function demoSiteModel(root: string): Promise<SiteModel> {
  const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
  const retainedDir = configPath(loaded, loaded.config.retained_reports_dir);
  // The production route: the pipeline with the history check, the config's pinned time-stamp roots and freeze log, and the facts below the site.
  const run = await runPipeline({ paths: bundleDirs(loaded), config: loaded.config, retainedDir, freezeLog: freezeLogPathOf(loaded), requireBundles: true, siteFacts: true });
  if (run.history === null || run.history === undefined || run.facts === undefined) throw new Error('internal: the pipeline gave no history or facts with a retained directory and siteFacts');
  return buildSiteModel(run.report, publishedOf(run.report, run.results), loaded.config, { retained: await readRetained(retainedDir), sourceDate: null, history: run.history, facts: run.facts });
}

/** The golden text of a site model. */
export function siteModelText(model: SiteModel): string {
  return `${JSON.stringify(model, null, 2)}\n`;
}
