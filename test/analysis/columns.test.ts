/**
 * The shipped analysis reads attempts and grades column-wise (src/analysis:
 * columns.ts, grading.ts, pool.ts, score.ts, drift.ts). These properties hold
 * it to the reference form (test/oracle: the same rules, one object per
 * attempt) on random bundles: the same cohorts, boards, exclusions, tallies,
 * figures and drift, bit for bit, whether the tables come from the verifier
 * or are rebuilt from the evidence's objects (evidenceFromObjects).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bundleColumns, newestTimes } from '../../src/analysis/columns.ts';
import { baselineDrift } from '../../src/analysis/drift.ts';
import { splitLedger } from '../../src/analysis/headline.ts';
import { poolAttempts, type AnalysisInput } from '../../src/analysis/pool.ts';
import { cohortFigures, tallyTasks } from '../../src/analysis/score.ts';
import { evidenceFromObjects, type BundleEvidence } from '../../src/bundle/evidence.ts';
import type { GradingPin } from '../../src/config/config.ts';
import type { Attempt } from '../../src/schema/index.ts';
import { BASELINE, CANDIDATE } from '../helpers/bundle-builder.ts';
import { attemptId, BASE, CAND, gridModel, OTHER, reportInput, REGRADER, type ModelSpec, type TaskSpec } from '../helpers/report-fixtures.ts';
import { baselineDrift as referenceDrift } from '../oracle/drift.ts';
import { poolAttemptObjects } from '../oracle/pool.ts';
import { cohortFigures as referenceFigures, sortAttempts, tallyTasks as referenceTally } from '../oracle/score.ts';

const TASKS: TaskSpec[] = [{ id: 't1', cluster: 'c1' }, { id: 't2', cluster: 'c1' }, { id: 't3', cluster: 'c3' }, { id: 't4', holdout: false }, { id: 't5', cluster: 'c5' }];
const CELLS = 'PFEMTX-';

/** The reference analysis (test/oracle), one object per attempt. */
function referenceAnalysis(inputs: AnalysisInput[], pin: GradingPin) {
  const pools = poolAttemptObjects(inputs, pin);
  const cohorts = [...pools.cohorts.values()].map((pool) => {
    const splits = splitLedger(pools.ledgers.get(pool.key.ledger_digest)!.records);
    sortAttempts(pool.attempts);
    const tallies = referenceTally(pool.attempts);
    return {
      cohort_id: pool.cohort_id,
      board_id: pool.board_id,
      roles: [...pool.roles],
      selectors: [...pool.selectors],
      plans: [...pool.plans.values()],
      tallies: [...tallies].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      figures: referenceFigures(pool.attempts, splits, tallies, pool.key.budget?.currency ?? null),
      drift: referenceDrift(pool, splits),
    };
  });
  return { cohorts, boards: [...pools.boards], ledgers: [...pools.ledgers.keys()], excluded: pools.excludedByPin, conflicts: pools.conflicts };
}

/** The shipped analysis, as buildReport runs it. */
function shippedAnalysis(inputs: AnalysisInput[], pin: GradingPin) {
  const pools = poolAttempts(inputs, pin);
  const cohorts = [...pools.cohorts.values()].map((pool) => {
    const splits = splitLedger(pools.ledgers.get(pool.key.ledger_digest)!.records);
    const tallies = tallyTasks(pool, pools.ledgers.get(pool.key.ledger_digest)!.taskIds);
    return {
      cohort_id: pool.cohort_id,
      board_id: pool.board_id,
      roles: [...pool.roles],
      selectors: [...pool.selectors],
      plans: [...pool.plans.values()],
      tallies: [...tallies].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
      figures: cohortFigures(pool, splits, tallies, pool.key.budget?.currency ?? null),
      drift: baselineDrift(pool),
    };
  });
  return { cohorts, boards: [...pools.boards], ledgers: [...pools.ledgers.keys()], excluded: pools.excludedByPin, conflicts: pools.conflicts };
}

/** The same evidence rebuilt from its objects, as a test or an importer would build it. */
function rebuilt(input: AnalysisInput): AnalysisInput {
  const e = input.evidence;
  return { ...input, evidence: evidenceFromObjects({ ...e, attempts: e.attempts.lines(), grades: e.grades.map((g) => g.file()) }) };
}

const grid = fc.array(fc.constantFrom(...CELLS), { minLength: 3, maxLength: 3 }).map((cells) => cells.join(''));
const subjectGrid = fc.array(grid, { minLength: TASKS.length, maxLength: TASKS.length });
/**
 * Attempt figures: small, huge, fractional walls, -0. A bundle whose own
 * totals pass 2^53 - 1 (or overflow) is LIMIT_EXCEEDED, so each bundle takes
 * at most one huge value per column (see `once` below); pooled across
 * bundles, the cohort sums still pass the bound and are held at it
 * (score.ts boundTotals), in both forms.
 */
const figures = fc.record({
  wall: fc.oneof(fc.constantFrom(0, -0, 0.1, 0.2, 0.3, 1e300, 1.5e308), fc.double({ min: 0, max: 1e6, noNaN: true })),
  tokens: fc.option(fc.record({ input: fc.oneof(fc.nat(1000), fc.constant(2 ** 52 + 1)), output: fc.oneof(fc.nat(1000), fc.constant(2 ** 51)) }), { nil: null }),
  retries: fc.oneof(fc.nat(5), fc.constant(2 ** 52 + 3)),
  state: fc.constantFrom('complete', 'partial', 'unavailable', 'not_applicable', 'zero'),
  micros: fc.oneof(fc.nat(1000), fc.constant(2 ** 52)),
});

const scenario = fc.record({
  months: fc.array(
    fc.record({
      cand: subjectGrid,
      base: subjectGrid,
      other: fc.option(subjectGrid, { nil: undefined }),
      regrade: fc.option(fc.array(fc.tuple(fc.nat(2), fc.constantFrom(...TASKS.map((t) => t.id)), fc.integer({ min: 1, max: 3 }), fc.constantFrom('pass', 'fail', 'error')), { maxLength: 6 }), { nil: undefined }),
      figures: fc.array(figures, { minLength: 45, maxLength: 45 }),
      prefix: fc.constantFrom('a', 'b'),
      /** Sort keys for the lines of attempts.jsonl: row order is not attempt id order. */
      order: fc.array(fc.double({ noNaN: true }), { minLength: 45, maxLength: 45 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  pin: fc.boolean(),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function inputsOf(s: Scenario): AnalysisInput[] {
  return s.months.map((m, k) => {
    let n = 0;
    // Each huge value at most once per bundle (and column): later ones become 1.
    const seen = new Set<string>();
    const once = (column: string, value: number, huge: number) => (value < huge ? value : seen.has(column) ? 1 : (seen.add(column), value));
    const spec: ModelSpec = {
      title: `month ${k}`,
      created_at: `2026-1${k}-01T00:00:00Z`,
      startedAt: `2026-1${k}-02T00:00:00Z`,
      endedAt: `2026-1${k}-02T00:10:00.${k}5Z`,
      gradedAt: `2026-1${k}-03T00:00:00Z`,
      prefix: m.prefix,
      aggregate: 2 ** 52,
      tasks: TASKS,
      subjects: m.other ? [CANDIDATE, BASELINE, OTHER] : undefined,
      grid: { [CAND]: m.cand, [BASE]: m.base, ...(m.other ? { [OTHER.selector]: m.other } : {}) },
      regrades: m.regrade && [
        {
          grader: REGRADER,
          created_at: `2026-1${k}-04T00:00:00Z`,
          verdicts: Object.fromEntries(
            m.regrade
              .filter(([subject, task, index]) => {
                // Only attempts that exist (a regrade naming another is GRADE_UNKNOWN_ATTEMPT).
                const cells = [m.cand, m.base, m.other][subject];
                return cells !== undefined && cells[TASKS.findIndex((t) => t.id === task)]![index - 1] !== '-';
              })
              .map(([subject, task, index, verdict]) => [attemptId(m.prefix, subject, task, index), verdict]),
          ),
        },
      ],
      tweak: (attempt: Attempt) => {
        if (m.figures.length === 0) return;
        const f = m.figures[n++ % m.figures.length]!;
        attempt.wall_seconds = once('wall', f.wall, 1e301);
        attempt.tokens = f.tokens && { input: once('input', f.tokens.input, 2 ** 52), output: once('output', f.tokens.output, 2 ** 51) };
        attempt.retries = once('retries', f.retries, 2 ** 52);
        const micros = f.state === 'complete' || f.state === 'partial' ? once('micros', f.micros, 2 ** 52) : f.state === 'zero' ? 0 : null;
        attempt.cost = { state: f.state, micros };
      },
    };
    const model = gridModel(spec);
    const keys = new Map(model.attempts.map((a, i) => [a, m.order[i % m.order.length] ?? 0]));
    model.attempts.sort((a, b) => keys.get(a)! - keys.get(b)!);
    const { verification: v } = reportInput(model);
    expect(v.status, JSON.stringify(v.findings.filter((f) => f.severity === 'error').slice(0, 3))).toBe('verified');
    return { bundle_id: v.bundle_id!, plan_id: v.plan_id!, evidence: v.evidence };
  });
}

describe('the shipped analysis equals the reference form', () => {
  it('on random bundles: cohorts, tallies, figures and drift, from the verifier\'s tables and from rebuilt ones', () => {
    const bounded = new Set<string>();
    fc.assert(
      fc.property(scenario, (s) => {
        const pin: GradingPin = s.pin ? { id: REGRADER.id, version: REGRADER.version } : null;
        const inputs = inputsOf(s);
        const fromTables = shippedAnalysis(inputs, pin);
        const fromObjects = shippedAnalysis(inputs.map(rebuilt), pin);
        const expected = referenceAnalysis(inputs, pin);
        expect(fromTables).toEqual(expected);
        expect(fromObjects).toEqual(expected);
        for (const c of expected.cohorts) for (const name of c.figures.bounded ?? []) bounded.add(name);
      }),
      { seed: 20261130, numRuns: 40 },
    );
    // Pooled sums past the bound happened, and were held at it the same way in both forms.
    expect([...bounded].sort()).toEqual(['cost.micros', 'retries', 'tokens.input', 'tokens.total', 'wall_seconds.sum']);
  });

  it('verified evidence has one shape: frozen, its tables the same however often and however it is read or copied', () => {
    const [input] = inputsOf({ months: [{ cand: ['PPF', 'PFE', 'PFM', 'FFT', 'PPP'], base: ['FFF', 'PPP', 'PFX', 'PP-', 'PPF'], other: undefined, regrade: undefined, figures: [], prefix: 'a', order: [] }], pin: false });
    const evidence: BundleEvidence = input!.evidence;
    expect(Object.isFrozen(evidence)).toBe(true);
    expect(evidence.attempts.count).toBeGreaterThan(0);
    const times = newestTimes(evidence);
    const { attempts, grades } = evidence;
    // Reading the objects builds copies and changes nothing.
    expect(evidence.attempts.lines().length).toBe(attempts.count);
    expect(evidence.attempts).toBe(attempts);
    expect(evidence.grades).toBe(grades);
    expect(bundleColumns(evidence).attempts).toBe(attempts);
    // A spread copy keeps every member (the getters it replaced were dropped by a spread).
    const copy = { ...evidence };
    expect(copy.attempts).toBe(attempts);
    expect(copy.grades).toBe(grades);
    expect(Object.keys(copy).sort()).toEqual(['assessments', 'attempts', 'grades', 'grant', 'ledger', 'manifest', 'notes', 'plan']);
    expect(newestTimes(copy)).toEqual(times);
  });
});
