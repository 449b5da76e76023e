/**
 * Compare pages in the reader's order (issue 29 item 6): the URL stays in
 * cohort id order, the page reads the candidate first (between two of the
 * same role the better-ranked: earlier in the board's `cohorts`), and its
 * figures are the facts' turned to that order (src/site/model/compare.ts
 * compareView): counts and task lists swapped, the delta negated, where the
 * URL's order flips. On the demo's report.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareFacts } from '../../src/facts/compare.ts';
import { compareView, siteCompare } from '../../src/site/model/compare.ts';
import { compareKey, readsFirst } from '../../src/site/views/compare-paths.ts';
import { interval, points } from '../../src/site/views/format.ts';
import type { Report, ReportCohort } from '../../src/report/schema.ts';

const report = JSON.parse(readFileSync(new URL('../golden/demo-report.json', import.meta.url), 'utf8')) as Report;
const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
const cohort = (id: string): ReportCohort => cohorts.get(id)!;
const boardOf = (prefix: string) => report.boards.find((b) => b.board_id.startsWith(`sha256:${prefix}`))!;
const all = siteCompare(report.boards, cohorts, compareFacts(report));

describe('the reading order of a compare page', () => {
  it('acme/base (baseline, id first) against acme/mini (candidate): the page reads mini first, delta +39.2, as mini\'s own delta', () => {
    const board = boardOf('a7bdcfaf');
    const base = cohort(report.cohorts.find((c) => c.cohort_id.startsWith('sha256:17a74f7f'))!.cohort_id);
    const mini = cohort(report.cohorts.find((c) => c.cohort_id.startsWith('sha256:3b7052e1'))!.cohort_id);
    expect(base.subject.role).toBe('baseline');
    expect(mini.subject.role).toBe('candidate');
    const page = all[board.board_id]!.pages[compareKey(base.cohort_id, mini.cohort_id)]!;
    // The URL's order: base first (its id sorts first); the facts' delta a - b = base - mini is negative.
    expect(page.a).toBe(base.cohort_id);
    expect(points(page.delta!.rate)).toBe('-39.2');
    const view = compareView(board, base, mini, page, all[board.board_id]!.sides);
    expect(view.flipped).toBe(true);
    expect([view.first, view.second]).toEqual([mini.cohort_id, base.cohort_id]);
    // The sign the board shows for mini (its delta against the baseline), and the facts' number negated.
    expect(points(view.delta!.rate)).toBe('+39.2');
    expect(points(view.delta!.rate)).toBe(points(mini.delta!.rate));
    expect(view.delta!.rate).toBe(-page.delta!.rate!);
    expect(view.delta!.interval).toEqual([-page.delta!.interval![1], -page.delta!.interval![0]]);
    expect(interval(view.delta!.interval)).toBe(`[${(-page.delta!.interval![1] * 100).toFixed(1)}, ${(-page.delta!.interval![0] * 100).toFixed(1)}]`);
    expect({ ...view.delta, rate: 0, interval: null }).toEqual({ ...page.delta, rate: 0, interval: null });
    // Wins swap with the sides: mini has the higher rate on 7 tasks, base on none.
    expect([view.firstBetter, view.secondBetter]).toEqual([7, 0]);
    expect(view.firstWins).toEqual(page.b_wins);
    expect(view.secondWins).toEqual(page.a_wins);
    expect(view.firstSides).toEqual(all[board.board_id]!.sides[mini.cohort_id]);
  });

  it('every page of the demo: a candidate before a baseline, else earlier in the board order; the facts negated or swapped exactly when flipped', () => {
    let flipped = 0;
    let kept = 0;
    let sameRole = 0;
    for (const board of report.boards) {
      const data = all[board.board_id]!;
      for (const page of Object.values(data.pages)) {
        const a = cohort(page.a);
        const b = cohort(page.b);
        const view = compareView(board, a, b, page, data.sides);
        const first = cohort(view.first);
        const second = cohort(view.second);
        if (first.subject.role !== second.subject.role) expect(first.subject.role).toBe('candidate');
        else {
          sameRole++;
          expect(board.cohorts.indexOf(first.cohort_id)).toBeLessThan(board.cohorts.indexOf(second.cohort_id));
          // Earlier in the board order: a rank (by rate) no worse.
          expect(first.rank).toBeLessThanOrEqual(second.rank);
        }
        const pair = board.pairs![page.pair]!;
        expect(view.firstBetter + view.secondBetter).toBe(pair.a_better + pair.b_better);
        if (view.flipped) {
          flipped++;
          expect([view.firstBetter, view.secondBetter]).toEqual([pair.b_better, pair.a_better]);
          if (page.delta !== null && page.delta.rate !== null) expect(view.delta!.rate).toBe(page.delta.rate === 0 ? 0 : -page.delta.rate);
        } else {
          kept++;
          expect(view.delta).toEqual(page.delta);
          expect([view.firstBetter, view.secondBetter]).toEqual([pair.a_better, pair.b_better]);
        }
        // A candidate against the board's baseline: the page's delta reads with the sign of the candidate's own.
        if (page.delta !== null && board.baseline_cohort_id !== null && second.cohort_id === board.baseline_cohort_id && first.delta !== null && first.delta.rate !== null) {
          expect(points(view.delta!.rate)).toBe(points(first.delta.rate));
        }
      }
    }
    // The demo has pages of both kinds, and pages between two candidates.
    expect(flipped).toBeGreaterThan(0);
    expect(kept).toBeGreaterThan(0);
    expect(sameRole).toBeGreaterThan(0);
  });

  it('readsFirst: candidate before baseline whatever the board order; the same role by board order', () => {
    const c = (id: string, role: 'candidate' | 'baseline') => ({ cohort_id: id, subject: { role } });
    expect(readsFirst(['x', 'y'], c('x', 'baseline'), c('y', 'candidate'))).toBe(false);
    expect(readsFirst(['x', 'y'], c('y', 'candidate'), c('x', 'baseline'))).toBe(true);
    expect(readsFirst(['x', 'y'], c('x', 'candidate'), c('y', 'candidate'))).toBe(true);
    expect(readsFirst(['y', 'x'], c('x', 'candidate'), c('y', 'candidate'))).toBe(false);
    expect(() => readsFirst(['x'], c('x', 'candidate'), c('z', 'candidate'))).toThrow(/not on its board/);
  });
});
