/**
 * Order independence of the report (FORMAT.md 8: "Same inputs, same report,
 * byte for byte"), checked with fast-check at a fixed seed:
 *
 * - the order (and repetition) of bundle inputs,
 * - the order of attempts in a verified bundle's in-memory evidence,
 * - the order of results inside a grading generation, and of generations,
 *
 * never change canonicalJson(report). Shuffling the lines of attempts.jsonl
 * and the results of grades/*.json and re-sealing gives new bundle ids (and
 * so a new report id and new bootstrap seeds), but the same figures, classes,
 * verdicts and task tables.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evidenceFromObjects, type BundleEvidence } from '../../src/bundle/evidence.ts';
import type { AttemptLine, GradesFile } from '../../src/bundle/lines.ts';
import { Config } from '../../src/config/config.ts';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import { buildReport, type ReportInput } from '../../src/report/build-report.ts';
import { groupedIncompatibilities, type Report } from '../../src/report/schema.ts';
import { BASELINE, CANDIDATE, type BundleModel } from '../helpers/bundle-builder.ts';
import { attemptId, BASE, CAND, gridModel, OTHER, REGRADER, reportInput, type ModelSpec, type TaskSpec } from '../helpers/report-fixtures.ts';

const SEED = 20261130;
const RUNS = 60;
const CONFIG = Config.parse({});

const TASKS: TaskSpec[] = [{ id: 't1', cluster: 'c1' }, { id: 't2', cluster: 'c1' }, { id: 't3', cluster: 'c3' }, { id: 't4', holdout: false }, { id: 't5', cluster: 'c5' }];

/**
 * Attempt figures vary with the attempt id so that sums are exercised. Wall
 * times are tenths, inexact in binary, so a sum taken in another order would
 * show in the last bit.
 */
function vary(attempt: BundleModel['attempts'][number]): void {
  const n = [...attempt.attempt_id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 9973, 7);
  attempt.wall_seconds = (n % 4000) / 10;
  attempt.tokens = n % 7 === 0 ? null : { input: n * 3, output: n % 101 };
  attempt.retries = n % 3;
  const states = ['complete', 'partial', 'unavailable', 'not_applicable', 'zero'] as const;
  const state = states[n % 5]!;
  attempt.cost = { state, micros: state === 'complete' || state === 'partial' ? n % 1000 : state === 'zero' ? 0 : null };
}

const SEPTEMBER: ModelSpec = {
  title: 'September',
  tasks: TASKS,
  grid: { [CAND]: ['PPF', 'PFE', 'PFM', 'FFT', 'PPP'], [BASE]: ['FFF', 'PPP', 'PFX', 'PP-', 'PPF'] },
  regrades: [{ grader: REGRADER, created_at: '2026-09-20T00:00:00Z', verdicts: { [attemptId('a', 0, 't1', 3)]: 'pass', [attemptId('a', 1, 't5', 3)]: 'pass' } }],
  tweak: vary,
};
const OCTOBER: ModelSpec = {
  title: 'October',
  // 5 tasks x 3 subjects x 3 attempts = 45 dispatches; 666,666 x 45 = 29,999,970 gives September's
  // per-attempt share (floor(20,000,000 / 30) = 666,666), so both plans share one board.
  aggregate: 29_999_970,
  created_at: '2026-10-01T00:00:00Z',
  startedAt: '2026-10-02T00:00:00Z',
  endedAt: '2026-10-02T00:10:00.25Z',
  gradedAt: '2026-10-03T00:00:00Z',
  tasks: TASKS,
  subjects: [CANDIDATE, BASELINE, OTHER],
  grid: { [CAND]: ['PPP', 'PP', 'FFF', 'PPP', 'PFP'], [BASE]: ['PFF', 'PPP', 'PPX', 'PPP', 'FFF'], [OTHER.selector]: ['PEP', 'TTP', 'PPP', 'MPP', 'FPP'] },
  tweak: vary,
};
// Boards of their own (other tool policies): t1 regressed; t1 and t3 improved.
const REGRESSING: ModelSpec = { title: 'regressing', tasks: TASKS, toolPolicy: digestBytes('tool policy 2'), grid: { [CAND]: ['F', 'P', 'P', 'P', 'P'], [BASE]: ['P', 'P', 'F', 'P', 'P'] }, tweak: vary };
const PASSING: ModelSpec = { title: 'passing', tasks: TASKS, toolPolicy: digestBytes('tool policy 3'), grid: { [CAND]: ['P', 'F', 'P', 'F', 'P'], [BASE]: ['F', 'P', 'F', 'P', 'P'] }, tweak: vary };
const CONFLICT_A: ModelSpec = { ...SEPTEMBER, title: 'conflicted', regrades: [] };
const CONFLICT_B: ModelSpec = { ...CONFLICT_A, tweak: (a) => (vary(a), (a.retries += 1)) };
const INVALID: ModelSpec = { ...OCTOBER, title: 'invalid' };

const SPECS = [SEPTEMBER, OCTOBER, REGRESSING, PASSING, CONFLICT_A, CONFLICT_B];
const models = SPECS.map((s) => gridModel(s));
const inputs: ReportInput[] = [...models.map((m) => reportInput(m)), reportInput(gridModel(INVALID), { after: { 'stray.log': 'x' } })];
const baseline = buildReport(inputs, CONFIG);
const baselineBytes = canonicalJson(baseline);

/** A permutation of 0..n-1 as an arbitrary. */
const permutation = (n: number) => fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n });
const apply = <T>(items: readonly T[], order: readonly number[]): T[] => order.map((i) => items[i]!);

/** The evidence rebuilt from its objects, with its attempts or generations replaced (in another order). */
function rebuiltWith(e: BundleEvidence, parts: { attempts?: AttemptLine[]; grades?: GradesFile[] }): BundleEvidence {
  return evidenceFromObjects({ ...e, attempts: parts.attempts ?? e.attempts.lines(), grades: parts.grades ?? e.grades.map((g) => g.file()) });
}

describe('the fixture', () => {
  it('six verified bundles (two of one plan: a conflict) and one invalid; four boards; every verdict but NO_GAIN', () => {
    expect(inputs.map((i) => i.verification.status)).toEqual(['verified', 'verified', 'verified', 'verified', 'verified', 'verified', 'invalid']);
    expect(baseline.conflicts).toHaveLength(1);
    // September + October pooled; September's partial regrade (REGRADER); two other tool policies.
    expect(baseline.boards).toHaveLength(4);
    expect(baseline.cohorts.filter((c) => c.plans.length === 2).map((c) => c.subject.model).sort()).toEqual([BASELINE.model, CANDIDATE.model].sort());
    expect(new Set(baseline.cohorts.map((c) => c.verdict))).toEqual(new Set([null, 'REGRESSION', 'NO_VERDICT', 'PASS']));
    expect(groupedIncompatibilities(baseline).by_ledger.length).toBeGreaterThan(0);
  });
});

describe('order never changes the report bytes', () => {
  it('order of bundle inputs, with repeated copies', () => {
    fc.assert(
      fc.property(permutation(inputs.length), fc.array(fc.nat(inputs.length - 1), { maxLength: 3 }), (order, repeats) => {
        const shuffled = [...apply(inputs, order), ...repeats.map((i) => inputs[i]!)];
        expect(canonicalJson(buildReport(shuffled, CONFIG))).toBe(baselineBytes);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('order of attempts in each bundle\'s in-memory evidence', () => {
    const sizes = inputs.map((i) => i.verification.evidence.attempts.count);
    fc.assert(
      fc.property(fc.tuple(...sizes.map(permutation)), permutation(inputs.length), (orders, bundleOrder) => {
        const shuffled = inputs.map((input, k) => {
          const v = input.verification;
          return { ...input, verification: { ...v, evidence: rebuiltWith(v.evidence, { attempts: apply(v.evidence.attempts.lines(), orders[k]!) }) } };
        });
        expect(canonicalJson(buildReport(apply(shuffled, bundleOrder), CONFIG))).toBe(baselineBytes);
      }),
      { seed: SEED + 1, numRuns: RUNS },
    );
  });

  it('order of results in each grading generation, and of the generations', () => {
    const generationCounts = inputs.map((i) => i.verification.evidence.grades.length);
    const resultCounts = inputs.flatMap((i) => i.verification.evidence.grades.map((g) => g.count));
    fc.assert(
      fc.property(fc.tuple(...generationCounts.map(permutation)), fc.tuple(...resultCounts.map(permutation)), (genOrders, resultOrders) => {
        let r = 0;
        const shuffled = inputs.map((input, k) => {
          const v = input.verification;
          const grades = v.evidence.grades.map((table) => {
            const g = table.file();
            return { ...g, grades: { ...g.grades, results: apply(g.grades.results, resultOrders[r++]!) } };
          });
          return { ...input, verification: { ...v, evidence: rebuiltWith(v.evidence, { grades: apply(grades, genOrders[k]!) }) } };
        });
        expect(canonicalJson(buildReport(shuffled, CONFIG))).toBe(baselineBytes);
      }),
      { seed: SEED + 2, numRuns: RUNS },
    );
  });

  it('the same holds with a grading pin (the excluded counts included)', () => {
    const pinned = Config.parse({ grading_pin: { id: REGRADER.id, version: REGRADER.version } });
    const expected = canonicalJson(buildReport(inputs, pinned));
    expect(JSON.parse(expected).excluded_by_grading_pin.length).toBeGreaterThan(0);
    const sizes = inputs.map((i) => i.verification.evidence.attempts.count);
    fc.assert(
      fc.property(fc.tuple(...sizes.map(permutation)), permutation(inputs.length), (orders, bundleOrder) => {
        const shuffled = inputs.map((input, k) => {
          const v = input.verification;
          return { ...input, verification: { ...v, evidence: rebuiltWith(v.evidence, { attempts: apply(v.evidence.attempts.lines(), orders[k]!) }) } };
        });
        expect(canonicalJson(buildReport(apply(shuffled, bundleOrder), pinned))).toBe(expected);
      }),
      { seed: SEED + 3, numRuns: RUNS },
    );
  });
});

/**
 * What must not change when bundles are re-serialized: everything but bundle
 * ids, the report id and bootstrap seeds. wall_seconds.sum is compared to 9
 * decimals (the exact test at the end of this file pins it bit for bit).
 */
function figuresOf(report: Report): unknown {
  return {
    cohorts: report.cohorts.map((c) => {
      const { plans, delta, wall_seconds, ...rest } = c;
      return {
        ...rest,
        wall_seconds: { sum: Number(wall_seconds.sum.toFixed(9)), median: wall_seconds.median },
        plans: plans.map(({ bundle_id: _bundle, ...p }) => p),
        delta: delta && { rate: delta.rate, paired_tasks: delta.paired_tasks },
      };
    }),
    boards: report.boards,
    incompatibilities: report.incompatibilities,
    conflicts: report.conflicts.map((c) => ({ plan_id: c.plan_id, bundles: c.bundle_ids.length })),
    excluded: report.excluded_by_grading_pin.map((e) => e.attempts),
    bundles: report.bundles.map((b) => ({ plan: b.plan, status: b.status, counted: b.counted, findings: b.findings })).sort((x, y) => canonicalJson(x).localeCompare(canonicalJson(y))),
    evidence_date: report.evidence_date,
  };
}

describe('shuffled JSONL lines and grade results, re-sealed', () => {
  it('bundles stay verified under new ids; figures, classes, verdicts and task tables are identical', () => {
    const expected = figuresOf(baseline);
    const attemptCounts = models.map((m) => m.attempts.length);
    const resultCounts = models.flatMap((m) => m.grades.map((g) => g.value.results.length));
    fc.assert(
      fc.property(fc.tuple(...attemptCounts.map(permutation)), fc.tuple(...resultCounts.map(permutation)), (attemptOrders, resultOrders) => {
        let r = 0;
        const resealed = models.map((model, k) => {
          const copy: BundleModel = { ...model, attempts: apply(model.attempts, attemptOrders[k]!) };
          copy.grades = model.grades.map((g) => ({ ...g, value: { ...g.value, results: apply(g.value.results, resultOrders[r++]!) } }));
          return reportInput(copy);
        });
        for (const input of resealed) expect(input.verification.status).toBe('verified');
        const report = buildReport([...resealed, inputs.at(-1)!], CONFIG);
        expect(figuresOf(report)).toEqual(expected);
      }),
      { seed: SEED + 4, numRuns: RUNS },
    );
  });

  it('a reordered attempts.jsonl is a new bundle (new bundle id, same plan id): the order is not hidden, the figures do not move', () => {
    const model = models[0]!;
    const reversed = reportInput({ ...model, attempts: [...model.attempts].reverse() });
    expect(reversed.verification.plan_id).toBe(inputs[0]!.verification.plan_id);
    expect(reversed.verification.bundle_id).not.toBe(inputs[0]!.verification.bundle_id);
    const a = buildReport([inputs[0]!], CONFIG);
    const b = buildReport([reversed], CONFIG);
    expect(b.report_id).not.toBe(a.report_id);
    expect(figuresOf(b)).toEqual(figuresOf(a));
  });
});

describe('inexact wall times pooled across bundles', () => {
  // Two plans on one board. Candidate wall times: September [0.1, 0], October [0.2, 0.3].
  // Summed September first: ((0.1 + 0) + 0.2) + 0.3 = 0.6000000000000001;
  // October first:          ((0.2 + 0.3) + 0.1) + 0   = 0.6.
  // Regression: cohortFigures once summed in bundle-id order, and a bundle id changes when
  // attempts.jsonl lines are merely reordered, so the sum moved in its last bit. It now adds the
  // values in ascending order (src/analysis/score.ts orderFreeSum).
  const spec = (title: string, created_at: string, cand: [number, number]): ModelSpec => ({
    title,
    created_at,
    startedAt: '2026-10-02T00:00:00Z',
    endedAt: '2026-10-02T00:10:00Z',
    tasks: [{ id: 't1' }, { id: 't2' }],
    grid: { [CAND]: ['P', 'F'], [BASE]: ['F', 'F'] },
    tweak: (a) => {
      a.wall_seconds = a.model === CANDIDATE.model ? cand[a.task_id === 't1' ? 0 : 1] : 1;
    },
  });
  const september = gridModel(spec('September', '2026-09-14T12:00:00Z', [0.1, 0]));
  const october = reportInput(gridModel(spec('October', '2026-10-01T00:00:00Z', [0.2, 0.3])));
  const octoberId = october.verification.bundle_id!;

  /** September re-serialized with its attempts.jsonl lines in every order (4 lines: 24 orders). */
  function reorderings(): ReportInput[] {
    const out: ReportInput[] = [];
    const permute = (rest: BundleModel['attempts'], done: BundleModel['attempts']) => {
      if (rest.length === 0) out.push(reportInput({ ...september, attempts: done }));
      rest.forEach((a, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...done, a]));
    };
    permute(september.attempts, []);
    return out;
  }
  const variants = reorderings();
  const before = variants.find((v) => v.verification.bundle_id! < octoberId);
  const after = variants.find((v) => v.verification.bundle_id! > octoberId);

  const candidateWall = (first: ReportInput) =>
    buildReport([first, october], CONFIG).cohorts.find((c) => c.subject.model === CANDIDATE.model)!.wall_seconds.sum;

  it('the fixture: some reorderings of September sort before October, some after; the sums agree to 1e-12', () => {
    expect(before && after).toBeTruthy();
    for (const v of variants) expect(v.verification.status).toBe('verified');
    expect(candidateWall(before!)).toBeCloseTo(0.6, 12);
    expect(candidateWall(after!)).toBeCloseTo(0.6, 12);
  });

  it('wall_seconds.sum does not depend on which bundle id sorts first (src/analysis/score.ts cohortFigures)', () => {
    expect(candidateWall(before!)).toBe(candidateWall(after!));
  });
});
