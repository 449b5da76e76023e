/**
 * The machine-readable files of a site, written beside the pages:
 * report.json, cohorts/<hex>.json, badges/<cohort-hex>.svg, the evidence (blobs, manifests, listings:
 * publish.ts), leaderboard.csv, feed.xml and sitemap.xml; and the list of
 * the site's page paths.
 */
import { join } from 'node:path';
import { canonicalJson } from '../../json/canonical.ts';
import type { RetainedReport } from '../../history/retained-reports.ts';
import type { Manifest } from '../../schema/manifest.ts';
import { hexOf } from '../views/format.ts';
import type { SiteModel } from '../model/model.ts';
import { listingText, type Published, type PublishedBundle } from '../model/published.ts';
import type { OutputWriter } from './effects.ts';
import { sitePagePaths } from '../model/page-paths.ts';
import { atomFeed, changesJson, historyJson, leaderboardCsv, xmlEscape } from '../model/data-texts.ts';
import { absolute } from '../model/view.ts';
import { SCORECARD_PATH } from '../model/claims.ts';
import { badgePath, badgeSvg } from '../views/badge.ts';

export { atomFeed, changesJson, historyJson, leaderboardCsv };

export async function countPages(model: SiteModel): Promise<number> {
  return sitePaths(model).length;
}

/**
 * report.json, cohorts/<hex>.json, the evidence (blobs, manifests, listings: publish.ts), leaderboard.csv, sitemap.xml,
 * and the score card (FORMAT.md 11) at /scorecard.json, the config's file byte for byte, when there is one.
 */
export async function writeDataFiles(
  model: SiteModel,
  published: Published,
  retained: readonly RetainedReport[],
  out: OutputWriter,
  manifests: readonly Manifest[] = [],
  scorecard: Uint8Array | null = null,
): Promise<number> {
  let count = 0;
  const put = async (path: string, bytes: string | Uint8Array) => {
    await out.writeFile(path, bytes);
    count++;
  };
  await put('/report.json', `${canonicalJson(model.report)}\n`);
  for (const cohort of model.report.cohorts) await put(`/cohorts/${hexOf(cohort.cohort_id)}.json`, canonicalJson(cohort));
  // Each cohort's badge (src/site/views/badge.ts): its figures, the report's short id, and whether this site publishes a valid signature of it.
  const signed = reportSigned(model);
  for (const cohort of model.report.cohorts) await put(badgePath(cohort.cohort_id), badgeSvg(model.report, cohort, signed));
  count += await writeEvidenceTo(published.bundles, out);
  for (const r of retained) await put(`/reports/${r.hex}.json`, r.bytes);
  await put('/changes.json', changesJson(model));
  // The retained manifests the append-only check compared with, so a stranger re-runs it (FORMAT.md 8).
  for (const m of manifests) await put(`/reports/manifests/${hexOf(m.bundle_id)}.json`, `${canonicalJson(m)}\n`);
  await put('/history.json', historyJson(model, manifests));
  await put('/feed.xml', atomFeed(model));
  await put('/leaderboard.csv', leaderboardCsv(model));
  await put('/sitemap.xml', sitemap(model));
  if ((scorecard === null) !== (model.scorecard === null)) throw new Error('the score card to publish is not the site model\'s');
  if (scorecard !== null) await put(SCORECARD_PATH, scorecard);
  return count;
}

/** True when the site publishes a signature of its current report that checked at build time (signatures.ts): what its badges say. */
export function reportSigned(model: Pick<SiteModel, 'report' | 'signatures'>): boolean {
  return (model.signatures[hexOf(model.report.report_id)] ?? []).some((s) => s.valid);
}

/** Every page of the site (page-paths.ts). */
export const sitePaths = sitePagePaths;

function sitemap(model: SiteModel): string {
  const urls = sitePaths(model).map((p) => `  <url><loc>${xmlEscape(absolute(model, p))}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

/**
 * The evidence through the build's effects (effects.ts), as publish.ts
 * writeEvidence writes it into a directory: each distinct blob once at
 * /blobs/<hex> (read without following a link and checked against the
 * digest and size verification saw), each bundle's manifest.json (the
 * blob's bytes) and files.json.
 */
export async function writeEvidenceTo(bundles: readonly Pick<PublishedBundle, 'dirHex' | 'content_digest' | 'sourceDir' | 'entries' | 'files'>[], out: OutputWriter): Promise<number> {
  const written = new Set<string>();
  let count = 0;
  for (const bundle of bundles) {
    for (const file of bundle.files) {
      const hex = hexOf(file.sha256);
      if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a SHA-256 digest: ${JSON.stringify(file.sha256)}`);
      if (written.has(hex)) continue;
      await out.copyEvidence(join(bundle.sourceDir, ...file.path.split('/')), `/blobs/${hex}`, file.sha256, file.bytes);
      written.add(hex);
      count++;
    }
    const manifest = bundle.files.find((f) => f.path === 'manifest.json');
    if (manifest) {
      const bytes = await out.written(`/blobs/${hexOf(manifest.sha256)}`);
      if (bytes === null) throw new Error(`the blob of ${bundle.dirHex}'s manifest.json was not written`);
      await out.writeFile(`/bundles/${bundle.dirHex}/manifest.json`, bytes);
      count++;
    }
    await out.writeFile(`/bundles/${bundle.dirHex}/files.json`, listingText(bundle.content_digest, bundle.entries));
    count++;
  }
  return count;
}
