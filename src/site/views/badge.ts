/**
 * Badges and embeds (issue 29 item 11): per cohort of the current report, a
 * static SVG at `/badges/<cohort-hex>.svg` (the URL is the cohort id's hex,
 * never evidence text) that carries its provenance: the headline rate, its
 * 95% Wilson interval, the rank range on its board, the first 12 hex digits
 * of the report id, and whether the site publishes a valid signature of that
 * report; and the embed snippets (HTML, Markdown) the cohort page offers,
 * whose link goes to the cohort page.
 *
 * Each figure on the badge is a `<tspan data-figure="NAME">TEXT</tspan>`
 * whose TEXT is made here from the report ({@link badgeFigures}); the badge is
 * a pure function of the report, the cohort and the signed state
 * ({@link badgeSvg}), so the build writes it and a verifier
 * (src/rederive/badges.ts, in verify.mjs) makes it again from the re-derived
 * report and compares it byte for byte, naming the figure that differs
 * ({@link readBadgeFigures}).
 *
 * Text from evidence (the subject and board title, only in `<title>`) is
 * shown as pages show it (invisible characters as markers, shortened) and
 * XML-escaped; the visible text is ASCII figures and fixed words. The width
 * is computed from character counts in a monospace font and held by
 * `textLength`, so the bytes never depend on the fonts of the machine.
 * Deterministic, accessible (`role="img"`, `<title>`), under 1.5 KB.
 *
 * Pure: no disk, no clock.
 */
import type { Report, ReportCohort } from '../../report/schema.ts';
import { boardTitle } from './board-names.ts';
import { hexOf, interval, percent, rankText, short, shortIdentity } from './format.ts';
import { text } from './html.ts';
import { subjectName } from './page-names.ts';
import { hasUsableGrades } from './usable-grades.ts';

/** The URL path of a cohort's badge: hex digits only. */
export function badgePath(cohortId: string): string {
  const hex = hexOf(cohortId);
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a cohort id: ${JSON.stringify(cohortId)}`);
  return `/badges/${hex}.svg`;
}

/** The figures of a badge, in the order it shows them. */
export const BADGE_FIGURES = ['rate', 'wilson', 'rank', 'report', 'signed'] as const;
export type BadgeFigure = (typeof BADGE_FIGURES)[number];

/** What a badge says of a cohort without a usable grade (src/site/views/usable-grades.ts): no rate, no rank. */
export const BADGE_NO_GRADES = 'no usable grades';

/**
 * A badge's figures as it prints them: the rate ("57.1%"), the interval
 * ("[34.0, 77.4]"), the rank range ("2-4"), as the board table prints them
 * (src/site/model/page-figures.ts); the report id's first 12 hex digits; and
 * "signed" or "not signed". A cohort without a usable grade shows
 * {@link BADGE_NO_GRADES} for its rate and "-" for its interval and rank, as
 * the board shows it unranked.
 */
export function badgeFigures(report: Pick<Report, 'report_id'>, cohort: ReportCohort, signed: boolean): Record<BadgeFigure, string> {
  const usable = hasUsableGrades(cohort);
  return {
    rate: usable ? percent(cohort.headline.rate) : BADGE_NO_GRADES,
    wilson: usable ? interval(cohort.headline.wilson) : '-',
    rank: usable ? rankText(cohort) : '-',
    report: short(report.report_id),
    signed: signed ? 'signed' : 'not signed',
  };
}

/** Pixels per character at the badge's font size (a monospace advance of 0.6 em at 11 px), and the padding of each half. */
const CHAR = 6.6;
const PAD = 6;
const LABEL = 'ledgerboard';

/** A length as the SVG writes it: at most one decimal, no trailing ".0". */
const px = (n: number): string => String(Math.round(n * 10) / 10);

/** The badge's `<title>`: what it shows, in words, for a screen reader (evidence text as pages show it, at most 200 characters each). */
export function badgeTitle(report: Pick<Report, 'report_id' | 'boards'>, cohort: ReportCohort, signed: boolean): string {
  const f = badgeFigures(report, cohort, signed);
  const board = report.boards.find((b) => b.board_id === cohort.board_id);
  const on = board === undefined ? '' : ` on ${shortIdentity(boardTitle(report, board), 200)}`;
  const figures = f.rate === BADGE_NO_GRADES ? BADGE_NO_GRADES : `headline rate ${f.rate}, 95% Wilson interval ${f.wilson}, rank ${f.rank} on its board`;
  return `ledgerboard: ${shortIdentity(subjectName(cohort), 200)}${on}: ${figures}; report ${f.report}, ${f.signed}`;
}

/** A cohort's badge (see the module comment): the same arguments, the same bytes. */
export function badgeSvg(report: Pick<Report, 'report_id' | 'boards'>, cohort: ReportCohort, signed: boolean): string {
  const f = badgeFigures(report, cohort, signed);
  const fig = (name: BadgeFigure) => `<tspan data-figure="${name}">${text(f[name])}</tspan>`;
  const parts = f.rate === BADGE_NO_GRADES ? [fig('rate')] : [`${fig('rate')} ${fig('wilson')}`, `rank ${fig('rank')}`];
  parts.push(`report ${fig('report')}`, fig('signed'));
  const shown = parts.join(' · ');
  const chars = [...shown.replace(/<[^>]*>/g, '')].length;
  const left = LABEL.length * CHAR + 2 * PAD;
  const right = chars * CHAR + 2 * PAD;
  const width = left + right;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${px(width)}" height="20" viewBox="0 0 ${px(width)} 20" role="img" aria-labelledby="badge-title">`,
    `<title id="badge-title">${text(badgeTitle(report, cohort, signed))}</title>`,
    `<rect width="${px(left)}" height="20" fill="#444"/>`,
    `<rect x="${px(left)}" width="${px(right)}" height="20" fill="${signed ? '#0a5c3e' : '#1d4e79'}"/>`,
    '<g fill="#fff" font-family="DejaVu Sans Mono,Menlo,Consolas,monospace" font-size="11">',
    `<text x="${PAD}" y="14" textLength="${px(LABEL.length * CHAR)}" lengthAdjust="spacingAndGlyphs">${LABEL}</text>`,
    `<text x="${px(left + PAD)}" y="14" textLength="${px(chars * CHAR)}" lengthAdjust="spacingAndGlyphs">${shown}</text>`,
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}

/**
 * The figures a badge's bytes show, by name (the text of each
 * `<tspan data-figure="NAME">`, entities decoded; the first of each name):
 * what a verifier names when a published badge is not the one the report
 * gives. Untrusted bytes in, plain strings out; nothing else is read.
 */
export function readBadgeFigures(svg: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of svg.matchAll(/<tspan data-figure="([a-z_]{1,32})">([^<]{0,200})<\/tspan>/g)) {
    if (!out.has(m[1]!)) out.set(m[1]!, m[2]!.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!));
  }
  return out;
}

/** Text for the alt attribute of an embedded badge and its Markdown brackets: what it is about (the figures are in the image, and change with each report). */
function altText(report: Pick<Report, 'boards'>, cohort: ReportCohort): string {
  const board = report.boards.find((b) => b.board_id === cohort.board_id);
  return `ledgerboard badge: ${shortIdentity(subjectName(cohort), 120)}${board === undefined ? '' : ` on ${shortIdentity(boardTitle(report, board), 120)}`}`;
}

/**
 * The embed snippets of a cohort's badge: an HTML `<a><img></a>` and a
 * Markdown image link, both to the cohort page, with absolute URLs
 * (`absolute` gives one for a site path). The alt text is escaped for
 * each (HTML: & < > " '; Markdown: \ [ ] and the HTML characters, which
 * Markdown renderers pass through as HTML). The URLs are the site's URL and
 * hex digits only.
 */
export function badgeEmbed(report: Pick<Report, 'boards'>, cohort: ReportCohort, absolute: (path: string) => string): { html: string; markdown: string; page: string; badge: string; alt: string } {
  const page = absolute(`/cohorts/${hexOf(cohort.cohort_id)}/`);
  const badge = absolute(badgePath(cohort.cohort_id));
  const alt = altText(report, cohort);
  const html = `<a href="${text(page)}"><img src="${text(badge)}" alt="${text(alt)}"></a>`;
  const markdown = `[![${text(alt).replace(/[\\[\]]/g, (ch) => `\\${ch}`)}](${badge})](${page})`;
  return { html, markdown, page, badge, alt };
}
