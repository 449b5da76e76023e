/**
 * Every page of the site, by path (what the sitemap lists and the render
 * makes). Pure: read from the site model alone.
 */
import { hexOf } from '../views/format.ts';
import type { SiteModel } from './model-types.ts';
import { taskPath } from '../views/task-key.ts';
import { transcriptPath } from './transcripts.ts';
import { boardsOf } from './view.ts';
import { subjectPath } from './models.ts';

/** Every page of the site. */
export function sitePagePaths(model: SiteModel): string[] {
  return [
    '/',
    ...boardsOf(model).map((b) => `/boards/${hexOf(b.board_id)}/`),
    ...boardsOf(model).flatMap((b) => Object.keys(model.compare[b.board_id]?.pages ?? {}).map((key) => `/boards/${hexOf(b.board_id)}/compare/${key}/`)),
    ...boardsOf(model).flatMap((b) => (model.tasks[b.board_id]?.tasks ?? []).map((t) => taskPath(hexOf(b.board_id), t.key))),
    ...model.transcripts.map((t) => transcriptPath(t.bundle_hex, t.key)),
    ...model.report.cohorts.map((c) => `/cohorts/${hexOf(c.cohort_id)}/`),
    ...Object.keys(model.plans).map((hex) => `/plans/${hex}/`),
    '/models/',
    ...model.subjects.models.map((s) => subjectPath('model', s.key)),
    ...model.subjects.agents.map((s) => subjectPath('agent', s.key)),
    '/incompatibilities/',
    '/rejected/',
    // Only on a site whose report carries a freeze log (issue 30): src/pages/freeze-log/[...log].astro.
    ...(model.freezeLog === null ? [] : ['/freeze-log/']),
    '/verify/',
    '/reports/',
    ...model.retained.map((r) => `/reports/${r.hex}/`),
  ];
}

/** The pages Astro renders whenever it runs (pages without getStaticPaths: one each, never filtered). */
export const FIXED_PAGES: readonly string[] = ['/', '/methodology/', '/incompatibilities/', '/rejected/', '/verify/', '/reports/', '/models/'];
