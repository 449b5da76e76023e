/**
 * The files a site derives from its report, made again from the re-derived
 * report with the build's own functions (src/site/build/data-files.ts) and
 * compared byte for byte with what the site serves: every cohort's JSON,
 * leaderboard.csv, changes.json and the Atom feed. A difference names the
 * file and its first differing line.
 */
import { canonicalJson } from '../json/canonical.ts';
import { checkRetained, type RetainedReport } from '../history/retained-reports.ts';
import { boardsInOrder } from '../report/board-order.ts';
import type { Report } from '../report/schema.ts';
import { cohortsMoney } from '../facts/money.ts';
import { basePathOf } from '../config/schema.ts';
import { atomFeed, changesJson, leaderboardCsv } from '../site/build/data-files.ts';
import type { SiteModel } from '../site/model/model-types.ts';
import { hexOf } from '../site/views/format.ts';
import type { RederiveLine, SiteGet } from './types.ts';

/** What the derived files are made from: the report and the retained reports, as the build's model holds them. */
export type DerivedModel = Pick<SiteModel, 'report' | 'boardOrder' | 'cohortIndex' | 'cohortMoney' | 'retained' | 'date' | 'title' | 'siteUrl'>;

/** The model the derived files need, from a report and the retained reports (in the history's order). */
export function derivedModel(report: Report, retained: readonly RetainedReport[]): DerivedModel {
  const boardIndex = new Map(report.boards.map((b, i) => [b.board_id, i]));
  return {
    title: report.config.title,
    siteUrl: new URL(basePathOf(report.config), report.config.site_url).href,
    report,
    boardOrder: boardsInOrder(report).map((b) => boardIndex.get(b.board_id)!),
    cohortIndex: Object.fromEntries(report.cohorts.map((c, i) => [c.cohort_id, i])),
    // The cohorts' money facts as the pipeline computes them for the build (src/facts/money.ts).
    cohortMoney: cohortsMoney(report),
    retained: retained.map((r) => ({ hex: r.hex, report: r.report, problems: r.problems, cohortMoney: r.report === null ? [] : cohortsMoney(r.report), withheld: null })),
    // The build falls back to SOURCE_DATE_EPOCH for a report without evidence; a stranger cannot know it (docs/site.md).
    date: report.evidence_date ?? null,
  };
}

/** The retained reports the site lists in /history.json, read and checked as the build reads them (history order). */
export async function readRetainedFromSite(get: SiteGet, hexes: readonly string[]): Promise<RetainedReport[]> {
  const reports: RetainedReport[] = [];
  for (const hex of hexes) {
    const bytes = await get(`/reports/${hex}.json`);
    if (bytes === null) throw new Error(`/reports/${hex}.json is listed in /history.json but not published`);
    reports.push({ hex, bytes, ...checkRetained(hex, bytes) });
  }
  return reports.sort((a, b) => {
    const da = a.report?.evidence_date ?? '';
    const db = b.report?.evidence_date ?? '';
    return da < db ? -1 : da > db ? 1 : a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0;
  });
}

const decoder = new TextDecoder();

/** Where two texts first differ: line and column, and both sides around it (a one-line JSON file differs deep inside its line). */
export function firstLineDifference(published: string, derived: string): string {
  const a = published.split('\n');
  const b = derived.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined || y === undefined) return `line ${i + 1}: published ${x === undefined ? '(no such line)' : JSON.stringify(x.slice(0, 120))}, re-derived ${y === undefined ? '(no such line)' : JSON.stringify(y.slice(0, 120))}`;
    let c = 0;
    while (c < x.length && c < y.length && x[c] === y[c]) c++;
    const from = Math.max(0, c - 40);
    const around = (t: string) => `${from > 0 ? '…' : ''}${t.slice(from, c + 80)}${t.length > c + 80 ? '…' : ''}`;
    return `line ${i + 1}, column ${c + 1}: published ${JSON.stringify(around(x))}, re-derived ${JSON.stringify(around(y))}`;
  }
  return 'the bytes differ';
}

/** Compares each derived file the site serves with the one made from the re-derived report. */
export async function checkDerivedFiles(get: SiteGet, model: DerivedModel, onFile?: () => void): Promise<RederiveLine[]> {
  const lines: RederiveLine[] = [];
  const files: { path: string; check: string; text: string; optional?: true }[] = [
    ...model.report.cohorts.map((c) => ({ path: `/cohorts/${hexOf(c.cohort_id)}.json`, check: 'cohort json', text: canonicalJson(c) })),
    { path: '/leaderboard.csv', check: 'csv', text: leaderboardCsv(model) },
    { path: '/changes.json', check: 'changes', text: changesJson(model), optional: true },
    { path: '/feed.xml', check: 'feed', text: atomFeed(model) },
  ];
  let matching = 0;
  for (const file of files) {
    const bytes = await get(file.path);
    onFile?.();
    if (bytes === null) {
      // Nothing published, nothing to mislead with: said, not a mismatch.
      lines.push({ status: 'info', check: file.check, subject: file.path, detail: file.optional ? 'not published (a site built before it existed)' : 'not published: nothing to compare' });
      continue;
    }
    const published = decoder.decode(bytes);
    if (published === file.text) {
      matching++;
      if (file.check !== 'cohort json') lines.push({ status: 'ok', check: file.check, subject: file.path, detail: 'is what the re-derived report gives, byte for byte' });
      continue;
    }
    const detail = file.check === 'cohort json' ? `is not the re-derived cohort: ${cohortDifference(published, file.text)}` : `is not what the re-derived report gives: ${firstLineDifference(published, file.text)}`;
    lines.push({ status: 'MISMATCH', check: file.check, subject: file.path, detail });
  }
  const cohorts = model.report.cohorts.length;
  const cohortMismatches = lines.filter((l) => l.check === 'cohort json' && l.status === 'MISMATCH').length;
  if (cohorts > 0 && cohortMismatches === 0) lines.unshift({ status: 'ok', check: 'cohort json', subject: '/cohorts/', detail: `all ${cohorts} cohort files are the re-derived cohorts, byte for byte` });
  void matching;
  return lines;
}

/** The first member where a published cohort file differs from the re-derived cohort. */
function cohortDifference(published: string, derived: string): string {
  try {
    const a = JSON.parse(published) as Record<string, unknown>;
    const b = JSON.parse(derived) as Record<string, unknown>;
    for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
      if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) return `${key}: published ${JSON.stringify(a[key])?.slice(0, 160)}, re-derived ${JSON.stringify(b[key])?.slice(0, 160)}`;
    }
    return 'the bytes differ (not RFC 8785)';
  } catch {
    return 'not JSON';
  }
}
