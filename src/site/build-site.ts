/**
 * The site build: the pipeline runs once (read, verify, analyse), then Astro
 * renders the model into a staging directory, the raw evidence and the
 * machine-readable files are written beside the pages, and the directory is
 * renamed into place (atomic.ts). A failed build leaves the previous output
 * untouched.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { basePathOf, type Config } from '../config/config.ts';
import type { Report } from '../report/schema.ts';
import { buildSiteModel } from './model.ts';
import { readRetained } from '../history/retained-reports.ts';
import { replaceDirectory } from './atomic.ts';
import { publishedOf, type ReadBundle } from './publish.ts';
import { rebaseSite } from './base-path.ts';
import type { HistoryCheck } from '../history/compare.ts';
import { countPages, writeDataFiles } from './data-files.ts';
import { renderPages } from './render.ts';

export { PROJECT_ROOT, removeStaleRenders } from './render.ts';

/** What a build did. */
export interface SiteBuildResult {
  outDir: string;
  pages: number;
  files: number;
}

/** Where a build reads retained reports and writes the site, and its progress log. */
export interface SiteBuildOptions {
  /** The retained reports directory (already resolved against the config's directory). */
  retainedDir: string;
  outDir: string;
  /** SOURCE_DATE_EPOCH as RFC 3339 (see source-date.ts), used only when no evidence is dated. */
  sourceDate?: string | null;
  /** The append-only check against the retained manifests. */
  history?: HistoryCheck;
  log: (line: string) => void;
}

/**
 * Builds the site for a report into `outDir` (replaced atomically: see
 * atomic.ts), from the report and the bundles it was built from as read
 * (where each sits, its content digest and entries: what is published).
 */
export async function buildSite(report: Report, bundles: readonly ReadBundle[], config: Config, options: SiteBuildOptions): Promise<SiteBuildResult> {
  const retained = await readRetained(options.retainedDir);
  const published = publishedOf(report, bundles);
  const model = await buildSiteModel(report, published, config, {
    retained,
    sourceDate: options.sourceDate ?? null,
    ...(options.history ? { history: options.history } : {}),
  });
  await mkdir(dirname(resolve(options.outDir)), { recursive: true });
  return await replaceDirectory(options.outDir, async (staging) => {
    options.log('rendering pages');
    await renderPages(model, staging, options.outDir);
    // Under a base path (site_url with a path), every root-relative link moves under it.
    await rebaseSite(staging, basePathOf(config));
    options.log('writing raw evidence and data files');
    const files = await writeDataFiles(model, published, retained.reports, staging);
    return { outDir: resolve(options.outDir), pages: await countPages(model), files };
  });
}
