/**
 * What changed between two reports (src/history/report-diff.ts): hand-made
 * report pairs, copies of the golden demo report edited for each cause.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffReports, diffSummary } from '../../src/history/report-diff.ts';
import type { Report, ReportCohort } from '../../src/report/schema.ts';

const demo: Report = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'golden', 'demo-report.json'), 'utf8'));
const copy = (): Report => structuredClone(demo);
/** The demo's cohort on the second board with three contributing plans (216 attempts, no regrade). */
const PLURAL = demo.cohorts.findIndex((c) => c.plans.length === 3 && c.subject.model === 'acme/mini-2026-08-01');
/** A cohort whose attempts a regrade grades. */
const REGRADED = demo.cohorts.findIndex((c) => c.regrade !== null && c.regrade !== undefined && c.regrade.generations.length > 0);

function lower(c: ReportCohort, attempts: number, resolved: number, graded: number): void {
  c.attempts = attempts;
  c.headline = { ...c.headline, resolved, graded, rate: resolved / graded };
}

describe('diffReports', () => {
  it('finds nothing between a report and itself', () => {
    const d = diffReports(demo, copy());
    expect(d.changes).toEqual([]);
    expect(d.causes).toEqual([]);
    expect(diffSummary(d)).toBe('no cohort changed');
  });

  it('a new plan: a cohort gains a contributing plan no bundle of the older report held', () => {
    const older = copy();
    const c = older.cohorts[PLURAL]!;
    const dropped = c.plans.pop()!;
    older.bundles = older.bundles.filter((b) => b.plan_id !== dropped.plan_id);
    lower(c, 144, 80, 102);
    // The other cohorts that plan fed moved too in the real pipeline; here only one did.
    const d = diffReports(older, demo);
    expect(d.new_plans).toEqual([dropped.plan_id]);
    expect(d.changes).toHaveLength(1);
    const [change] = d.changes;
    expect(change).toMatchObject({ kind: 'moved', cohort_id: c.cohort_id, fields: ['rate', 'attempts'], causes: ['new_plan'] });
    expect(change!.before).toMatchObject({ attempts: 144, resolved: 80, graded: 102 });
    expect(change!.after).toMatchObject({ attempts: 216, resolved: 126, graded: 153, rank: 1, rank_range: [1, 6], verdict: 'PASS' });
    expect(diffSummary(d)).toBe('1 cohort moved (new plan)');
  });

  it('a new plan that brings a new cohort: added, with the figures after', () => {
    const older = copy();
    const gone = older.cohorts.splice(PLURAL, 1)[0]!;
    const plan = gone.plans[0]!.plan_id;
    older.bundles = older.bundles.filter((b) => b.plan_id !== plan);
    for (const c of older.cohorts) c.plans = c.plans.filter((p) => p.plan_id !== plan);
    const d = diffReports(older, demo);
    const added = d.changes.filter((c) => c.kind === 'added');
    expect(added.map((c) => c.cohort_id)).toEqual([gone.cohort_id]);
    expect(added[0]).toMatchObject({ before: null, causes: ['new_plan'], model: 'acme/mini-2026-08-01', agent: 'loop 3.1.0' });
    // The other cohorts the plan feeds kept their figures in this hand-made pair: not moved.
    expect(diffSummary(d)).toBe('1 cohort added (new plan)');
  });

  it('appended attempts: the same plans, more attempts', () => {
    const older = copy();
    const c = older.cohorts[PLURAL]!;
    lower(c, 200, 120, 150);
    const d = diffReports(older, demo);
    expect(d.changes).toHaveLength(1);
    expect(d.changes[0]).toMatchObject({ kind: 'moved', fields: ['rate', 'attempts'], causes: ['appended_attempts'] });
    expect(d.new_plans).toEqual([]);
    expect(diffSummary(d)).toBe('1 cohort moved (appended attempts)');
  });

  it('a regrade: the generations grading a cohort differ', () => {
    const older = copy();
    const c = older.cohorts[REGRADED]!;
    c.regrade = null;
    c.verdict = 'NO_VERDICT';
    lower(c, c.attempts, c.headline.resolved - 7, c.headline.graded);
    const d = diffReports(older, demo);
    expect(d.changes).toHaveLength(1);
    expect(d.changes[0]).toMatchObject({ kind: 'moved', fields: ['rate', 'verdict'], causes: ['regrade'] });
    expect(d.changes[0]!.before!.verdict).toBe('NO_VERDICT');
    expect(d.changes[0]!.after!.verdict).toBe(demo.cohorts[REGRADED]!.verdict);
    expect(diffSummary(d)).toBe('1 cohort moved (a regrade)');
  });

  it('a regrade that moves a cohort to a new board: the new one added and the one its regrade names removed', () => {
    const older = copy();
    const c = older.cohorts[REGRADED]!;
    const earlier = c.regrade!.earlier[0]!.cohort_id;
    c.cohort_id = earlier;
    c.regrade = null;
    const d = diffReports(older, demo);
    expect(d.changes.map((x) => [x.kind, x.cohort_id, x.causes])).toEqual([
      ['added', demo.cohorts[REGRADED]!.cohort_id, ['regrade']],
      ['removed', earlier, ['regrade']],
    ]);
    expect(diffSummary(d)).toBe('1 cohort added, 1 removed (a regrade)');
  });

  it('withdrawn evidence: a plan counted before and not now; its only cohort is removed, another loses a plan', () => {
    const newer = copy();
    const single = newer.cohorts.find((c) => c.plans.length === 1 && c.regrade === null)!;
    const plan = single.plans[0]!.plan_id;
    for (const b of newer.bundles) if (b.plan_id === plan) b.counted = false;
    const removed = newer.cohorts.filter((c) => c.plans.length === 1 && c.plans[0]!.plan_id === plan);
    newer.cohorts = newer.cohorts.filter((c) => !removed.includes(c));
    const shrunk = newer.cohorts.filter((c) => c.plans.some((p) => p.plan_id === plan));
    for (const c of shrunk) {
      c.plans = c.plans.filter((p) => p.plan_id !== plan);
      lower(c, c.attempts - 72, c.headline.resolved - 20, c.headline.graded - 51);
    }
    expect(removed.length).toBeGreaterThan(0);
    expect(shrunk.length).toBeGreaterThan(0);
    const d = diffReports(demo, newer);
    expect(d.withdrawn_bundles).toEqual(demo.bundles.filter((b) => b.plan_id === plan).map((b) => b.bundle_id));
    expect(d.changes.filter((c) => c.kind === 'removed').map((c) => c.causes)).toEqual(removed.map(() => ['withdrawn_evidence']));
    expect(d.changes.filter((c) => c.kind === 'moved').map((c) => c.causes)).toEqual(shrunk.map(() => ['withdrawn_evidence']));
    expect(diffSummary(d)).toBe(`${removed.length} ${removed.length === 1 ? 'cohort' : 'cohorts'} removed, ${shrunk.length} moved (withdrawn evidence)`);
  });

  it('a config change: the config digest differs, named even when no cohort moved', () => {
    const newer = copy();
    newer.config_digest = `sha256:${'0'.repeat(64)}`;
    expect(diffSummary(diffReports(demo, newer))).toBe('no cohort changed (config change)');
    const c = newer.cohorts[PLURAL]!;
    c.rank = 2;
    c.rank_range = [2, 6];
    const d = diffReports(demo, newer);
    expect(d.config_changed).toBe(true);
    expect(d.changes[0]).toMatchObject({ kind: 'moved', fields: ['rank', 'rank_range'], causes: ['config_change'] });
    expect(d.changes[0]!.before).toMatchObject({ rank: 1, rank_range: [1, 6] });
    expect(diffSummary(d)).toBe('1 cohort moved (config change)');
  });

  it('a report retained before rank ranges and regrades were reported: their absence is not a move', () => {
    const older = copy();
    for (const c of older.cohorts) {
      delete c.rank_range;
      delete c.regrade;
    }
    expect(diffReports(older, demo).changes).toEqual([]);
  });

  it('a cohort that moved only because its board did takes the board\'s causes', () => {
    const older = copy();
    const c = older.cohorts[PLURAL]!;
    lower(c, 200, 120, 150);
    const neighbour = older.cohorts.find((x) => x.board_id === c.board_id && x !== c && x.plans.length === 1)!;
    neighbour.rank_range = [2, 6];
    const d = diffReports(older, demo);
    expect(d.changes.map((x) => [x.cohort_id, x.causes, x.via_board])).toEqual(
      [
        [c.cohort_id, ['appended_attempts'], false],
        [neighbour.cohort_id, ['appended_attempts'], true],
      ].sort((x, y) => ((x[0] as string) < (y[0] as string) ? -1 : 1)),
    );
    expect(diffSummary(d)).toBe('2 cohorts moved (appended attempts)');
  });

  it('a move the two reports do not explain says so', () => {
    const newer = copy();
    newer.cohorts[PLURAL]!.verdict = 'NO_GAIN';
    expect(diffSummary(diffReports(demo, newer))).toBe('1 cohort moved (cause not shown by the two reports)');
  });

  it('is deterministic: the same changes whatever order the cohorts come in', () => {
    const older = copy();
    older.cohorts = older.cohorts.filter((_, i) => i % 2 === 0);
    const shuffled = copy();
    shuffled.cohorts.reverse();
    const d = diffReports(older, demo);
    expect(diffReports(older, shuffled).changes).toEqual(d.changes);
    const keys = d.changes.map((c) => `${c.board_id} ${c.cohort_id}`);
    expect(keys).toEqual([...keys].sort());
  });
});
