/** leaderboard.csv: RFC 4180 quoting, and cells a spreadsheet would run as formulas are neutralised. */
import { describe, expect, it } from 'vitest';
import { leaderboardCsv } from '../../src/site/data-files.ts';
import type { SiteModel } from '../../src/site/model.ts';
import type { ReportCohort } from '../../src/report/schema.ts';

function modelWith(model: string, agent: string): SiteModel {
  const cohort = {
    cohort_id: 'sha256:c',
    rank: 1,
    subject: { model, agent: { name: agent, version: '1' }, role: 'candidate' },
    headline: { resolved: 1, graded: 2, rate: 0.5, wilson: [0.1, 0.9] },
    delta: null,
    classes: null,
    verdict: null,
    cost: { currency: 'USD', micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0 },
    attempts: 2,
  } as unknown as ReportCohort;
  return { report: { boards: [{ board_id: 'sha256:b', cohorts: ['sha256:c'] }], cohorts: [cohort] }, boardOrder: [0], cohortIndex: { 'sha256:c': 0 } } as unknown as SiteModel;
}

const row = (csv: string) => csv.split('\r\n')[1]!;

describe('leaderboardCsv', () => {
  it.each([
    ['=HYPERLINK("http://evil")', `"'=HYPERLINK(""http://evil"")"`],
    ['+1+1', `"'+1+1"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\tcmd', `"'\tcmd"`],
  ])('a model named %j is quoted and prefixed: %s', (name, cell) => {
    expect(row(leaderboardCsv(modelWith(name, 'loop'))).split(',').slice(3, 4).join()).toBe(cell);
  });

  it('commas, quotes and line breaks are quoted, never split a row', () => {
    const csv = leaderboardCsv(modelWith('a,b "c"\nd', 'x\ry'));
    expect(csv.split('\r\n')).toHaveLength(3);
    expect(csv).toContain('"a,b ""c""\nd","x\ry"');
  });

  it('ordinary values are left alone', () => {
    expect(row(leaderboardCsv(modelWith('acme/mini-2026-08-01', 'loop')))).toMatch(/^sha256:b,1,sha256:c,acme\/mini-2026-08-01,loop,1,candidate,1,2,0\.5,0\.1,0\.9,/);
  });
});

describe('numbers', () => {
  it('a negative delta stays a number (not prefixed), a text that merely starts like one does not', () => {
    const model = modelWith('m', 'a');
    const cohort = model.report.cohorts[0]! as unknown as { delta: unknown };
    cohort.delta = { rate: -0.125, interval: [-0.5, 1e-7] };
    const cells = row(leaderboardCsv(model)).split(',');
    expect(cells.slice(12, 15)).toEqual(['-0.125', '-0.5', '1e-7']);
    expect(row(leaderboardCsv(modelWith('-1+cmd', 'a'))).split(',')[3]).toBe(`"'-1+cmd"`);
  });
});
