/**
 * Badges and embeds (issue 29 item 11, src/site/views/badge.ts) on the demo's
 * report: the URL is the cohort id's hex; the figures are the ones the board
 * table prints (page-figures.ts), the report's short id and the signed state;
 * the SVG is deterministic, accessible and small; evidence text in it and in
 * the embed snippets is escaped; the figures read back.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Report, ReportCohort } from '../../src/report/schema.ts';
import { figuresOf } from '../../src/site/model/page-figures.ts';
import { BADGE_NO_GRADES, badgeEmbed, badgeFigures, badgePath, badgeSvg, readBadgeFigures } from '../../src/site/views/badge.ts';
import { hasUsableGrades } from '../../src/site/views/usable-grades.ts';

const report = JSON.parse(readFileSync(new URL('../golden/demo-report.json', import.meta.url), 'utf8')) as Report;
const absolute = (path: string) => new URL(path.slice(1), 'https://board.example/sub/').href;

/** A copy of a cohort whose subject is hostile text. */
function hostile(c: ReportCohort, model: string): ReportCohort {
  return { ...c, subject: { ...c.subject, model } };
}

describe('a cohort badge', () => {
  it('every demo cohort: /badges/<cohort hex>.svg; rate, interval and rank as the board table prints them; report id; signed state', () => {
    expect(report.cohorts.length).toBeGreaterThanOrEqual(10);
    for (const c of report.cohorts) {
      expect(badgePath(c.cohort_id)).toBe(`/badges/${c.cohort_id.slice(7)}.svg`);
      for (const signed of [false, true]) {
        const svg = badgeSvg(report, c, signed);
        const shown = readBadgeFigures(svg);
        const fig = figuresOf(report, c);
        if (hasUsableGrades(c)) {
          expect(shown.get('rate')).toBe(fig.get('rate').text);
          expect(shown.get('wilson')).toBe(fig.get('wilson').text);
          expect(shown.get('rank')).toBe(fig.get('rank').text);
        } else {
          expect(shown.get('rate')).toBe(BADGE_NO_GRADES);
          expect(shown.has('rank')).toBe(false);
        }
        expect(shown.get('report')).toBe(report.report_id.slice(7, 19));
        expect(shown.get('signed')).toBe(signed ? 'signed' : 'not signed');
        // Deterministic, accessible, small.
        expect(badgeSvg(report, c, signed)).toBe(svg);
        expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="[0-9.]+" height="20" viewBox="0 0 [0-9.]+ 20" role="img" aria-labelledby="badge-title">\n<title id="badge-title">ledgerboard: /);
        expect(Buffer.byteLength(svg)).toBeLessThan(1536);
      }
    }
  });

  it('the width follows the text: the right half is 6.6 px per character plus 12', () => {
    const c = report.cohorts.find(hasUsableGrades)!;
    const svg = badgeSvg(report, c, false);
    const f = badgeFigures(report, c, false);
    const visible = `${f.rate} ${f.wilson} · rank ${f.rank} · report ${f.report} · ${f.signed}`;
    const widths = [...svg.matchAll(/<rect (?:x="[0-9.]+" )?width="([0-9.]+)"/g)].map((m) => Number(m[1]));
    expect(widths).toHaveLength(2);
    expect(widths[1]).toBeCloseTo([...visible].length * 6.6 + 12, 5);
    expect(Number(/<svg [^>]*width="([0-9.]+)"/.exec(svg)![1])).toBeCloseTo(widths[0]! + widths[1]!, 5);
  });

  it('a hostile subject: escaped in <title>, invisible characters as markers, never in the visible text or the URL', () => {
    const c = hostile(report.cohorts[0]!, '<script>alert(1)</script>&"\'\u202e]]>\u0007');
    const svg = badgeSvg(report, c, false);
    const title = /<title id="badge-title">([^<]*)<\/title>/.exec(svg)![1]!;
    expect(title).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;⟨U+202E⟩]]&gt;⟨U+0007⟩');
    // Only our own tags: every '<' opens one of them.
    expect([...svg.matchAll(/<\/?([a-z]+)/g)].map((m) => m[1]).every((t) => ['svg', 'title', 'rect', 'g', 'text', 'tspan'].includes(t!))).toBe(true);
    expect([...svg].filter((ch) => (ch < ' ' && ch !== '\n') || ch === '\u202e')).toEqual([]);
    expect(badgePath(c.cohort_id)).toMatch(/^\/badges\/[0-9a-f]{64}\.svg$/);
    expect(() => badgePath('sha256:../../x')).toThrow(/not a cohort id/);
  });
});

describe('the embed snippets', () => {
  it('HTML and Markdown link the cohort page and the badge by absolute URLs of hex digits; a hostile name is escaped in each', () => {
    const c = hostile(report.cohorts[0]!, 'x"><img src=y onerror=alert(1)>](javascript:alert(1))[');
    const hex = c.cohort_id.slice(7);
    const e = badgeEmbed(report, c, absolute);
    expect(e.page).toBe(`https://board.example/sub/cohorts/${hex}/`);
    expect(e.badge).toBe(`https://board.example/sub/badges/${hex}.svg`);
    expect(e.html).toMatch(new RegExp(`^<a href="https://board\\.example/sub/cohorts/${hex}/"><img src="https://board\\.example/sub/badges/${hex}\\.svg" alt="[^"<>]*"></a>$`));
    expect(e.html).toContain('x&quot;&gt;&lt;img src=y onerror=alert(1)&gt;](javascript:alert(1))[');
    // Markdown: the brackets of the alt text escaped, so it cannot close the image early; the only link targets are ours.
    expect(e.markdown.startsWith('[![ledgerboard badge: x&quot;&gt;&lt;img src=y onerror=alert(1)&gt;\\](javascript:alert(1))\\[')).toBe(true);
    expect(e.markdown.endsWith(`](https://board.example/sub/badges/${hex}.svg)](https://board.example/sub/cohorts/${hex}/)`)).toBe(true);
    expect([...e.markdown.matchAll(/(?<!\\)\]\(([^)]*)\)/g)].map((m) => m[1])).toEqual([e.badge, e.page]);
  });
});
