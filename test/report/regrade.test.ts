/**
 * A later grading generation replaces the verdicts of the grader the plan
 * pinned (FORMAT.md 7.1: the latest generation is the layer in use). The
 * report says so on every cohort it touches (`regrade`): which generation
 * and grader, how many outcomes moved which way against generation 1, and
 * the cohorts and verdicts generation 1 alone gives. Hand-built bundles:
 * a regrade that turns REGRESSION into PASS, by the same grader (same
 * board) and by a friendlier one (a new board), and one of the baseline.
 */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { buildReport, type ReportInput } from '../../src/report/build-report.ts';
import { Report } from '../../src/report/schema.ts';
import { BASELINE, CANDIDATE, GRADER } from '../helpers/bundle-builder.ts';
import { attemptId, BASE, CAND, gridInput, REGRADER, type ModelSpec } from '../helpers/report-fixtures.ts';

const grader = (g: { id: string; version: string; executable: string }) => ({ id: g.id, version: g.version, executable: g.executable });

function build(inputs: ReportInput[]): Report {
  const report = buildReport(inputs, Config.parse({}));
  expect(Report.safeParse(report).success).toBe(true);
  return report;
}

const cohort = (report: Report, model: string, grading: { version: string }) => {
  const board = report.boards.find((b) => b.key.grading.version === grading.version)!;
  return report.cohorts.find((c) => c.board_id === board.board_id && c.subject.model === model)!;
};

// Headline tasks t1, t2, one attempt each. Candidate: t1 fail, t2 pass; baseline: t1 pass, t2 fail.
// Generation 1: t1 REGRESSED, t2 IMPROVED, so the candidate's verdict is REGRESSION.
const BASE_SPEC: ModelSpec = { tasks: [{ id: 't1' }, { id: 't2' }], grid: { [CAND]: ['F', 'P'], [BASE]: ['P', 'F'] } };
const CAND_T1 = attemptId('a', 0, 't1', 1);
const CAND_T2 = attemptId('a', 0, 't2', 1);
const BASE_T1 = attemptId('a', 1, 't1', 1);
const BASE_T2 = attemptId('a', 1, 't2', 1);

describe('no regrade', () => {
  it('every cohort says null, and the verdict is generation 1’s', () => {
    const input = gridInput(BASE_SPEC);
    expect(input.verification.status).toBe('verified');
    const report = build([input]);
    expect(report.cohorts.map((c) => c.regrade)).toEqual([null, null]);
    expect(cohort(report, CANDIDATE.model, GRADER).verdict).toBe('REGRESSION');
  });
});

describe('a regrade by the plan’s own grader turns REGRESSION into PASS on the same board', () => {
  const input = gridInput({ ...BASE_SPEC, regrades: [{ grader: GRADER, created_at: '2026-10-01T00:00:00Z', verdicts: { [CAND_T1]: 'pass' } }] });
  const report = build([input]);
  const candidate = cohort(report, CANDIDATE.model, GRADER);

  it('the layer in use is the regrade: PASS', () => {
    expect(input.verification.status).toBe('verified');
    expect(report.boards).toHaveLength(1);
    expect(candidate.verdict).toBe('PASS');
  });

  it('the cohort names the generation and grader, counts one outcome moved fail -> pass, and gives the earlier verdict REGRESSION', () => {
    expect(candidate.regrade).toEqual({
      generations: [
        { plan_id: input.verification.plan_id, generation: 2, created_at: '2026-10-01T00:00:00Z', grader: grader(GRADER), attempts: 1, fail_to_pass: 1, pass_to_fail: 0 },
      ],
      attempts: 1,
      fail_to_pass: 1,
      pass_to_fail: 0,
      baseline_regraded: false,
      earlier: [
        {
          cohort_id: candidate.cohort_id,
          board_id: candidate.board_id,
          grader: grader(GRADER),
          role: 'candidate',
          headline: { resolved: 1, graded: 2, rate: 0.5 },
          verdict: 'REGRESSION',
          classes: { improved: 1, regressed: 1, unchanged: 0, unclear: 0 },
          regressed_tasks: ['t1'],
        },
      ],
    });
  });

  it('the baseline, untouched, says null', () => {
    expect(cohort(report, BASELINE.model, GRADER).regrade).toBeNull();
  });
});

describe('a friendlier grader regrades everything: a new board, PASS, and the earlier board’s REGRESSION', () => {
  const input = gridInput({
    ...BASE_SPEC,
    regrades: [{ grader: REGRADER, created_at: '2026-10-01T00:00:00Z', verdicts: { [CAND_T1]: 'pass', [CAND_T2]: 'pass', [BASE_T1]: 'pass', [BASE_T2]: 'fail' } }],
  });
  const report = build([input]);

  it('only the regrader’s board is in use', () => {
    expect(report.boards.map((b) => b.key.grading)).toEqual([grader(REGRADER)]);
  });

  it('the candidate: PASS now, 1 of 2 regraded attempts moved fail -> pass, REGRESSION on the plan grader’s board', () => {
    const candidate = cohort(report, CANDIDATE.model, REGRADER);
    expect(candidate.verdict).toBe('PASS');
    expect(candidate.regrade).toMatchObject({ attempts: 2, fail_to_pass: 1, pass_to_fail: 0, baseline_regraded: true });
    expect(candidate.regrade!.generations).toMatchObject([{ generation: 2, grader: grader(REGRADER), attempts: 2, fail_to_pass: 1, pass_to_fail: 0 }]);
    expect(candidate.regrade!.earlier).toHaveLength(1);
    const [earlier] = candidate.regrade!.earlier;
    expect(earlier).toMatchObject({ grader: grader(GRADER), role: 'candidate', verdict: 'REGRESSION', regressed_tasks: ['t1'], headline: { resolved: 1, graded: 2 } });
    expect(earlier!.cohort_id).not.toBe(candidate.cohort_id);
    expect(earlier!.board_id).not.toBe(candidate.board_id);
  });

  it('the baseline: regraded, nothing moved, a baseline then too', () => {
    const baseline = cohort(report, BASELINE.model, REGRADER);
    expect(baseline.regrade).toMatchObject({ attempts: 2, fail_to_pass: 0, pass_to_fail: 0, baseline_regraded: false });
    expect(baseline.regrade!.earlier).toMatchObject([{ role: 'baseline', verdict: null, classes: null, headline: { resolved: 1, graded: 2 } }]);
  });
});

describe('a regrade of the baseline alone moves the candidate’s verdict', () => {
  // The baseline's t1 pass -> fail: t1 UNCHANGED (fail, fail), t2 IMPROVED: PASS.
  const input = gridInput({ ...BASE_SPEC, regrades: [{ grader: GRADER, created_at: '2026-10-01T00:00:00Z', verdicts: { [BASE_T1]: 'fail' } }] });
  const report = build([input]);

  it('the candidate says its baseline was regraded and gives the earlier REGRESSION', () => {
    const candidate = cohort(report, CANDIDATE.model, GRADER);
    expect(candidate.verdict).toBe('PASS');
    expect(candidate.regrade).toMatchObject({ generations: [], attempts: 0, fail_to_pass: 0, pass_to_fail: 0, baseline_regraded: true });
    expect(candidate.regrade!.earlier).toMatchObject([{ cohort_id: candidate.cohort_id, verdict: 'REGRESSION' }]);
  });

  it('the baseline counts its one outcome moved pass -> fail', () => {
    expect(cohort(report, BASELINE.model, GRADER).regrade).toMatchObject({ attempts: 1, fail_to_pass: 0, pass_to_fail: 1 });
  });
});

describe('the demo’s November regrade (generation 2 by oracle 1.2.1 of all 288 attempts)', () => {
  it('`earlier` is what the report pinned to the plan’s grader says; 11 outcomes moved fail -> pass, none pass -> fail', async () => {
    const { verifyPaths } = await import('../../src/pipeline/verify-paths.ts');
    const results = await verifyPaths([new URL('../../content/bundles/2026-11-16-widget-bugs-offline-tools', import.meta.url).pathname]);
    const report = buildReport(results, Config.parse({}));
    const pinned = buildReport(results, Config.parse({ grading_pin: { id: 'oracle', version: '1.2.0' } }));
    const regraded = report.cohorts.filter((c) => c.regrade);
    expect(regraded).toHaveLength(4);
    expect(regraded.reduce((n, c) => n + c.regrade!.fail_to_pass, 0)).toBe(11);
    expect(regraded.reduce((n, c) => n + c.regrade!.pass_to_fail, 0)).toBe(0);
    for (const c of regraded) {
      expect(c.regrade!.earlier).toHaveLength(1);
      const earlier = c.regrade!.earlier[0]!;
      const then = pinned.cohorts.find((p) => p.cohort_id === earlier.cohort_id)!;
      expect(earlier).toEqual({
        cohort_id: then.cohort_id,
        board_id: then.board_id,
        grader: pinned.boards.find((b) => b.board_id === then.board_id)!.key.grading,
        role: then.subject.role,
        headline: { resolved: then.headline.resolved, graded: then.headline.graded, rate: then.headline.rate },
        verdict: then.verdict,
        classes: then.classes,
        regressed_tasks: then.regressed_tasks,
      });
      // Resolved now minus resolved then: what moved on the headline tasks (every move of this regrade is on one).
      expect(c.headline.resolved - earlier.headline.resolved).toBe(c.regrade!.fail_to_pass - c.regrade!.pass_to_fail);
    }
    expect(Object.fromEntries(regraded.map((c) => [c.subject.model, [c.verdict, c.regrade!.fail_to_pass, c.regrade!.earlier[0]!.verdict]]))).toEqual({
      'acme/mini-2026-08-01': ['PASS', 7, 'NO_VERDICT'],
      'lumen/sage-2026-10-15': ['PASS', 0, 'NO_VERDICT'],
      'orbit/coder-7b-2026-07': ['REGRESSION', 3, 'REGRESSION'],
      'acme/base-2025-01-01': [null, 1, null],
    });
  });
});
