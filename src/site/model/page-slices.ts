/**
 * Each page's slice of the site model: what the page (with its layout and
 * components) reads, so that a page whose slice, site code and config are
 * those of a page kept from an earlier build is not rendered again
 * (build-site.ts, render-cache.ts page listings).
 *
 * - Every page: the layout's part (src/layouts/Base.astro reads the site's
 *   title and URL). The report-wide parts of every page (the citation meta
 *   tags, the footer: the current report's id, evidence date, generator) are
 *   stamped after the render (src/site/build/stamp.ts) and are in no key.
 * - A board page: its board, title and cohorts, their money (the site facts'
 *   cohortMoney, BoardTable's cost column), source lines, splits, charts,
 *   compare data and task list, the scorecard.
 * - A compare page: its pair, its two cohorts, their money and sides.
 * - A task page (/boards/<hex>/tasks/<key>/): its board entry, the board's
 *   title, the board's cohorts, its task row and the digest of its rows as
 *   written for the render (render.ts writePageData).
 * - A cohort page: its cohort and money, its board and title, what it links
 *   to (incompatible boards, compare pages, earlier boards, task keys), its
 *   source lines, assessments and scorecard ceilings.
 * - A plan page: its bundle (without its index into the report's bundles),
 *   its report entry, history, other claims, and of each board and cohort it
 *   feeds only what the page shows (ids, title, subject, verdict; the
 *   headline and plan count on an imported plan's page).
 * - A retained report page: its report, changes, signatures, whether current.
 * - A transcript page: its transcript row and the digest of its transcript
 *   as written, its board entry and title, its cohort.
 * - A model or agent page (/models/<key>/, /agents/<key>/): its entry
 *   (models.ts), each of its cohorts with its money, its board's title and
 *   origin and the other kind's page it links, each board without it (title,
 *   origin), the score card.
 * - Every page that names a cohort's subject (board, cohort, compare, task
 *   and transcript pages) holds the paths of the model and agent pages it
 *   links: a key can be 64 hex digits when another name shares its first 16
 *   (models.ts subjectKeys).
 * - Every other page (the leaderboard, feeds, indexes): the whole model (the
 *   digest of its lines as the pages receive them: render-cache.ts renderKey).
 *
 * A slice holds what its page reads, no more: a member the page does not show
 * (a board's pairs on a plan page) would render the page again for bytes that
 * do not change.
 *
 * Pure: no disk; the keys are SHA-256 of JSON texts made in a fixed order.
 */
import { createHash } from 'node:crypto';
import { boardTitle, boardTitles } from '../views/board-names.ts';
import { hexOf } from '../views/format.ts';
import type { SiteModel } from './model-types.ts';
import { sitePagePaths } from './page-paths.ts';
import { taskPath } from '../views/task-key.ts';
import { transcriptPath } from './transcripts.ts';
import { boardsOf, cohortMoneyOf, cohortOf, entryOf, hasCohort } from './view.ts';
import { groupedIncompatibilities } from '../../report/schema.ts';
import { feedsOf, incompatibleOf } from '../views/page-names.ts';
import { compareLinks } from '../views/compare-paths.ts';
import { claimsOf, cohortPlanCeilings } from './claims.ts';
import { reportChanges } from './report-changes.ts';
import { hasUsableGrades } from '../views/usable-grades.ts';
import { subjectLinks, subjectPath, type SubjectKind } from './models.ts';

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

/**
 * The layout's part of the model (src/layouts/Base.astro) as rendered: the
 * site's URL and title. The parts of every page that name the report (the
 * citation meta tags, the footer: the current report's id, evidence date and
 * generator, the model's date) are stamped after the render (stamp.ts) and
 * are in no page's key.
 */
export function layoutSlice(model: SiteModel): unknown {
  return { siteUrl: model.siteUrl, title: model.title };
}

/** The slice of every page of the site, by page path (every path of sitePagePaths). */
export function pageSlices(model: SiteModel, inputs: Pick<PageKeyInputs, 'whole' | 'details' | 'transcripts'>): Map<string, unknown> {
  const layout = layoutSlice(model);
  const report = model.report;
  const slices = new Map<string, unknown>();
  const set = (path: string, slice: unknown): void => {
    if (!slices.has(path)) throw new Error(`a page that is not a page of the site: ${path}`);
    slices.set(path, { layout, ...(slice as object) });
  };
  for (const path of sitePagePaths(model)) slices.set(path, { layout, whole: inputs.whole });
  const boards = new Map(report.boards.map((b) => [b.board_id, b]));
  const titleOf = (id: string): string | null => (boards.has(id) ? boardTitle(report, boards.get(id)!) : null);
  const taskKeysOf = (id: string): string[] | null => model.tasks[id]?.tasks.map((t) => t.key) ?? null;
  const card = model.scorecard?.card ?? null;
  const linksOf = (id: string): { model: string; agent: string } => subjectLinks(model.subjects, cohortOf(model, id));
  for (const board of boardsOf(model)) {
    const hex = hexOf(board.board_id);
    const title = boardTitle(report, board);
    const cohorts = board.cohorts.map((id) => cohortOf(model, id));
    // The board page (src/pages/boards/[hex].astro and its components BoardTable, BoardCharts, BoardPairs, BoardTasks).
    const splits = model.splits[board.board_id] ?? [];
    set(`/boards/${hex}/`, {
      board,
      title,
      cohorts,
      // BoardTable's cost column: the site facts' money of each of its cohorts (model.cohortMoney).
      money: board.cohorts.map((id) => cohortMoneyOf(model, id)),
      card,
      sourceLines: board.cohorts.map((id) => model.sourceLines[id] ?? []),
      splits,
      splitBoards: splits.map((x) => (x.other_board === null ? null : [x.other_board, titleOf(x.other_board)])),
      splitCohorts: splits.map((x) => (x.cohorts ?? []).map((id) => (hasCohort(model, id) ? cohortOf(model, id).subject : null))),
      charts: model.charts[board.board_id] ?? null,
      compare: model.compare[board.board_id] ?? null,
      tasks: model.tasks[board.board_id] ?? null,
      subjectLinks: board.cohorts.map(linksOf),
    });
    // Its compare pages (src/pages/boards/[hex]/compare/[a]/[b].astro): the pair, its two cohorts and sides.
    const data = model.compare[board.board_id];
    for (const [key, page] of Object.entries(data?.pages ?? {})) {
      set(`/boards/${hex}/compare/${key}/`, { board, title, page, a: cohortOf(model, page.a), b: cohortOf(model, page.b), money: [cohortMoneyOf(model, page.a), cohortMoneyOf(model, page.b)], sides: [data!.sides[page.a] ?? null, data!.sides[page.b] ?? null], cap: data!.cap, full: data!.full, resolution: data!.resolution, subjectLinks: [linksOf(page.a), linksOf(page.b)] });
    }
    // Its task pages (src/pages/boards/[hex]/tasks/[key].astro).
    for (const task of model.tasks[board.board_id]?.tasks ?? []) {
      set(taskPath(hex, task.key), { board, title, cohorts, task, detail: inputs.details[task.page] ?? null, subjectLinks: board.cohorts.map(linksOf) });
    }
  }
  // Cohort pages (src/pages/cohorts/[hex].astro).
  const grouped = groupedIncompatibilities(report);
  for (const c of report.cohorts) {
    const board = boards.get(c.board_id) ?? null;
    const incompatible = incompatibleOf(grouped, c);
    const compare = board ? compareLinks(board.cohorts, board.board_id, model.compare[board.board_id]?.pages ?? {}, c.cohort_id) : null;
    const earlier = c.regrade?.earlier ?? [];
    const taskBoards = [...new Set([c.board_id, ...earlier.map((e) => e.board_id)])].sort();
    set(`/cohorts/${hexOf(c.cohort_id)}/`, {
      c,
      money: cohortMoneyOf(model, c.cohort_id),
      board,
      title: board === null ? null : boardTitle(report, board),
      incompatible,
      incompatibleBoards: incompatible.boards.map((g) => [titleOf(g.board_id), g.cohorts.map((id) => (hasCohort(model, id) ? cohortOf(model, id).subject : null))]),
      compare,
      compareCohorts: compare?.links.map((l) => cohortOf(model, l.id).subject) ?? [],
      earlier: earlier.map((e) => [hasCohort(model, e.cohort_id), boards.has(e.board_id)]),
      taskKeys: taskBoards.map((id) => [id, taskKeysOf(id)]),
      sourceLines: model.sourceLines[c.cohort_id] ?? [],
      card,
      assessments: model.assessments[c.cohort_id] ?? [],
      ceilings: card === null || claimsOf(c) === null ? [] : cohortPlanCeilings(card, model, c),
      subjectLinks: linksOf(c.cohort_id),
    });
  }
  // Plan pages (src/pages/plans/[hex].astro): the bundle (its page holds the plan as shown), its report entry, history and feeds.
  for (const [hex, i] of Object.entries(model.plans)) {
    const b = model.bundles[i]!;
    const feeds = b.counted && b.plan_id !== null ? feedsOf(report, b.plan_id) : [];
    // The bundle without its index into the report's bundles (an added bundle moves it; the entry itself is in the slice).
    const { report: _index, ...bundle } = b;
    set(`/plans/${hex}/`, {
      b: bundle,
      entry: entryOf(model, b),
      history: model.history.byPlan[hex] ?? [],
      others: (model.otherClaims[hex] ?? []).map((n) => { const { report: _i, ...o } = model.bundles[n]!; return o; }),
      // What the page shows of each board and cohort it feeds (not the whole board or cohort, which an added bundle on
      // the same board changes where the page does not: its pairs, drift, the cohort's pooled counts): the board's id
      // and title, each cohort's id, subject and verdict, and on an imported plan's page its headline and plan count.
      feeds: feeds.map((f) => [
        f.board.board_id,
        boardTitle(report, f.board),
        f.cohorts.map((c) => [c.cohort_id, c.subject, c.verdict, ...(b.page?.imported ? [hasUsableGrades(c), c.headline, c.plans.length] : [])]),
      ]),
    });
  }
  // Retained report pages (src/pages/reports/[hex].astro, its Signed and ReportChanges).
  const changes = model.retained.length === 0 ? null : reportChanges(model).retained;
  for (const r of model.retained) {
    set(`/reports/${r.hex}/`, { r, changes: changes?.get(r.hex) ?? null, signatures: model.signatures[r.hex] ?? [], current: report.report_id === `sha256:${r.hex}` });
  }
  for (const [n, t] of model.transcripts.entries()) {
    const board = boards.get(t.board_id) ?? null;
    set(transcriptPath(t.bundle_hex, t.key), { t, board, title: board === null ? null : boardTitle(report, board), cohort: cohortOf(model, t.cohort_id), transcript: inputs.transcripts[n] ?? null, subjectLinks: linksOf(t.cohort_id) });
  }
  // Model and agent pages (src/pages/models/[key].astro, src/pages/agents/[key].astro: src/components/SubjectPage.astro).
  const origin = (id: string): string | null => boards.get(id)?.key.origin ?? null;
  const titles = boardTitles(report);
  for (const [kind, list] of [['model', model.subjects.models], ['agent', model.subjects.agents]] as [SubjectKind, typeof model.subjects.models][]) {
    for (const subject of list) {
      set(subjectPath(kind, subject.key), {
        subject,
        cohorts: subject.cohorts.map((id) => {
          const c = cohortOf(model, id);
          return [c, cohortMoneyOf(model, id), titles.get(c.board_id) ?? null, origin(c.board_id), linksOf(id)];
        }),
        missing: subject.missing.map((id) => [titles.get(id) ?? null, origin(id)]),
        card,
      });
    }
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
