/**
 * The demo's site model as the golden file holds it: the model `npm run build`
 * renders (the config's bundle directories, frozen and imported, with the
 * retained reports and the history check), as JSON with two-space indents
 * and a final newline.
 */
import { join } from 'node:path';
import { bundleDirs, configPath, loadConfigFile } from '../../src/config/config.ts';
import { checkHistoryIn } from '../../src/history/compare.ts';
import { readRetained } from '../../src/history/retained-reports.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { buildSiteModel, type SiteModel } from '../../src/site/model/model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { computeSiteFacts } from '../../src/facts/index.ts';

/** The demo's site model for the repository at `root`, built as `ledgerboard build` builds it (no SOURCE_DATE_EPOCH). */
export async function demoSiteModel(root: string): Promise<SiteModel> {
  const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
  const retainedDir = configPath(loaded, loaded.config.retained_reports_dir);
  const history = await checkHistoryIn(await verifyPaths(bundleDirs(loaded)), retainedDir);
  const report = buildReport(history.results, loaded.config);
  // The facts as the pipeline computes them below the site (the attempt index from the verified tables): the production route.
  const { facts } = await computeSiteFacts(report, history.results, { cap: loaded.config.compare_max_cohorts });
  return buildSiteModel(report, publishedOf(report, history.results), loaded.config, { retained: await readRetained(retainedDir), sourceDate: null, history, facts });
}

/** The golden text of a site model. */
export function siteModelText(model: SiteModel): string {
  return `${JSON.stringify(model, null, 2)}\n`;
}
