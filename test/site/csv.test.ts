/** leaderboard.csv: RFC 4180 quoting, and cells a spreadsheet would run as formulas are neutralised. */
import { describe, expect, it } from 'vitest';
import { leaderboardCsv } from '../../src/site/build/data-files.ts';
import type { SiteModel } from '../../src/site/model/model.ts';
import type { ReportCohort } from '../../src/report/schema.ts';
import { cohortMoney } from '../../src/facts/money.ts';

function modelWith(model: string, agent: string, usable = true): SiteModel {
  const cohort = {
    terminal_classes: { resolved: usable ? 1 : 0, model_failure: 0, safety_failure: 0, timeout: 0, harness_failure: usable ? 0 : 2 },
    grader_failure_reasons: { failed: usable ? 1 : 0, errored: 0, missing: 0 },
    cohort_id: 'sha256:c',
    rank: 1,
    subject: { model, agent: { name: agent, version: '1' }, role: 'candidate' },
    headline: usable ? { resolved: 1, graded: 2, rate: 0.5, wilson: [0.1, 0.9] } : { resolved: 0, graded: 2, rate: 0, wilson: [0, 0.66] },
    delta: null,
    classes: null,
    verdict: null,
    cost: { currency: 'USD', micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0 },
    attempts: 2,
  } as unknown as ReportCohort;
  const board = { board_id: 'sha256:b', cohorts: ['sha256:c'], ledger: { name: 'widget-bugs' }, key: { origin: 'frozen' } };
  // The model carries each cohort's money facts (src/facts/money.ts), as buildSiteModel makes them.
  return { report: { boards: [board], cohorts: [cohort] }, boardOrder: [0], cohortIndex: { 'sha256:c': 0 }, cohortMoney: [cohortMoney(cohort)] } as unknown as SiteModel;
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

describe('columns', () => {
  it('board_title and ledger_name are appended after the 20 original columns, which keep their positions', () => {
    const csv = leaderboardCsv(modelWith('m', 'a'));
    const header = csv.split('\r\n')[0]!.split(',');
    expect(header.slice(0, 20)).toEqual(['board_id', 'rank', 'cohort_id', 'model', 'agent', 'agent_version', 'role', 'resolved', 'graded', 'rate', 'wilson_low', 'wilson_high', 'delta', 'delta_low', 'delta_high', 'improved', 'regressed', 'verdict', 'cost', 'attempts']);
    expect(header.slice(20)).toEqual(['board_title', 'ledger_name', 'usable_grades']);
    expect(row(csv).split(',').slice(20)).toEqual(['widget-bugs', 'widget-bugs', 'yes']);
  });

  it('a cohort without one usable grade: rate and interval empty (not 0), usable_grades "no"; resolved and graded stay', () => {
    const cells = row(leaderboardCsv(modelWith('m', 'a', false))).split(',');
    expect(cells.slice(7, 12)).toEqual(['0', '2', '', '', '']);
    expect(cells.at(-1)).toBe('no');
  });

  it('on the demo report, the two widget-bugs boards carry their distinct titles', async () => {
    const { readFileSync } = await import('node:fs');
    const { boardsInOrder } = await import('../../src/report/board-order.ts');
    const report = JSON.parse(readFileSync(new URL('../golden/demo-report.json', import.meta.url), 'utf8')) as SiteModel['report'];
    const model = {
      report,
      boardOrder: boardsInOrder(report).map((b) => report.boards.indexOf(b)),
      cohortIndex: Object.fromEntries(report.cohorts.map((c, i) => [c.cohort_id, i])),
      cohortMoney: report.cohorts.map((c) => cohortMoney(c)),
    } as unknown as SiteModel;
    const lines = leaderboardCsv(model).trimEnd().split('\r\n').slice(1);
    expect(lines).toHaveLength(report.cohorts.length);
    const titles = [...new Set(lines.map((l) => l.split(',').slice(-3, -1).join(',')))];
    expect(titles).toEqual(['widget-bugs · tool policy 3ac3b860 · grader 1.2.1,widget-bugs', 'widget-bugs · tool policy 4ac9ce42 · grader 1.2.0,widget-bugs']);
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
