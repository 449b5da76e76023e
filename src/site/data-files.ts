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
import { hexOf, moneyText } from './format.ts';
import type { SiteModel } from './model.ts';
import { writeEvidence, type Published } from './publish.ts';
import { absolute, boardsOf, cohortOf } from './view.ts';
import { boardTitle } from './board-names.ts';
import { transcriptPath } from './transcripts.ts';
import { hasUsableGrades } from './usable-grades.ts';
import { taskPath } from './task-key.ts';
import { reportChanges, UNCHECKED } from './report-changes.ts';

export async function countPages(model: SiteModel): Promise<number> {
  return sitePaths(model).length;
}

/** report.json, cohorts/<hex>.json, the evidence (blobs, manifests, listings: publish.ts), leaderboard.csv, sitemap.xml. */
export async function writeDataFiles(model: SiteModel, published: Published, retained: readonly RetainedReport[], dir: string): Promise<number> {
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
  await put('/feed.xml', atomFeed(model));
  await put('/leaderboard.csv', leaderboardCsv(model));
  await put('/sitemap.xml', sitemap(model));
  return count;
}

/** A plain decimal number (our own numbers, e.g. a negative delta): never a formula, left as it is. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$/;

function csvField(value: string): string {
  const formula = /^[=+\-@\t\r]/.test(value) && !PLAIN_NUMBER.test(value);
  return /[",\n\r]/.test(value) || formula ? `"${(formula ? `'${value}` : value).replace(/"/g, '""')}"` : value;
}

/**
 * The leaderboard as CSV: one row per cohort, boards in display order (cells that could be formulas are neutralised).
 * Columns are only ever appended (board_title and ledger_name came last), so a column keeps its position.
 */
export function leaderboardCsv(model: SiteModel): string {
  const rows = [['board_id', 'rank', 'cohort_id', 'model', 'agent', 'agent_version', 'role', 'resolved', 'graded', 'rate', 'wilson_low', 'wilson_high', 'delta', 'delta_low', 'delta_high', 'improved', 'regressed', 'verdict', 'cost', 'attempts', 'board_title', 'ledger_name', 'usable_grades']];
  for (const board of boardsOf(model)) {
    const title = boardTitle(model.report, board);
    for (const id of board.cohorts) {
      const c = cohortOf(model, id);
      // Without one usable grade the rate and its interval measure nothing (usable-grades.ts): empty, never 0.
      const usable = hasUsableGrades(c);
      rows.push([
        board.board_id,
        String(c.rank),
        c.cohort_id,
        c.subject.model,
        c.subject.agent.name,
        c.subject.agent.version,
        c.subject.role,
        String(c.headline.resolved),
        String(c.headline.graded),
        c.headline.rate === null || !usable ? '' : String(c.headline.rate),
        c.headline.wilson && usable ? String(c.headline.wilson[0]) : '',
        c.headline.wilson && usable ? String(c.headline.wilson[1]) : '',
        c.delta === null || c.delta.rate === null ? '' : String(c.delta.rate),
        c.delta?.interval ? String(c.delta.interval[0]) : '',
        c.delta?.interval ? String(c.delta.interval[1]) : '',
        c.classes ? String(c.classes.improved) : '',
        c.classes ? String(c.classes.regressed) : '',
        c.verdict ?? '',
        moneyText(c.cost, c.attempts),
        String(c.attempts),
        title,
        board.ledger.name,
        usable ? 'yes' : 'no',
      ]);
    }
  }
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
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

/**
 * /changes.json: what changed between reports, as the pages say it: every
 * retained report (in the history's order) and the current one when it is not
 * retained, each with the report it is compared with, the diff and its
 * summary. verify.mjs recomputes each diff from the two published reports.
 */
export function changesJson(model: SiteModel): string {
  const changes = reportChanges(model);
  const currentHex = hexOf(model.report.report_id);
  const entries = model.retained.map((r) => ({ hex: r.hex, c: changes.retained.get(r.hex)! }));
  if (!changes.retained.has(currentHex)) entries.push({ hex: currentHex, c: changes.current });
  const reports = entries
    .filter((e) => e.c.summary !== UNCHECKED)
    .map((e) => ({ report: e.hex, previous: e.c.previous, summary: e.c.summary, diff: e.c.diff }));
  return `${canonicalJson({ schema: 'ledgerboard.changes.v1', reports })}\n`;
}

/** Atom feed: one entry per retained report, dated by its evidence, never by the build clock. */
export function atomFeed(model: SiteModel): string {
  const dated = model.retained.filter((r) => r.report !== null);
  const changes = reportChanges(model).retained;
  const updated = dated.at(-1)?.report?.evidence_date ?? model.date ?? '1970-01-01T00:00:00Z';
  const entries = [...dated].reverse().map((r) => {
    const report = r.report!;
    const url = absolute(model, `/reports/${r.hex}/`);
    return [
      '  <entry>',
      `    <id>urn:sha256:${r.hex}</id>`,
      `    <title>${xmlEscape(`${report.config.title}: report ${r.hex.slice(0, 12)}`)}</title>`,
      `    <updated>${xmlEscape(report.evidence_date ?? updated)}</updated>`,
      `    <link href="${xmlEscape(url)}"/>`,
      `    <summary>${xmlEscape(`${report.boards.length} boards, ${report.cohorts.length} cohorts, evidence up to ${report.evidence_date ?? 'n/a'}${r.problems.length ? '; the retained file does not re-derive' : ''}; what changed: ${changes.get(r.hex)!.summary}`)}</summary>`,
      '  </entry>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <title>${xmlEscape(model.title)}</title>`,
    `  <id>${xmlEscape(model.siteUrl)}</id>`,
    `  <updated>${xmlEscape(updated)}</updated>`,
    `  <link rel="self" href="${xmlEscape(absolute(model, '/feed.xml'))}"/>`,
    `  <link href="${xmlEscape(model.siteUrl)}"/>`,
    `  <author><name>${xmlEscape(model.title)}</name></author>`,
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

function sitemap(model: SiteModel): string {
  const urls = sitePaths(model).map((p) => `  <url><loc>${xmlEscape(absolute(model, p))}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}
