/**
 * buildSite for a test that builds a site without the pipeline: the site's
 * facts computed below the site first (site-model.ts factsOf, the pipeline's
 * computation without its cache), then the build given them (buildSite
 * requires them: the site never computes its facts).
 */
import type { Config } from '../../src/config/schema.ts';
import type { Report } from '../../src/report/schema.ts';
import type { ReadBundle } from '../../src/site/build/publish.ts';
import { buildSite, type SiteBuildOptions, type SiteBuildResult } from '../../src/site/build/build-site.ts';
import type { FactsBundle } from '../../src/facts/index.ts';
import { factsOf } from './site-model.ts';

/** buildSite with the facts of `report` and `bundles` under the config's cap. */
export async function buildSiteOf(report: Report, bundles: readonly (ReadBundle & FactsBundle)[], config: Config, options: Omit<SiteBuildOptions, 'facts'>): Promise<SiteBuildResult> {
  return buildSite(report, bundles, config, { ...options, facts: await factsOf(report, bundles, config) });
}
