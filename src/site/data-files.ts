/**
 * The machine-readable files of a site, written beside the pages:
 * report.json, cohorts/<hex>.json, the evidence (blobs, manifests, listings:
 * publish.ts), leaderboard.csv, feed.xml and sitemap.xml; and the list of
 * the site's page paths.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { canonicalJson } from '../json/canonical.ts';
import type { RetainedReport } from '../history/retained-reports.ts';
import type { Manifest } from '../schema/manifest.ts';
import { hexOf } from './format.ts';
import type { SiteModel } from './model.ts';
import { writeEvidence, type Published } from './publish.ts';
import { atomFeed, changesJson, historyJson, leaderboardCsv, xmlEscape } from './data-texts.ts';
import { absolute, boardsOf } from './view.ts';
import { transcriptPath } from './transcripts.ts';
import { taskPath } from './task-key.ts';
import { SCORECARD_PATH } from './claims.ts';

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
  dir: string,
  manifests: readonly Manifest[] = [],
  scorecard: Uint8Array | null = null,
): Promise<number> {
  let count = 0;
  const put = async (path: string, bytes: string | Uint8Array) => {
    const file = join(dir, ...path.split('/').filter(Boolean));
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, bytes);
    count++;
  };
  await put('/report.json', `${canonicalJson(model.report)}\n`);
  for (const cohort of model.report.cohorts) await put(`/cohorts/${hexOf(cohort.cohort_id)}.json`, canonicalJson(cohort));
  count += await writeEvidence(published.bundles, dir);
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

/** Every page of the site. */
export function sitePaths(model: SiteModel): string[] {
  return [
    '/',
    ...boardsOf(model).map((b) => `/boards/${hexOf(b.board_id)}/`),
    ...boardsOf(model).flatMap((b) => Object.keys(model.compare[b.board_id]?.pages ?? {}).map((key) => `/boards/${hexOf(b.board_id)}/compare/${key}/`)),
    ...boardsOf(model).flatMap((b) => (model.tasks[b.board_id]?.tasks ?? []).map((t) => taskPath(hexOf(b.board_id), t.key))),
    ...model.transcripts.map((t) => transcriptPath(t.bundle_hex, t.key)),
    ...model.report.cohorts.map((c) => `/cohorts/${hexOf(c.cohort_id)}/`),
    ...Object.keys(model.plans).map((hex) => `/plans/${hex}/`),
    '/incompatibilities/',
    '/rejected/',
    '/verify/',
    '/reports/',
    ...model.retained.map((r) => `/reports/${r.hex}/`),
  ];
}

function sitemap(model: SiteModel): string {
  const urls = sitePaths(model).map((p) => `  <url><loc>${xmlEscape(absolute(model, p))}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}
