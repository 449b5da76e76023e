/**
 * The score vector (FORMAT.md 7.2, 7.5, 8) of a hand-made cohort: every
 * figure computed by hand below, then compared with cohortFigures: the
 * shipped column-wise one (over the rows put in attempt tables) and the
 * object-by-object reference in test/oracle.
 */
import { describe, expect, it } from 'vitest';
import { splitLedger } from '../../src/analysis/headline.ts';
import { cohortFigures, rateFigures, tallyTasks, type CohortFigures, type TaskTally } from '../../src/analysis/score.ts';
import type { PooledAttempt } from '../oracle/pool.ts';
import { cohortFigures as referenceFigures, sortAttempts, tallyTasks as referenceTally } from '../oracle/score.ts';
import { cohortOf } from '../helpers/shipped-analysis.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import type { LedgerRecord } from '../../src/schema/index.ts';
import { pooled } from '../helpers/report-fixtures.ts';

const Z = 1.959963984540054;
/** Wilson 95% interval, written out: (s + z^2/2 -/+ z sqrt(s(n-s)/n + z^2/4)) / (n + z^2). */
function wilsonByHand(s: number, n: number): [number, number] {
  const z2 = Z * Z;
  const centre = s + z2 / 2;
  const spread = Z * Math.sqrt((s * (n - s)) / n + z2 / 4);
  return [s === 0 ? 0 : (centre - spread) / (n + z2), s === n ? 1 : (centre + spread) / (n + z2)];
}

function task(task_id: string, holdout: boolean, cluster_id: string): LedgerRecord {
  return {
    task_id,
    repo: null,
    base_sha: null,
    prompt_sha256: digestBytes(task_id),
    failing_tests: null,
    failing_assertion: null,
    oracle_sha256: null,
    license: 'MIT',
    difficulty: null,
    holdout,
    cluster_id,
    created_at: '2026-09-14T00:00:00Z',
  };
}

// Ledger: h1 (cluster A, headline), w1 (cluster A sibling: watch list),
// h2 (cluster B, headline), p1 (public), h3 (cluster C, headline, never attempted).
const LEDGER = [task('h1', true, 'A'), task('w1', true, 'A'), task('h2', true, 'B'), task('p1', false, 'P'), task('h3', true, 'C')];
const LEDGER_IDS = LEDGER.map((t) => t.task_id);
const splits = splitLedger(LEDGER);

const BUNDLE_1 = `sha256:${'1'.repeat(64)}`;
const BUNDLE_2 = `sha256:${'2'.repeat(64)}`;

// The cohort: twelve attempts over two bundles (sums run in bundle id, attempt id order).
//  id   task #  class                    wall    tokens        retries cost
const COHORT: PooledAttempt[] = [
  pooled({ attempt_id: 'a01', task_id: 'h1', index: 1, terminal: 'resolved', wall_seconds: 10, tokens: { input: 100, output: 10 }, retries: 0, cost: { state: 'complete', micros: 1000 } }),
  pooled({ attempt_id: 'a02', task_id: 'h1', index: 2, terminal: 'resolved', wall_seconds: 20, tokens: { input: 200, output: 20 }, retries: 1, cost: { state: 'complete', micros: 2000 } }),
  pooled({ attempt_id: 'a03', task_id: 'h1', index: 3, terminal: 'grader_failure', reason: 'failed', wall_seconds: 30, tokens: null, cost: { state: 'partial', micros: 500 } }),
  pooled({ attempt_id: 'a04', task_id: 'h2', index: 1, terminal: 'resolved', wall_seconds: 40, tokens: { input: 400, output: 40 }, cost: { state: 'zero', micros: 0 } }),
  pooled({ attempt_id: 'a05', task_id: 'h2', index: 2, terminal: 'resolved', wall_seconds: 5, tokens: { input: 50, output: 5 }, cost: { state: 'not_applicable', micros: null } }),
  pooled({ attempt_id: 'a06', task_id: 'h2', index: 3, terminal: 'resolved', wall_seconds: 15, tokens: { input: 150, output: 15 }, cost: { state: 'complete', micros: 1500 } }),
  pooled({ attempt_id: 'a07', task_id: 'w1', index: 1, terminal: 'resolved', wall_seconds: 25, tokens: { input: 250, output: 25 }, cost: { state: 'unavailable', micros: null } }),
  pooled({ attempt_id: 'a08', task_id: 'w1', index: 2, terminal: 'grader_failure', reason: 'errored', wall_seconds: 0, tokens: { input: 0, output: 0 }, cost: { state: 'complete', micros: 0 } }),
  pooled({ attempt_id: 'a09', task_id: 'w1', index: 3, terminal: 'cancelled', wall_seconds: 12.5, tokens: { input: 125, output: 12 }, retries: 3, cost: { state: 'complete', micros: 1250 } }),
  pooled({ bundle_id: BUNDLE_2, plan_id: 'plan-2', attempt_id: 'a10', task_id: 'p1', index: 1, terminal: 'timeout', wall_seconds: 1800, tokens: null, retries: 2, cost: { state: 'unavailable', micros: null } }),
  pooled({ bundle_id: BUNDLE_2, plan_id: 'plan-2', attempt_id: 'a11', task_id: 'p1', index: 2, terminal: 'grader_failure', reason: 'missing', wall_seconds: 7.5, tokens: { input: 75, output: 8 }, cost: { state: 'partial', micros: 750 } }),
  pooled({ bundle_id: BUNDLE_2, plan_id: 'plan-2', attempt_id: 'a12', task_id: 'p1', index: 3, terminal: 'model_failure', wall_seconds: 2, tokens: { input: 20, output: 2 }, cost: { state: 'complete', micros: 200 } }),
].map((a) => (a.bundle_id === BUNDLE_2 ? a : { ...a, bundle_id: BUNDLE_1 }));

interface Implementation {
  figures(attempts: PooledAttempt[], currency: string | null): CohortFigures;
  tally(attempts: PooledAttempt[]): Map<string, TaskTally>;
}

const IMPLEMENTATIONS: [string, Implementation][] = [
  [
    'shipped (src/analysis/score.ts)',
    {
      figures: (attempts, currency) => {
        const pool = cohortOf(attempts, LEDGER_IDS, splits.headline);
        return cohortFigures(pool, splits, tallyTasks(pool, LEDGER_IDS), currency);
      },
      tally: (attempts) => tallyTasks(cohortOf(attempts, LEDGER_IDS, splits.headline), LEDGER_IDS),
    },
  ],
  [
    'reference (test/oracle/score.ts)',
    {
      figures: (attempts, currency) => {
        const sorted = sortAttempts([...attempts]);
        return referenceFigures(sorted, splits, referenceTally(sorted), currency);
      },
      tally: referenceTally,
    },
  ],
];

describe.each(IMPLEMENTATIONS)('%s', (_, implementation) => {
  const figures = (attempts: PooledAttempt[] = COHORT, currency: string | null = 'USD') => implementation.figures(attempts, currency);
  const tallyTasks = implementation.tally;

  describe('cohortFigures on a hand-made cohort of twelve attempts', () => {
    const f = figures([...COHORT].reverse());

    it('counts every attempt', () => {
      expect(f.attempts).toBe(12);
    });

    it('headline: h1 (2 of 3) + h2 (3 of 3) = 5 resolved of 6 graded; h3 is a task of the split but unattempted', () => {
      expect(f.headline).toEqual({ tasks: 3, attempted_tasks: 2, resolved: 5, graded: 6, rate: 5 / 6, wilson: f.headline.wilson });
      const [lo, hi] = wilsonByHand(5, 6);
      expect(f.headline.wilson![0]).toBeCloseTo(lo, 12);
      expect(f.headline.wilson![1]).toBe(hi); // s = n -> exactly 1
      // Wilson(5, 6) ~ [0.4365, 0.9699].
      expect(f.headline.wilson![0]).toBeCloseTo(0.4365, 4);
    });

    it('watch list: w1 -> 1 resolved of 3 graded (an errored grade and a cancel count as graded, not resolved)', () => {
      expect(f.watch_list).toMatchObject({ tasks: 1, attempted_tasks: 1, resolved: 1, graded: 3, rate: 1 / 3 });
      const [lo, hi] = wilsonByHand(1, 3);
      expect(f.watch_list.wilson![0]).toBeCloseTo(lo, 12);
      expect(f.watch_list.wilson![1]).toBeCloseTo(hi, 12);
    });

    it('public: p1 -> 0 resolved of 3 graded; Wilson lower bound exactly 0', () => {
      expect(f.public).toMatchObject({ tasks: 1, attempted_tasks: 1, resolved: 0, graded: 3, rate: 0 });
      expect(f.public.wilson![0]).toBe(0);
      expect(f.public.wilson![1]).toBeCloseTo(wilsonByHand(0, 3)[1], 12);
    });

    it('terminal classes: 6 resolved, 3 grader_failure (failed 1, errored 1, missing 1), 1 each of cancelled, timeout, model_failure', () => {
      expect(f.terminal_classes).toEqual({
        resolved: 6, // a01 a02 a04 a05 a06 a07
        grader_failure: 3, // a03 a08 a11
        model_failure: 1, // a12
        safety_failure: 0,
        harness_failure: 0,
        environment_failure: 0,
        invalid_case: 0,
        timeout: 1, // a10
        cancelled: 1, // a09
      });
      expect(f.grader_failure_reasons).toEqual({ failed: 1, errored: 1, missing: 1 });
      expect(Object.values(f.terminal_classes).reduce((a, b) => a + b, 0)).toBe(12);
    });

    it('tokens: a lower bound over the 10 known attempts, with 2 unknown (never counted as 0 known)', () => {
      // input: 100+200+400+50+150+250+0+125+75+20 = 1370; output: 10+20+40+5+15+25+0+12+8+2 = 137.
      expect(f.tokens).toEqual({ input: 1370, output: 137, total: 1507, complete: false, unknown: 2 });
    });

    it('wall seconds: sum 1967 and median 13.75', () => {
      // 10+20+30+40+5+15+25+0+12.5+1800+7.5+2 = 1967.
      // Sorted: 0 2 5 7.5 10 12.5 | 15 20 25 30 40 1800 -> (12.5 + 15) / 2 = 13.75.
      expect(f.wall_seconds).toEqual({ sum: 1967, median: 13.75 });
    });

    it('retries: 1 + 3 + 2 = 6', () => {
      expect(f.retries).toBe(6);
    });

    it('cost: a lower bound (2 partial, 2 unavailable), unavailable never added as a known 0', () => {
      // complete: 1000+2000+1500+0+1250+200 = 5950; partial: 500+750 = 1250; total 7200.
      expect(f.cost).toEqual({ currency: 'USD', micros: 7200, complete: false, unavailable: 2, partial: 2, not_applicable: 1, zero: 1 });
    });

    it('pass@k over the attempted headline tasks, k = 1..3', () => {
      // h1: n=3, c=2; h2: n=3, c=3 (h3 has no attempt and is skipped).
      // pass@1: h1 1 - C(1,1)/C(3,1) = 2/3; h2 1 -> mean 5/6.
      // pass@2: h1 1 - C(1,2)/C(3,2) = 1; h2 1 -> 1.  pass@3: 1.
      expect(f.pass_at_k.map((p) => p.k)).toEqual([1, 2, 3]);
      expect(f.pass_at_k[0]!.value).toBeCloseTo(5 / 6, 12);
      expect(f.pass_at_k[1]!.value).toBe(1);
      expect(f.pass_at_k[2]!.value).toBe(1);
    });

    it('replicates over headline attempts: index rates 1, 1, 1/2; spread 1/2; flipped h1', () => {
      // #1: a01 R, a04 R -> 2/2; #2: a02 R, a05 R -> 2/2; #3: a03 failed, a06 R -> 1/2.
      expect(f.replicates).toEqual({
        per_index: [
          { index: 1, resolved: 2, graded: 2, rate: 1 },
          { index: 2, resolved: 2, graded: 2, rate: 1 },
          { index: 3, resolved: 1, graded: 2, rate: 0.5 },
        ],
        spread: 0.5,
        flipped_tasks: ['h1'],
      });
    });

    it('the figures do not depend on the order attempts were pooled in', () => {
      expect(figures([...COHORT])).toEqual(f);
      const rotated = [...COHORT.slice(5), ...COHORT.slice(0, 5)];
      expect(figures(rotated)).toEqual(f);
    });
  });

  describe('cost completeness', () => {
    const rows = (costs: PooledAttempt['cost'][]) => costs.map((cost, i) => pooled({ attempt_id: `c${i}`, task_id: 'h1', index: i + 1, terminal: 'resolved', cost }));

    it('complete when every attempt is complete, zero or not_applicable', () => {
      const f = figures(rows([{ state: 'complete', micros: 7 }, { state: 'zero', micros: 0 }, { state: 'not_applicable', micros: null }]));
      expect(f.cost).toEqual({ currency: 'USD', micros: 7, complete: true, unavailable: 0, partial: 0, not_applicable: 1, zero: 1 });
    });

    it('all unavailable: micros 0 is a lower bound, complete false, unavailable counted', () => {
      const f = figures(rows([{ state: 'unavailable', micros: null }, { state: 'unavailable', micros: null }]), 'EUR');
      expect(f.cost).toEqual({ currency: 'EUR', micros: 0, complete: false, unavailable: 2, partial: 0, not_applicable: 0, zero: 0 });
    });

    it('one partial makes the sum a lower bound', () => {
      const f = figures(rows([{ state: 'complete', micros: 10 }, { state: 'partial', micros: 5 }]));
      expect(f.cost).toMatchObject({ micros: 15, complete: false, partial: 1, unavailable: 0 });
    });

    it('no budget: currency null', () => {
      expect(figures(rows([{ state: 'zero', micros: 0 }]), null).cost.currency).toBeNull();
    });
  });

  describe('tokens', () => {
    it('complete when every attempt reported tokens; total = input + output', () => {
      const f = figures([
        pooled({ attempt_id: 'x1', task_id: 'h1', terminal: 'resolved', tokens: { input: 3, output: 4 } }),
        pooled({ attempt_id: 'x2', task_id: 'h1', index: 2, terminal: 'resolved', tokens: { input: 0, output: 0 } }),
      ]);
      expect(f.tokens).toEqual({ input: 3, output: 4, total: 7, complete: true, unknown: 0 });
    });

    it('all unknown: 0 as a lower bound, complete false', () => {
      const f = figures([pooled({ attempt_id: 'x1', task_id: 'h1', terminal: 'timeout', tokens: null })]);
      expect(f.tokens).toEqual({ input: 0, output: 0, total: 0, complete: false, unknown: 1 });
    });
  });

  describe('edge cases', () => {
    it('an empty cohort: rates and intervals null, median null, no pass@k, no replicate', () => {
      const f = figures([]);
      expect(f.attempts).toBe(0);
      expect(f.headline).toEqual({ tasks: 3, attempted_tasks: 0, resolved: 0, graded: 0, rate: null, wilson: null });
      expect(f.wall_seconds).toEqual({ sum: 0, median: null });
      expect(f.pass_at_k).toEqual([]);
      expect(f.replicates).toEqual({ per_index: [], spread: null, flipped_tasks: [] });
      expect(f.cost.complete).toBe(true);
    });

    it('pass@k goes up to the smallest attempt count over attempted headline tasks', () => {
      const f = figures([
        pooled({ attempt_id: 'y1', task_id: 'h1', index: 1, terminal: 'resolved' }),
        pooled({ attempt_id: 'y2', task_id: 'h1', index: 2, terminal: 'timeout' }),
        pooled({ attempt_id: 'y3', task_id: 'h2', index: 1, terminal: 'timeout' }),
      ]);
      // h1 n=2 c=1, h2 n=1 c=0 -> k max 1; pass@1 = (1/2 + 0) / 2 = 0.25.
      expect(f.pass_at_k).toEqual([{ k: 1, value: 0.25 }]);
    });

    it('tallyTasks counts attempts, resolved, ungraded (missing or errored only) and distinct slots filled per plan', () => {
      const t = tallyTasks(COHORT);
      expect(t.get('h1')).toMatchObject({ attempts: 3, resolved: 2, ungraded: 0 });
      expect(t.get('w1')).toMatchObject({ attempts: 3, resolved: 1, ungraded: 1 });
      expect(t.get('p1')).toMatchObject({ attempts: 3, resolved: 0, ungraded: 1 });
      expect([...t.get('p1')!.filled]).toEqual([['plan-2', 3]]);
    });

    it('rateFigures over an empty split: zero tasks, null rate', () => {
      expect(rateFigures([], tallyTasks(COHORT))).toEqual({ tasks: 0, attempted_tasks: 0, resolved: 0, graded: 0, rate: null, wilson: null });
    });
  });
});

describe('the reference order', () => {
  it('sortAttempts orders by bundle id, then attempt id', () => {
    const rows = [
      pooled({ bundle_id: BUNDLE_2, attempt_id: 'a', task_id: 'h1', terminal: 'resolved' }),
      pooled({ bundle_id: BUNDLE_1, attempt_id: 'b', task_id: 'h1', terminal: 'resolved' }),
      pooled({ bundle_id: BUNDLE_1, attempt_id: 'a', task_id: 'h1', terminal: 'resolved' }),
    ];
    expect(sortAttempts(rows).map((r) => `${r.bundle_id.slice(7, 8)}/${r.attempt_id}`)).toEqual(['1/a', '1/b', '2/a']);
  });
});
