/**
 * The site build: the pipeline runs once (read, verify, analyse), then Astro
 * renders the model into a staging directory (or, with a cache, the kept
 * render of the same model and site code is written there: render-cache.ts),
 * the raw evidence and the machine-readable files are written beside the
 * pages, and the directory is renamed into place (atomic.ts). A failed build
 * leaves the previous output untouched.
 */
import { basePathOf, scorecardOf, type Config } from '../config/config.ts';
import { readVerifierFiles } from './verifier-files.ts';
import type { Report } from '../report/schema.ts';
import { buildSiteModel } from './model.ts';
import { readRetained } from '../history/retained-reports.ts';
import { replaceDirectory, tidyBeside } from './atomic.ts';
import { publishedOf, withheldJson, type ReadBundle } from './publish.ts';
import { rebaseSite } from './base-path.ts';
import type { HistoryCheck } from '../history/compare.ts';
import { countPages, writeDataFiles } from './data-files.ts';
import { renderPages } from './render.ts';
import { keepRender, readKeptRender, renderedFiles, renderKey, writeRender } from './render-cache.ts';
import { keepOutputStamp, listOutput, outputKey, readOutputStamp } from './output-stamp.ts';
import { siteTasks } from './tasks.ts';
import { keysJson, readAttestations } from '../attest/published.ts';
import { checkSignatures, currentReport } from './signatures.ts';
import { readRetainedWithheld } from '../history/retained-withheld.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import type { CacheStore } from '../cache/sealed.ts';
import { digestBytes } from '../json/canonical.ts';
import { dirname, join, resolve } from 'node:path';

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
  /** The attestations directory (signed reports, FORMAT.md 10), resolved; absent or missing: none published. */
  attestationsDir?: string;
  /**
   * The cache (the verification cache's directory and secret): the render of the same
   * model and site code is kept and reused there (render-cache.ts), and the
   * listing of each finished output, so that a build of the same inputs into
   * an output that still holds exactly that site leaves it as it is
   * (output-stamp.ts).
   */
  renderCache?: CacheStore;
  log: (line: string) => void;
}

/**
 * Builds the site for a report into `outDir` (replaced atomically: see
 * atomic.ts), from the report and the bundles it was built from as read
 * (where each sits, its content digest and entries: what is published).
 */
export async function buildSite(report: Report, bundles: readonly ReadBundle[], config: Config, options: SiteBuildOptions): Promise<SiteBuildResult> {
  const retained = await readRetained(options.retainedDir);
  // Signed reports: the envelopes of the current and the retained reports, and the public keys (none: nothing is added).
  const attestations = options.attestationsDir === undefined ? null : await readAttestations(options.attestationsDir, [report.report_id.slice('sha256:'.length), ...retained.reports.map((r) => r.hex)]);
  for (const name of attestations?.ignored ?? []) options.log(`attestations: ignored ${name} (not <report-hex>/<keyid>.json or keys/<keyid>.pem)`);
  const verifiers = await readVerifierFiles();
  const published = publishedOf(report, bundles, config.withhold);
  for (const rule of published.unmatchedRules) options.log(`warning: the withhold rule "${rule}" matches no file: nothing is held back by it`);
  for (const n of published.notWithheld) options.log(`warning: ${n.path} is withheld by a rule but published anyway: ${n.because} has the same bytes, and is always published`);
  const withheldCount = published.bundles.reduce((n, b) => n + b.withheld.length, 0);
  // The same inputs as the site the output holds (checked byte for byte): nothing to write.
  // The config's score card file as the loader read it (FORMAT.md 11.1): published byte for byte at /scorecard.json,
  // its digest checked against the report config's (the card the claims came from: claims-model.ts siteScorecard).
  const scorecard = scorecardOf(config)?.bytes ?? null;
  const stampKey =
    options.renderCache === undefined
      ? null
      : await outputKey({
          report,
          bundles,
          config,
          retainedDir: options.retainedDir,
          ...(options.attestationsDir === undefined ? {} : { attestationsDir: options.attestationsDir }),
          sourceDate: options.sourceDate ?? null,
          // The card's own bytes (published as they are): a card re-indented has the same digest, so the same report, but another /scorecard.json.
          ...(scorecard === null ? {} : { scorecard: digestBytes(scorecard) }),
        });
  if (stampKey !== null) {
    const stamp = await readOutputStamp(options.renderCache!, stampKey);
    if (stamp !== null) {
      await tidyBeside(options.outDir);
      if ((await listOutput(options.outDir, stamp, stamp)) !== null) {
        if (withheldCount > 0) options.log(`withheld: the bytes of ${withheldCount} files are not published (their digests are)`);
        options.log(`the output already holds the site of these inputs (${stamp.files.length} files hashed, every one as built): left as it is`);
        return { outDir: resolve(options.outDir), pages: stamp.pages, files: stamp.count };
      }
    }
  }
  // Each published envelope checked against the bytes this site publishes (the pages say signed, or why not).
  const signatures = attestations === null ? {} : await checkSignatures([currentReport(report), ...retained.reports], published, attestations);
  const retainedWithheld = Object.fromEntries(await Promise.all(retained.reports.map(async (r) => [r.hex, await readRetainedWithheld(options.retainedDir, r.hex)] as const)));
  // The task pages' index goes in the model; their attempt rows are written one page at a time for the render.
  const verified = new Map(bundles.flatMap((b) => (b.verification?.status === 'verified' ? [[b.content_digest, b.verification.evidence] as const] : [])));
  const tasks = await siteTasks(report, published, verified);
  // The assessments verification parsed (assessments.json, FORMAT.md 11.2), by bundle id: who assessed each assessed claim.
  const assessments = new Map(
    report.bundles.flatMap((b) => {
      const evidence = b.bundle_id === null ? undefined : verified.get(b.content_digest);
      return evidence === undefined ? [] : [[b.bundle_id!, evidence.assessments] as const];
    }),
  );
  const model = await buildSiteModel(report, published, config, {
    assessments,
    verifiers: verifiers.map((v) => ({ path: v.path, sha256: v.sha256, bytes: v.bytes.length })),
    retained,
    signatures,
    retainedWithheld,
    tasks: tasks.boards,
    transcripts: tasks.transcripts.pages,
    outcomes: tasks.outcomes,
    sourceDate: options.sourceDate ?? null,
    ...(options.history ? { history: options.history } : {}),
  });
  await mkdir(dirname(resolve(options.outDir)), { recursive: true });
  const built = await replaceDirectory(options.outDir, async (staging) => {
    // The task pages' rows are not in the model, but follow from the same published bundles, which the model names.
    const key = options.renderCache === undefined ? null : await renderKey(model);
    const kept = key === null ? null : await readKeptRender(options.renderCache!, key);
    if (kept !== null) {
      options.log('pages: the render of the same model and site code, from the cache');
      await mkdir(staging, { recursive: true });
      await writeRender(staging, kept);
    } else {
      options.log('rendering pages');
      await renderPages(model, staging, options.outDir, tasks.details, tasks.transcripts);
      if (key !== null) await keepRender(options.renderCache!, key, await renderedFiles(staging));
    }
    // Under a base path (site_url with a path), every root-relative link moves under it.
    await rebaseSite(staging, basePathOf(config));
    options.log('writing raw evidence and data files');
    let files = await writeDataFiles(model, published, retained.reports, staging, options.history?.manifests ?? [], scorecard);
    // The site's own verifiers (verifier-files.ts), bundled from the code that built it.
    for (const file of verifiers) {
      await writeFile(join(staging, file.path.slice(1)), file.bytes);
      files++;
    }
    if (withheldCount > 0) {
      // Withheld files (config withhold): their digests, sizes and reasons, for verify.mjs and the in-browser verifier.
      await writeFile(join(staging, 'withheld.json'), withheldJson(published.bundles));
      files++;
      options.log(`withheld: the bytes of ${withheldCount} files are not published (their digests are)`);
    }
    if (attestations && (attestations.files.length > 0 || attestations.keys.length > 0)) {
      for (const file of attestations.files) {
        await mkdir(dirname(join(staging, file.path)), { recursive: true });
        await writeFile(join(staging, file.path), file.bytes);
      }
      await writeFile(join(staging, 'keys.json'), keysJson(attestations.keys));
      files += attestations.files.length + 1;
    }
    return { outDir: resolve(options.outDir), pages: await countPages(model), files };
  });
  if (stampKey !== null) {
    const listing = await listOutput(built.outDir, { pages: built.pages, count: built.files });
    if (listing !== null) await keepOutputStamp(options.renderCache!, stampKey, listing);
  }
  return built;
}
