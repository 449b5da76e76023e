/**
 * Per-case classes and verdicts against the baseline (FORMAT.md 7.4).
 *
 * Cells (test/helpers/report-fixtures.ts), one character per attempt index:
 * P pass, F fail (graded), E errored grade, M missing grade, T timeout,
 * X model_failure, - no attempt.
 */
import { describe, expect, it } from 'vitest';
import type { ContributingPlan } from '../../src/analysis/pool.ts';
import type { TaskTally } from '../../src/analysis/score.ts';
import { classify, judge, sideOf, type SideOutcome, type TaskClass } from '../../src/analysis/verdicts.ts';
import { PLAN_CREATED_AT } from '../helpers/bundle-builder.ts';
import { sideFrom } from '../helpers/report-fixtures.ts';

const DEFAULT_RULE = { min_improved: 1 };

function plan(plan_id: string, attempts_per_task: number): ContributingPlan {
  return { plan_id, bundle_id: `sha256:${'c'.repeat(64)}`, title: plan_id, created_at: PLAN_CREATED_AT, attempts_per_task };
}

function tally(indices: Record<string, number[]>, resolved: number, ungraded = 0): TaskTally {
  const attempts = Object.values(indices).reduce((n, list) => n + list.length, 0);
  return { attempts, resolved, ungraded, filled: new Map(Object.entries(indices).map(([p, list]) => [p, new Set(list).size])) };
}

describe('sideOf', () => {
  const plans = new Map([['plan-1', plan('plan-1', 2)]]);

  it('no tally, or a tally with no attempt: incomplete, no_attempt', () => {
    expect(sideOf(undefined, plans)).toEqual({ outcome: 'incomplete', reason: 'no_attempt', attempts: 0, resolved: 0 });
    expect(sideOf(tally({}, 0), plans)).toEqual({ outcome: 'incomplete', reason: 'no_attempt', attempts: 0, resolved: 0 });
  });

  it('a contributing plan with fewer filled indices than attempts_per_task: unaccounted_slot', () => {
    // plan-1 plans 2 attempts per task, only index 1 is filled (and resolved).
    expect(sideOf(tally({ 'plan-1': [1] }, 1), plans)).toEqual({ outcome: 'incomplete', reason: 'unaccounted_slot', attempts: 1, resolved: 1 });
  });

  it('two contributing plans: a plan with no attempt on the task leaves its slots unaccounted', () => {
    const two = new Map([
      ['plan-1', plan('plan-1', 2)],
      ['p2', plan('p2', 1)],
    ]);
    // plan-1 filled both slots and passed; p2 (1 slot) has nothing on this task.
    expect(sideOf(tally({ 'plan-1': [1, 2] }, 2), two)).toMatchObject({ outcome: 'incomplete', reason: 'unaccounted_slot' });
    // Both plans complete: 3 attempts, 3 resolved -> pass.
    expect(sideOf(tally({ 'plan-1': [1, 2], p2: [1] }, 3), two)).toEqual({ outcome: 'pass', reason: null, attempts: 3, resolved: 3 });
  });

  it('a completed attempt with a missing or errored grade: ungraded', () => {
    const ungraded = sideFrom({ t: 'PM' }).tallies.get('t');
    expect(ungraded?.ungraded).toBe(1);
    expect(sideOf(ungraded, plans)).toEqual({ outcome: 'incomplete', reason: 'ungraded', attempts: 2, resolved: 1 });
    const errored = sideFrom({ t: 'EF' }).tallies.get('t');
    expect(sideOf(errored, plans)).toEqual({ outcome: 'incomplete', reason: 'ungraded', attempts: 2, resolved: 0 });
  });

  it('a failed grade or a non-completed outcome is a definite non-resolution, not ungraded', () => {
    expect(sideOf(sideFrom({ t: 'FT' }).tallies.get('t'), plans)).toEqual({ outcome: 'fail', reason: null, attempts: 2, resolved: 0 });
    expect(sideOf(sideFrom({ t: 'XF' }).tallies.get('t'), plans)).toEqual({ outcome: 'fail', reason: null, attempts: 2, resolved: 0 });
  });

  it('pass (all resolved), fail (none), mixed (some)', () => {
    expect(sideOf(sideFrom({ t: 'PP' }).tallies.get('t'), plans)).toEqual({ outcome: 'pass', reason: null, attempts: 2, resolved: 2 });
    expect(sideOf(sideFrom({ t: 'FF' }).tallies.get('t'), plans)).toEqual({ outcome: 'fail', reason: null, attempts: 2, resolved: 0 });
    expect(sideOf(sideFrom({ t: 'PT' }).tallies.get('t'), plans)).toEqual({ outcome: 'mixed', reason: null, attempts: 2, resolved: 1 });
  });
});

describe('classify: all 16 pairs (candidate, baseline)', () => {
  const table: [SideOutcome, SideOutcome, TaskClass][] = [
    ['pass', 'pass', 'UNCHANGED'],
    ['pass', 'fail', 'IMPROVED'],
    ['pass', 'mixed', 'UNCLEAR'],
    ['pass', 'incomplete', 'UNCLEAR'],
    ['fail', 'pass', 'REGRESSED'],
    ['fail', 'fail', 'UNCHANGED'],
    ['fail', 'mixed', 'UNCLEAR'],
    ['fail', 'incomplete', 'UNCLEAR'],
    ['mixed', 'pass', 'UNCLEAR'],
    ['mixed', 'fail', 'UNCLEAR'],
    ['mixed', 'mixed', 'UNCLEAR'],
    ['mixed', 'incomplete', 'UNCLEAR'],
    ['incomplete', 'pass', 'UNCLEAR'],
    ['incomplete', 'fail', 'UNCLEAR'],
    ['incomplete', 'mixed', 'UNCLEAR'],
    ['incomplete', 'incomplete', 'UNCLEAR'],
  ];
  it.each(table)('candidate %s, baseline %s -> %s', (c, b, expected) => {
    expect(classify(c, b)).toBe(expected);
  });
  it('the table covers every pair once', () => {
    expect(new Set(table.map(([c, b]) => `${c}/${b}`)).size).toBe(16);
  });
});

describe('judge: every verdict path', () => {
  const headline = ['h1', 'h2', 'h3'];

  it('REGRESSION when a task regressed, even with incomplete tasks on both sides', () => {
    const candidate = sideFrom({ h1: 'FF', h2: 'PM', h3: 'PP' });
    const baseline = sideFrom({ h1: 'PP', h2: 'FF', h3: 'P-' }, 2);
    const r = judge(headline, candidate, baseline, null, DEFAULT_RULE);
    expect(r.verdict).toBe('REGRESSION');
    // h1 REGRESSED; h2 UNCLEAR (candidate ungraded); h3 UNCLEAR (baseline unaccounted slot).
    expect(r.classes).toEqual({ improved: 0, regressed: 1, unchanged: 0, unclear: 2 });
    expect(r.regressed_tasks).toEqual(['h1']);
    expect(r.incomplete_tasks).toEqual([
      { task_id: 'h2', side: 'candidate', reason: 'ungraded' },
      { task_id: 'h3', side: 'baseline', reason: 'unaccounted_slot' },
    ]);
    expect(r.reasons[0]).toContain('h1');
    expect(r.reasons[0]).toContain('regressed');
    expect(r.reasons.join(' ')).toContain('incomplete');
    expect(r.tasks.map((t) => [t.task_id, t.class])).toEqual([
      ['h1', 'REGRESSED'],
      ['h2', 'UNCLEAR'],
      ['h3', 'UNCLEAR'],
    ]);
  });

  it('REGRESSION names every regressed task, in headline order', () => {
    const r = judge(headline, sideFrom({ h1: 'F', h2: 'P', h3: 'F' }), sideFrom({ h1: 'P', h2: 'F', h3: 'P' }), null, DEFAULT_RULE);
    expect(r.verdict).toBe('REGRESSION');
    expect(r.regressed_tasks).toEqual(['h1', 'h3']);
    expect(r.classes).toEqual({ improved: 1, regressed: 2, unchanged: 0, unclear: 0 });
    expect(r.reasons[0]).toMatch(/h1, h3/);
  });

  it('NO_VERDICT when a headline task is incomplete (and nothing regressed); the reason names the task, side and why', () => {
    // h1 improved, h2 unchanged, h3 has no candidate attempt at all.
    const r = judge(headline, sideFrom({ h1: 'P', h2: 'F' }), sideFrom({ h1: 'F', h2: 'F', h3: 'P' }), null, DEFAULT_RULE);
    expect(r.verdict).toBe('NO_VERDICT');
    expect(r.classes).toEqual({ improved: 1, regressed: 0, unchanged: 1, unclear: 1 });
    expect(r.incomplete_tasks).toEqual([{ task_id: 'h3', side: 'candidate', reason: 'no_attempt' }]);
    expect(r.reasons).toHaveLength(1);
    expect(r.reasons[0]).toContain('h3 (candidate: no attempt)');
  });

  it('NO_VERDICT for an incomplete baseline side (errored grade)', () => {
    const r = judge(['h1'], sideFrom({ h1: 'P' }), sideFrom({ h1: 'E' }), null, DEFAULT_RULE);
    expect(r.verdict).toBe('NO_VERDICT');
    expect(r.incomplete_tasks).toEqual([{ task_id: 'h1', side: 'baseline', reason: 'ungraded' }]);
    expect(r.reasons[0]).toContain('h1 (baseline: ungraded)');
  });

  it('NO_VERDICT when the board has no baseline', () => {
    const r = judge(headline, sideFrom({ h1: 'P', h2: 'P', h3: 'P' }), null, 'no_baseline', DEFAULT_RULE);
    expect(r).toEqual({
      classes: { improved: 0, regressed: 0, unchanged: 0, unclear: 0 },
      verdict: 'NO_VERDICT',
      reasons: ['the board has no baseline cohort'],
      regressed_tasks: [],
      incomplete_tasks: [],
      tasks: [],
    });
  });

  it('NO_VERDICT when the board has several baselines', () => {
    const r = judge(headline, sideFrom({ h1: 'P', h2: 'P', h3: 'P' }), null, 'several_baselines', DEFAULT_RULE);
    expect(r.verdict).toBe('NO_VERDICT');
    expect(r.reasons).toEqual(['the board has more than one baseline cohort']);
  });

  it('PASS with the default rule: no regression, at least one improved (mixed tasks are UNCLEAR but complete)', () => {
    const r = judge(headline, sideFrom({ h1: 'PP', h2: 'FF', h3: 'PF' }), sideFrom({ h1: 'FF', h2: 'FF', h3: 'PF' }), null, DEFAULT_RULE);
    expect(r.verdict).toBe('PASS');
    expect(r.classes).toEqual({ improved: 1, regressed: 0, unchanged: 1, unclear: 1 });
    expect(r.incomplete_tasks).toEqual([]);
    expect(r.reasons).toEqual(['1 improved, 0 regressed: the acceptance rule (regressed = 0, improved >= 1) holds']);
  });

  it('NO_GAIN with the default rule when nothing improved', () => {
    const r = judge(headline, sideFrom({ h1: 'P', h2: 'F', h3: 'F' }), sideFrom({ h1: 'P', h2: 'F', h3: 'F' }), null, DEFAULT_RULE);
    expect(r.verdict).toBe('NO_GAIN');
    expect(r.classes).toEqual({ improved: 0, regressed: 0, unchanged: 3, unclear: 0 });
    expect(r.reasons[0]).toContain('does not hold');
  });

  it('min_improved 0: no improvement and no regression is a PASS', () => {
    const r = judge(headline, sideFrom({ h1: 'P', h2: 'F', h3: 'F' }), sideFrom({ h1: 'P', h2: 'F', h3: 'F' }), null, { min_improved: 0 });
    expect(r.verdict).toBe('PASS');
    expect(r.reasons[0]).toContain('improved >= 0');
  });

  it('min_improved 2: one improved is NO_GAIN, two improved is PASS', () => {
    const baseline = sideFrom({ h1: 'F', h2: 'F', h3: 'F' });
    const one = judge(headline, sideFrom({ h1: 'P', h2: 'F', h3: 'F' }), baseline, null, { min_improved: 2 });
    expect(one.verdict).toBe('NO_GAIN');
    expect(one.classes.improved).toBe(1);
    const two = judge(headline, sideFrom({ h1: 'P', h2: 'P', h3: 'F' }), baseline, null, { min_improved: 2 });
    expect(two.verdict).toBe('PASS');
    expect(two.classes.improved).toBe(2);
  });

  it('a ledger without headline tasks: NO_VERDICT (docs/analysis.md; a literal reading of 7.4 would fall through to NO_GAIN, or PASS with min_improved 0)', () => {
    for (const rule of [DEFAULT_RULE, { min_improved: 0 }]) {
      const r = judge([], sideFrom({ p1: 'P' }), sideFrom({ p1: 'F' }), null, rule);
      expect(r.verdict).toBe('NO_VERDICT');
      expect(r.reasons).toEqual(['the ledger has no headline task']);
      expect(r.tasks).toEqual([]);
    }
  });

  it('only headline tasks are judged: a regression outside the headline list does not count', () => {
    const r = judge(['h1'], sideFrom({ h1: 'P', w1: 'F' }), sideFrom({ h1: 'F', w1: 'P' }), null, DEFAULT_RULE);
    expect(r.verdict).toBe('PASS');
    expect(r.tasks.map((t) => t.task_id)).toEqual(['h1']);
  });

  it('per-task sides carry attempts and resolved counts', () => {
    const r = judge(['h1'], sideFrom({ h1: 'PPF' }), sideFrom({ h1: 'FFF' }), null, DEFAULT_RULE);
    expect(r.tasks).toEqual([
      {
        task_id: 'h1',
        candidate: { outcome: 'mixed', reason: null, attempts: 3, resolved: 2 },
        baseline: { outcome: 'fail', reason: null, attempts: 3, resolved: 0 },
        class: 'UNCLEAR',
      },
    ]);
    expect(r.verdict).toBe('NO_GAIN');
  });
});
