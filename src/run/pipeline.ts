/**
 * The pipeline, written once: discover -> read -> verify -> history ->
 * report (-> the site's facts, for `build`). `build`, `report` and `retain`
 * run it and differ only in what they do with its result (render a site,
 * print, retain); the golden report of the demo is this pipeline without
 * history.
 */
import { importLimitsOf, limitsOf, timestampRootsOf, type Config } from '../config/config.ts';
import { checkHistoryIn, type HistoryCheck } from '../history/compare.ts';
import type { Progress } from '../pipeline/verify-directory.ts';
import type { VerifyCache } from '../pipeline/verify-cache.ts';
import { readKeptTables } from '../pipeline/kept-tables.ts';
import { verifyPaths, type BundleResult } from '../pipeline/verify-paths.ts';
import { buildReport, countedGroups } from '../report/build-report.ts';
import type { Report } from '../report/schema.ts';
import { poolingStore, readCachedReport, reportKey, sectionStore, writeCachedReport } from './report-cache.ts';
import { computeSiteFacts, type SiteFacts } from '../facts/index.ts';
import { attemptIndexStore, factsStore } from './facts-cache.ts';

/** What to run the pipeline over. */
export interface PipelineInput {
  /** Bundle directories, or directories to discover bundles under. */
  paths: readonly string[];
  config: Config;
  /** The retained reports directory (history: REWRITTEN_EVIDENCE, incomplete retentions); null runs without history. */
  retainedDir: string | null;
  /** When true (paths the user named), a path with no bundle under it is a usage error; else it gives no bundle. */
  requireBundles: boolean;
  onProgress?: Progress;
  /** The verification cache to use (none: every bundle is verified in full). */
  cache?: VerifyCache;
  /** When true (`build`), the site's facts are computed beside the report (src/facts), through the cache when there is one. */
  siteFacts?: boolean;
}

/** What the pipeline gives. */
export interface PipelineResult {
  /** Every bundle in discovery order, with the history's findings added. */
  results: BundleResult[];
  /** The history check (null without a retained reports directory). */
  history: HistoryCheck | null;
  report: Report;
  /** Present (true) when the report was taken from the report cache (report-cache.ts). */
  reportCached?: true;
  /** With a cache and a report analysed afresh: of its ledgers' sections, how many were kept and how many there are. */
  sections?: { reused: number; total: number };
  /** With a cache and a report analysed afresh: of the bundles of the ledgers analysed again, how many were pooled from a kept pooling. */
  poolings?: { reused: number; total: number };
  /** With `siteFacts`: the site's facts of the report (src/facts/index.ts), for buildSiteModel. */
  facts?: SiteFacts;
  /** With `siteFacts`: of the report's boards, how many compare facts were kept (facts-cache.ts) and how many computed. */
  factsCompare?: { reused: number; computed: number };
  /** With `siteFacts`: of the report's ledgers, how many parts of the attempt index were kept (facts-cache.ts) and how many made from the tables. */
  factsIndex?: { reused: number; computed: number };
}

/** Runs the pipeline (see the module comment). */
export async function runPipeline(input: PipelineInput): Promise<PipelineResult> {
  // The reader's settings every verification of this run uses (a bundle verified again to read its tables too).
  const reading = { limits: limitsOf(input.config), importLimits: importLimitsOf(input.config), timestampRoots: timestampRootsOf(input.config) };
  const verified = await verifyPaths(input.paths, input.onProgress, {
    ...reading,
    requireBundles: input.requireBundles,
    cache: input.cache,
  });
  const history = input.retainedDir === null ? null : await checkHistoryIn(verified, input.retainedDir);
  const results = history?.results ?? verified;
  const withFacts = async <T extends { report: Report }>(run: T): Promise<T & Pick<PipelineResult, 'facts' | 'factsCompare' | 'factsIndex'>> => {
    if (input.siteFacts !== true) return run;
    // The facts of this report: the compare pages' figures kept per board under the digest of their inputs (facts-cache.ts).
    const made = await computeSiteFacts(run.report, results, {
      cap: input.config.compare_max_cohorts,
      ...(input.cache === undefined
        ? {}
        : { store: factsStore(input.cache, run.report), indexStore: attemptIndexStore(input.cache, run.report, results, reading) }),
    });
    return { ...run, facts: made.facts, factsCompare: made.compare, factsIndex: made.attemptIndex };
  };
  if (input.cache === undefined) return withFacts({ results, history, report: buildReport(results, input.config) });
  // The same inputs as a kept report: that report (see report-cache.ts).
  const key = reportKey(results, input.config);
  const kept = await readCachedReport(input.cache, key);
  if (kept !== null) return withFacts({ results, history, report: kept, reportCached: true as const });
  // Otherwise the ledgers whose bundles are those of a kept section take it; the others are analysed.
  const { groups } = countedGroups(results);
  const store = await sectionStore(input.cache, groups, input.config);
  // Of the ledgers analysed again, each bundle pooled before gives its kept pooling.
  const poolings = await poolingStore(input.cache, groups.filter((g) => store.kept(g) === null), input.config);
  // Kept verifications' tables are read only for the bundles pooled afresh (pipeline/kept-tables.ts); the rest reads their heads.
  const pooled = new Set(groups.filter((g) => store.kept(g) === null).flatMap((g) => g.bundles.filter((b) => poolings.kept(b, 'latest') === null).map((b) => b.evidence)));
  await readKeptTables(results.filter((r) => pooled.has(r.verification.evidence)), { cache: input.cache, ...reading });
  const report = buildReport(results, input.config, { ...store, poolings });
  await store.keep();
  await poolings.keep();
  await writeCachedReport(input.cache, key, report);
  return withFacts({ results, history, report, sections: { reused: store.reused, total: groups.length }, poolings: { reused: poolings.reused, total: poolings.total } });
}
