/**
 * The machine-readable texts a site derives from its report alone (and the
 * retained reports): leaderboard.csv, changes.json and the Atom feed. Pure,
 * so the build (data-files.ts) and a stranger's re-derivation (src/rederive,
 * bundled into verify.mjs and the browser worker) make them with the same
 * code and compare them byte for byte.
 */
import { canonicalJson } from '../../json/canonical.ts';
import { hexOf, moneyText } from '../views/format.ts';
import type { SiteModel } from './model-types.ts';
import { absolute, boardsOf, cohortMoneyOf, cohortOf } from './view.ts';
import { boardTitle } from '../views/board-names.ts';
import { hasUsableGrades } from '../views/usable-grades.ts';
import { reportChanges, UNCHECKED } from './report-changes.ts';
import { importedTime } from '../views/not-recorded.ts';

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
export function leaderboardCsv(model: Pick<SiteModel, 'report' | 'boardOrder' | 'cohortIndex' | 'cohortMoney'>): string {
  const rows = [['board_id', 'rank', 'cohort_id', 'model', 'agent', 'agent_version', 'role', 'resolved', 'graded', 'rate', 'wilson_low', 'wilson_high', 'delta', 'delta_low', 'delta_high', 'improved', 'regressed', 'verdict', 'cost', 'attempts', 'board_title', 'ledger_name', 'usable_grades']];
  for (const board of boardsOf(model)) {
    const title = boardTitle(model.report, board);
    for (const id of board.cohorts) {
      const c = cohortOf(model, id);
      // Without one usable grade the rate and its interval measure nothing (usable-grades.ts): empty, never 0.
      const usable = hasUsableGrades(c);
      rows.push([
        board.board_id,
        // Not ranked without a usable grade, as the board shows "-" (issue 26): an empty field, never rank 1.
        usable ? String(c.rank) : '',
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
        moneyText(c.cost, cohortMoneyOf(model, id).known),
        String(c.attempts),
        title,
        board.ledger.name,
        usable ? 'yes' : 'no',
      ]);
    }
  }
  return `${rows.map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/** Escapes text for XML content and attribute values. */
export function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * /changes.json: what changed between reports, as the pages say it: every
 * retained report (in the history's order) and the current one when it is not
 * retained, each with the report it is compared with, the diff and its
 * summary. verify.mjs recomputes each diff from the two published reports.
 */
export function changesJson(model: Pick<SiteModel, 'report' | 'retained'>): string {
  const changes = reportChanges(model);
  const currentHex = hexOf(model.report.report_id);
  const entries = model.retained.map((r) => ({ hex: r.hex, c: changes.retained.get(r.hex)! }));
  if (!changes.retained.has(currentHex)) entries.push({ hex: currentHex, c: changes.current });
  const reports = entries
    .filter((e) => e.c.summary !== UNCHECKED)
    .map((e) => ({ report: e.hex, previous: e.c.previous, summary: e.c.summary, diff: e.c.diff }));
  return `${canonicalJson({ schema: 'ledgerboard.changes.v1', reports })}\n`;
}

/**
 * /history.json: the retained reports this site publishes (at
 * /reports/<hex>.json), in the history's order, and the retained manifests
 * the append-only check compared with (at /reports/manifests/<hex>.json), so
 * a stranger's re-derivation reads the same history as the build (FORMAT.md 8).
 */
export function historyJson(model: Pick<SiteModel, 'retained'>, manifests: readonly { bundle_id: string }[]): string {
  return `${canonicalJson({ schema: 'ledgerboard.history.v1', reports: model.retained.map((r) => r.hex), manifests: manifests.map((m) => hexOf(m.bundle_id)) })}\n`;
}

/** Atom feed: one entry per retained report, dated by its evidence, never by the build clock. */
export function atomFeed(model: Pick<SiteModel, 'report' | 'retained' | 'date' | 'title' | 'siteUrl'>): string {
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
      `    <summary>${xmlEscape(`${report.boards.length} boards, ${report.cohorts.length} cohorts, evidence up to ${report.evidence_date === null ? 'n/a' : importedTime(report.evidence_date, true)}${r.problems.length ? '; the retained file does not re-derive' : ''}; what changed: ${changes.get(r.hex)!.summary}`)}</summary>`,
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

