/**
 * The site build: the pipeline runs once (read, verify, analyse), then Astro
 * renders the model into a staging directory (or, with a cache, the kept
 * render of the same model and site code is written there: render-cache.ts),
 * the raw evidence and the machine-readable files are written beside the
 * pages, and the directory is renamed into place (atomic.ts). A failed build
 * leaves the previous output untouched.
 */
import { basePathOf, scorecardOf, timestampRootsOf, type Config } from '../../config/config.ts';
import { readVerifierFiles } from './verifier-files.ts';
import type { Report } from '../../report/schema.ts';
import { buildSiteModel } from '../model/model.ts';
import { readRetained } from '../../history/retained-reports.ts';
import { tidyBeside } from './atomic.ts';
import { publishedOf, withheldJson, type ReadBundle } from './publish.ts';
import { rebaseHtml, rebaseSite, rewriteHtmlFiles } from './base-path.ts';
import { offlinePage } from './offline.ts';
import type { HistoryCheck } from '../../history/compare.ts';
import { countPages, writeDataFiles } from './data-files.ts';
import { writeFreezeLogFiles } from './freeze-log-files.ts';
import type { LoadedFreezeLog } from '../../history/freeze-log-files.ts';
import { renderPages, SERVER_BUNDLE_DIR } from './render.ts';
import { keepPageListing, keepRender, modelDigest, readKeptRender, readPageListing, renderedFiles, renderKey, siteCodeIdentity, type PageListing } from './render-cache.ts';
import { keepOutputStamp, listOutput, outputKey, readOutputStamp } from './output-stamp.ts';
import { siteTasks } from '../model/tasks.ts';
import { attemptIndexOf, evidenceOf } from '../../facts/attempt-index.ts';
import { keysJson, readAttestations } from '../../attest/published.ts';
import { checkSignatures, currentReport } from '../model/signatures.ts';
import { readRetainedWithheld } from '../../history/retained-withheld.ts';
import { createHash } from 'node:crypto';
import type { CacheStore } from '../../cache/sealed.ts';
import { digestBytes, digestCanonical } from '../../json/canonical.ts';
import { diskEffects, type BuildEffects, type OutputWriter } from './effects.ts';
import type { SiteModel } from '../model/model-types.ts';
import type { SiteFacts } from '../../facts/index.ts';
import { layoutSlice, PAGE_KEY_FORMAT, pageFile, pageKeys } from '../model/page-slices.ts';
import { FIXED_PAGES } from '../model/page-paths.ts';
import { restamp, stampPage, type StampContext, type StampedPage } from './stamp.ts';
import { timestampRootFiles } from './timestamp-roots.ts';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export { PROJECT_ROOT, removeStaleRenders } from './render.ts';

/** What a build did. */
export interface SiteBuildResult {
  outDir: string;
  pages: number;
  files: number;
  /** The page paths Astro rendered this time, sorted (null: the kept render of the same model was taken; absent: the output was left as it was). */
  rendered?: string[] | null;
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
  /** The site's facts of the report, as the pipeline returned them (src/facts: compare pages, money, verified plans); required: the site never computes them. */
  facts: SiteFacts;
  /**
   * Where the build writes its output and reads the previous one (effects.ts);
   * default: the disk at outDir, replaced atomically. With memory effects the
   * output stamp is not used (it lists a directory).
   */
  effects?: BuildEffects;
  /**
   * An offline copy (offline.ts, docs/site.md "Offline copies"): every internal link written relative to its
   * page, directory links naming index.html, so the output opens from a folder (file://) or any sub-path.
   * In the output stamp's key and in every page's key: an offline and an online build never take each other's pages.
   */
  offline?: boolean;
  /** The config's freeze log as the pipeline read it (null or absent: none): published as /freeze-log.jsonl, with retain's copies (freeze-log-files.ts). */
  freezeLog?: LoadedFreezeLog | null;
  /**
   * The kept server bundle to render with when it was made from this site
   * code (astro-steps.ts): its directory; default lib/server-bundle, where
   * `npm run compile` keeps it; null: Astro bundles the pages itself. The
   * site's bytes are the same either way.
   */
  serverBundle?: string | null;
  /** Told whether Astro rendered with the kept server bundle or bundled the pages itself (not called when Astro did not run). */
  onRender?: (bundle: 'reused' | 'built') => void;
}

/**
 * Builds the site for a report into `outDir` (replaced atomically: see
 * atomic.ts), from the report and the bundles it was built from as read
 * (where each sits, its content digest and entries: what is published).
 */
export async function buildSite(report: Report, bundles: readonly ReadBundle[], config: Config, options: SiteBuildOptions): Promise<SiteBuildResult> {
  const effects = options.effects ?? diskEffects(options.outDir, options.log);
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
    options.renderCache === undefined || effects.kind !== 'disk'
      ? null
      : await outputKey({
          report,
          bundles,
          config,
          retainedDir: options.retainedDir,
          ...(options.attestationsDir === undefined ? {} : { attestationsDir: options.attestationsDir }),
          sourceDate: options.sourceDate ?? null,
          ...(options.offline === true ? { offline: true } : {}),
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
  // One route: the index the pipeline's facts carry (kept per ledger, or made once there); made here only for a caller without them.
  const tasks = await siteTasks(report, published, options.facts?.attemptIndex ?? attemptIndexOf(report, evidenceOf(bundles)));
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
    facts: options.facts,
  });
  const built = await effects.output(async (out) => {
    const rendered = await renderSite(model, config, tasks, out, effects, options.renderCache, options.offline === true, options);
    let files = 0;
    options.log('writing raw evidence and data files');
    files += await writeDataFiles(model, published, retained.reports, out, options.history?.manifests ?? [], scorecard);
    // The freeze log and retain's copies of it (issue 30), for a stranger to re-derive the report's freeze_log.
    files += await writeFreezeLogFiles(report, options.freezeLog ?? null, out);
    // The site's own verifiers (verifier-files.ts), bundled from the code that built it.
    for (const file of verifiers) {
      await out.writeFile(file.path, file.bytes);
      files++;
    }
    if (withheldCount > 0) {
      // Withheld files (config withhold): their digests, sizes and reasons, for verify.mjs and the in-browser verifier.
      await out.writeFile('/withheld.json', withheldJson(published.bundles));
      files++;
      options.log(`withheld: the bytes of ${withheldCount} files are not published (their digests are)`);
    }
    if (attestations && (attestations.files.length > 0 || attestations.keys.length > 0)) {
      for (const file of attestations.files) await out.writeFile(file.path, file.bytes);
      await out.writeFile('/keys.json', keysJson(attestations.keys));
      files += attestations.files.length + 1;
    }
    // The time-stamp roots the config pins, as its loader read them: a stranger checks the anchors with them (docs/site.md, "Time-stamp anchors").
    for (const root of timestampRootFiles(timestampRootsOf(config))) {
      await out.writeFile(root.path, root.text);
      files++;
    }
    return { outDir: effects.outDir, pages: await countPages(model), files, rendered };
  });
  if (stampKey !== null && effects.kind === 'disk') {
    const listing = await listOutput(built.outDir, { pages: built.pages, count: built.files });
    if (listing !== null) await keepOutputStamp(options.renderCache!, stampKey, listing);
  }
  return built;
}

/**
 * The pages: the kept render of the same model and site code (render-cache.ts), or
 * Astro's render of the pages whose key (page-slices.ts) is not kept, the
 * others taken from the previous output when they re-hash to the kept
 * listing; every rendered file moved under the base path. Returns the page
 * paths Astro rendered (null: the whole kept render was taken).
 */
async function renderSite(model: SiteModel, config: Config, tasks: Awaited<ReturnType<typeof siteTasks>>, out: OutputWriter, effects: BuildEffects, cache: CacheStore | undefined, offline: boolean, bundle: Pick<SiteBuildOptions, 'serverBundle' | 'onRender'>): Promise<string[] | null> {
  const base = basePathOf(config);
  // Every rendered page's links: under the base path, or (an offline copy) relative to the page (offline.ts).
  const links = (html: string, file: string): string => (offline ? offlinePage(html, file) : rebaseHtml(html, base));
  // The report-wide parts of every page (the citation meta tags, the footer), stamped after the render (stamp.ts).
  const stamp = { ...stampContext(model, base), ...(offline ? { offline } : {}) };
  const key = cache === undefined ? null : await renderKey(model);
  const kept = key === null ? null : await readKeptRender(cache!, key);
  if (kept !== null) {
    effects.log('pages: the render of the same model and site code, from the cache');
    for (const file of kept) await out.writeFile(file.path, file.path.endsWith('.html') ? stampPage(stamp, file.path, Buffer.from(links(Buffer.from(file.bytes).toString('utf8'), file.path))).bytes : file.bytes);
    return null;
  }
  const listing = cache === undefined ? null : await readPageListing(cache, effects.outDir);
  const site = await siteCodeIdentity();
  // The config, and for an offline copy the mode too, in every page's key (an online build never takes an offline page).
  const configDigest = digestCanonical((offline ? { config, offline } : config) as unknown as Parameters<typeof digestCanonical>[0]);
  const whole = modelDigest(model);
  let keys = new Map<string, string>();
  // Pages taken from the previous output: path to bytes (each re-hashed against the kept listing), stamped again for this report.
  const reused = new Map<string, Uint8Array>();
  // Where the stamp wrote each page's two parts (for the listing: a later build stamps the page again there).
  const stamped = new Map<string, StampedPage>();
  let assets: [string, Uint8Array][] | null = null;
  const rendered: string[] = [];
  effects.log('rendering pages');
  await renderPages(model, effects.outDir, tasks.details, tasks.transcripts, {
    // The server bundle `npm run compile` kept, when it was made from this site code (astro-steps.ts).
    serverBundle: bundle.serverBundle === null ? null : { dir: bundle.serverBundle ?? SERVER_BUNDLE_DIR, identity: site },
    ...(bundle.onRender === undefined ? {} : { rendered: bundle.onRender }),
    async choose(data) {
      keys = pageKeys(model, { site, config: configDigest, whole, details: data.details, transcripts: data.transcripts });
      for (const path of FIXED_PAGES) if (!keys.has(path)) keys.set(path, pageKeyOfWhole(path, site, configDigest, whole, model));
      if (listing === null) return null;
      for (const [path, pageKey] of keys) {
        const entry = Object.hasOwn(listing.pages, path) ? listing.pages[path]! : null;
        if (entry === null || entry.key !== pageKey || entry.file[0] !== pageFile(path)) continue;
        const bytes = await effects.readPrevious(entry.file[0]);
        if (bytes !== null && bytes.length === entry.file[1] && sha256Hex(bytes) === entry.file[2]) {
          const again = restamp(stamp, bytes, entry.stamp.at, entry.stamp.cite);
          reused.set(path, again.bytes);
          stamped.set(path, again.stamped);
        }
      }
      if (listing.assets.key === site) {
        const files: [string, Uint8Array][] = [];
        for (const [file, size, sha] of listing.assets.files) {
          const bytes = await effects.readPrevious(file);
          if (bytes === null || bytes.length !== size || sha256Hex(bytes) !== sha) break;
          files.push([file, bytes]);
        }
        if (files.length === listing.assets.files.length) assets = files;
      }
      const missing = [...keys.keys()].filter((path) => !reused.has(path));
      if (missing.length === 0 && assets !== null) return 'none';
      effects.log(`pages: ${missing.length} of ${keys.size} to render (the others kept: their key and bytes unchanged)`);
      return new Set(missing);
    },
    async take(dir, asked) {
      if (dir !== null) {
        // Under a base path (site_url with a path), every root-relative link moves under it; an offline copy's are made relative.
        if (offline) await rewriteHtmlFiles(dir, offlinePage);
        else await rebaseSite(dir, base);
        const files = await renderedFiles(dir);
        const pageFiles = new Map([...keys.keys()].map((path) => [pageFile(path), path]));
        for (const file of files) {
          const path = pageFiles.get(file.path);
          if (path !== undefined) {
            rendered.push(path);
            reused.delete(path);
          }
        }
        if (asked === null && cache !== undefined && key !== null && base === '/' && !offline) await keepRender(cache, key, files);
        assets = files.filter((f) => !pageFiles.has(f.path)).map((f) => [f.path, f.bytes]);
        // Every rendered page stamped in place (a page is every .html file: one that is not a page of the site is a bug).
        for (const file of files) {
          if (!file.path.endsWith('.html')) continue;
          const path = pageFiles.get(file.path);
          if (path === undefined) throw new Error(`the render wrote an HTML file that is no page of the site: ${file.path}`);
          const done = stampPage(stamp, file.path, file.bytes);
          stamped.set(path, done.stamped);
          await writeFile(join(dir, ...file.path.split('/')), done.bytes);
        }
        await out.takeDirectory(dir);
      } else {
        for (const [file, bytes] of assets ?? []) await out.writeFile(file, bytes);
      }
      for (const [path, bytes] of reused) await out.writeFile(pageFile(path), bytes);
    },
  });
  if (cache !== undefined) {
    const pages: PageListing['pages'] = {};
    for (const [path, pageKey] of keys) {
      const bytes = await out.written(pageFile(path));
      const at = stamped.get(path);
      if (bytes !== null && at !== undefined) pages[path] = { key: pageKey, file: [pageFile(path), bytes.length, sha256Hex(bytes)], stamp: at };
    }
    const assetFiles = (assets ?? []) as [string, Uint8Array][];
    await keepPageListing(cache, effects.outDir, { pages, assets: { key: site, files: assetFiles.map(([file, bytes]) => [file, bytes.length, sha256Hex(bytes)]) } });
  }
  return rendered.sort();
}

/** The stamp's report-wide inputs (stamp.ts): the site's URL and title, the model's date, the current report. */
export function stampContext(model: SiteModel, base: string): StampContext {
  const r = model.report;
  return { siteUrl: model.siteUrl, siteTitle: model.title, date: model.date, reportId: r.report_id, evidenceDate: r.evidence_date, generator: { name: r.generator.name, version: r.generator.version }, base };
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The key of a fixed page missing from the sitemap's list (/methodology/): the whole model. */
function pageKeyOfWhole(path: string, site: string, config: string, whole: string, model: SiteModel): string {
  return `sha256:${createHash('sha256').update(JSON.stringify([PAGE_KEY_FORMAT, site, config, path, { layout: layoutSlice(model), whole }])).digest('hex')}`;
}
