/**
 * A site model for a test that builds one without the pipeline: the site's
 * facts computed below the site first (src/facts computeSiteFacts, as the
 * pipeline computes them for `build`), then the model built from them. The
 * site never computes its facts (buildSiteModel requires them), so this is
 * the one route a test takes.
 */
import { computeSiteFacts, type FactsBundle, type SiteFacts } from '../../src/facts/index.ts';
import type { Config } from '../../src/config/schema.ts';
import type { Report } from '../../src/report/schema.ts';
import { buildSiteModel, type SiteModel, type SiteModelOptions } from '../../src/site/model/model.ts';
import type { Published } from '../../src/site/build/publish.ts';

type ModelConfig = Parameters<typeof buildSiteModel>[2];

/** The site facts of a report and the bundles it was built from, under the config's cap (no cache). */
export async function factsOf(report: Report, bundles: readonly FactsBundle[], config: Partial<Pick<Config, 'compare_max_cohorts'>> = {}): Promise<SiteFacts> {
  return (await computeSiteFacts(report, bundles, config.compare_max_cohorts === undefined ? {} : { cap: config.compare_max_cohorts })).facts;
}

/**
 * The site model of a report: its facts from `bundles` (the pipeline's
 * verified results, whose evidence holds each plan), then buildSiteModel with
 * `options` (given facts win: a test of wrong facts passes its own).
 */
export async function modelOf(report: Report, bundles: readonly FactsBundle[], published: Published, config: ModelConfig, options: Partial<SiteModelOptions> = {}): Promise<SiteModel> {
  const facts = options.facts ?? (await factsOf(report, bundles, config));
  return buildSiteModel(report, published, config, { ...options, facts });
}
