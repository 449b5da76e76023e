/**
 * Each page's slice of the site model: what the page (with its layout and
 * components) reads, so that a page whose slice, site code and config are
 * those of a page kept from an earlier build is not rendered again
 * (build-site.ts, render-cache.ts page listings).
 *
 * - Every page: the layout's part (src/layouts/Base.astro reads the site's
 *   title and URL, the current report's id, evidence date and generator,
 *   and the model's date for the footer and the citation). So any change to
 *   the report id (a new bundle, anything the report holds) changes every
 *   page's key: the footer cites the current report on every page.
 * - A task page (/boards/<hex>/tasks/<key>/): its board entry, the board's
 *   title, the board's cohorts, its task row and the digest of its rows as
 *   written for the render (render.ts writePageData).
 * - A transcript page: its transcript row and the digest of its transcript
 *   as written, its board entry and title, its cohort.
 * - Every other page: the whole model (the digest of its lines as the pages
 *   receive them: render-cache.ts renderKey). Conservative: those pages read
 *   report-wide parts (the leaderboard, history, compare pages' board data).
 *
 * Pure: no disk; the keys are SHA-256 of JSON texts made in a fixed order.
 */
import { createHash } from 'node:crypto';
import { boardTitle } from './board-names.ts';
import { hexOf } from './format.ts';
import type { SiteModel } from './model-types.ts';
import { sitePagePaths } from './page-paths.ts';
import { taskPath } from './task-key.ts';
import { transcriptPath } from './transcripts.ts';
import { boardsOf, cohortOf } from './view.ts';

/** The name of the key format (in every key). */
export const PAGE_KEY_FORMAT = 'ledgerboard.page-key.v1';

/** What every page's key holds besides its slice. */
export interface PageKeyInputs {
  /** The site code identity (render-cache.ts siteCodeIdentity). */
  site: string;
  /** The digest of the config. */
  config: string;
  /** The digest of the whole model's lines (render-cache.ts modelDigest). */
  whole: string;
  /** The digest of each task page's data as written for the render, by page number. */
  details: readonly string[];
  /** The digest of each transcript page's data as written for the render, by page number. */
  transcripts: readonly string[];
}

/** The layout's part of the model (src/layouts/Base.astro): in every page's slice. */
export function layoutSlice(model: SiteModel): unknown {
  const r = model.report;
  return { siteUrl: model.siteUrl, title: model.title, date: model.date, report_id: r.report_id, evidence_date: r.evidence_date, generator: r.generator };
}

/** The slice of every page of the site, by page path (every path of sitePagePaths). */
export function pageSlices(model: SiteModel, inputs: Pick<PageKeyInputs, 'whole' | 'details' | 'transcripts'>): Map<string, unknown> {
  const layout = layoutSlice(model);
  const slices = new Map<string, unknown>();
  for (const path of sitePagePaths(model)) slices.set(path, { layout, whole: inputs.whole });
  for (const board of boardsOf(model)) {
    const hex = hexOf(board.board_id);
    const title = boardTitle(model.report, board);
    const cohorts = board.cohorts.map((id) => cohortOf(model, id));
    for (const task of model.tasks[board.board_id]?.tasks ?? []) {
      const path = taskPath(hex, task.key);
      if (!slices.has(path)) throw new Error(`a task page that is not a page of the site: ${path}`);
      slices.set(path, { layout, board, title, cohorts, task, detail: inputs.details[task.page] ?? null });
    }
  }
  for (const [n, t] of model.transcripts.entries()) {
    const path = transcriptPath(t.bundle_hex, t.key);
    if (!slices.has(path)) throw new Error(`a transcript page that is not a page of the site: ${path}`);
    const board = model.report.boards.find((b) => b.board_id === t.board_id) ?? null;
    slices.set(path, { layout, t, board, title: board === null ? null : boardTitle(model.report, board), cohort: cohortOf(model, t.cohort_id), transcript: inputs.transcripts[n] ?? null });
  }
  return slices;
}

/** The key of every page: SHA-256 of the format, the site code identity, the config's digest and the page's slice. */
export function pageKeys(model: SiteModel, inputs: PageKeyInputs): Map<string, string> {
  const keys = new Map<string, string>();
  for (const [path, slice] of pageSlices(model, inputs)) {
    keys.set(path, `sha256:${createHash('sha256').update(JSON.stringify([PAGE_KEY_FORMAT, inputs.site, inputs.config, path, slice])).digest('hex')}`);
  }
  return keys;
}

/** The file a page is written to: `/` is `index.html`, `/a/b/` is `a/b/index.html`. */
export function pageFile(path: string): string {
  return `${path.replace(/^\/|\/$/g, '')}${path === '/' ? '' : '/'}index.html`;
}
