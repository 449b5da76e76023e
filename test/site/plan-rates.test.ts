/**
 * A cohort's headline figures per plan (src/site/model/plan-rates.ts), read
 * from the attempt index for the over-time chart: every attempt on a headline
 * task counted once under its bundle's plan (first rows and the rest alike),
 * other tasks not at all; a grade of fail usable, an errored one not; and no
 * figures for a cohort whose per-plan sums differ from its headline.
 */
import { describe, expect, it } from 'vitest';
import type { AttemptIndex, IndexAttempt, IndexCell, IndexTask } from '../../src/facts/attempt-index.ts';
import type { Report } from '../../src/report/schema.ts';
import { planTallies } from '../../src/site/model/plan-rates.ts';

const digest = (n: number): string => `sha256:${n.toString(16).padStart(2, '0').repeat(32)}`;
const BOARD = digest(0xb0);
const [A, B] = [digest(1), digest(2)];
const [P1, P2] = [digest(0x31), digest(0x32)];

/** An attempt in full: its bundle (0: plan 1, 1: plan 2) and grader reason. */
const attempt = (bundle: number, reason: IndexAttempt['reason'] = null): IndexAttempt => ({ bundle, reason }) as IndexAttempt;

/** A cell: the strip of terminal classes ('0' resolved, '1' grader failure, '2' model failure, '4' harness failure), the first attempts in full, the bundles of the rest. */
function cell(strip: string, first: IndexAttempt[], rest: number[], reasons = { failed: 0, errored: 0, missing: 0 }): IndexCell {
  return { strip, first, rest: { bundle: rest, line: rest.map(() => 1), index: rest.map(() => 1), attempt_id: rest.map(() => 'a') }, reasons } as unknown as IndexCell;
}

const task = (task_id: string, splits: IndexTask['splits'], cells: IndexCell[]): IndexTask => ({ task_id, splits, record: null, cells });

function reportOf(headlines: Record<string, [number, number]>): Report {
  const plan = (plan_id: string, created_at: string) => ({ plan_id, bundle_id: plan_id, title: 't', created_at, attempts_per_task: 1 });
  return {
    boards: [{ board_id: BOARD, cohorts: [A, B] }],
    cohorts: [
      { cohort_id: A, plans: [plan(P1, '2026-09-14T12:00:00Z'), plan(P2, '2026-10-05T09:30:00Z')], headline: { resolved: headlines[A]![0], graded: headlines[A]![1] } },
      { cohort_id: B, plans: [plan(P2, '2026-10-05T09:30:00Z')], headline: { resolved: headlines[B]![0], graded: headlines[B]![1] } },
    ],
  } as unknown as Report;
}

const index: AttemptIndex = {
  bundles: [
    { bundle_id: digest(0x51), plan_id: P1, origin: { kind: 'frozen' } },
    { bundle_id: digest(0x52), plan_id: P2, origin: { kind: 'frozen' } },
  ],
  boards: {
    [BOARD]: {
      tasks: [
        // A: two attempts in full (plan 1: resolved; plan 2: graded fail), two more past the first rows (plan 2: resolved, harness failure).
        // B: one attempt, plan 2, errored grade.
        task('t1', ['headline'], [cell('0104', [attempt(0), attempt(1, 'failed')], [1, 1], { failed: 1, errored: 0, missing: 0 }), cell('1', [attempt(1, 'errored')], [], { failed: 0, errored: 1, missing: 0 })]),
        // A: plan 1 model failure, plan 1 grader failure past the first rows in a cell with no errored or missing grade (so: fail).
        task('t2', ['headline', 'public'], [cell('21', [attempt(0)], [0], { failed: 1, errored: 0, missing: 0 }), cell('', [], [])]),
        // Not a headline task: never counted.
        task('t3', ['watch_list'], [cell('000', [attempt(0), attempt(0), attempt(1)], []), cell('0', [attempt(1)], [])]),
      ],
    },
  },
  outcomes: {},
};

describe('planTallies', () => {
  it('counts each headline attempt once under its plan, first rows and the rest; a fail grade is usable, an errored one is not', () => {
    const tallies = planTallies(reportOf({ [A]: [2, 6], [B]: [0, 1] }), index);
    expect(tallies.get(A)).toEqual([
      { plan_id: P1, created_at: '2026-09-14T12:00:00Z', resolved: 1, graded: 3, usable: 3 },
      { plan_id: P2, created_at: '2026-10-05T09:30:00Z', resolved: 1, graded: 3, usable: 2 },
    ]);
    expect(tallies.get(B)).toEqual([{ plan_id: P2, created_at: '2026-10-05T09:30:00Z', resolved: 0, graded: 1, usable: 0 }]);
  });

  it('gives no figures for a cohort whose per-plan sums are not its headline', () => {
    const tallies = planTallies(reportOf({ [A]: [3, 6], [B]: [0, 1] }), index);
    expect(tallies.has(A)).toBe(false);
    expect(tallies.has(B)).toBe(true);
    expect(planTallies(reportOf({ [A]: [2, 7], [B]: [0, 2] }), index).size).toBe(0);
  });
});
