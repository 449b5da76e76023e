/**
 * The grading layer in use (FORMAT.md 7.1: "by default, for each attempt, the
 * latest generation that holds a result for it"; docs/analysis.md: a pin keeps
 * only the pinned grader's generations) and the terminal class (FORMAT.md 5.2).
 * Each expectation runs against the shipped column-wise layer and against the
 * object-by-object reference in test/oracle.
 */
import { describe, expect, it } from 'vitest';
import { TERMINAL_CLASSES } from '../../src/analysis/grading.ts';
import type { GradesFile } from '../../src/bundle/lines.ts';
import type { GradingPin } from '../../src/config/config.ts';
import type { Grader, Grades, Outcome, Plan } from '../../src/schema/index.ts';
import { gradingLayer as referenceLayer, terminalClass as referenceClass, type LayerGrade } from '../oracle/grading.ts';
import { shippedGradingLayer, shippedTerminalClass } from '../helpers/shipped-analysis.ts';
import { GRADER, validBundle } from '../helpers/bundle-builder.ts';
import { REGRADER } from '../helpers/report-fixtures.ts';

const plan = validBundle().plan;
const PLAN_GRADER: Grader = { id: GRADER.id, version: GRADER.version, executable: GRADER.executable };
const DIGEST = `sha256:${'d'.repeat(64)}`;
const THIRD: Grader = { id: 'llm-judge', version: '0.9', executable: `sha256:${'3'.repeat(64)}` };

function generation(n: number, grader: Grader, verdicts: Record<string, 'pass' | 'fail' | 'error'>): GradesFile {
  const grades: Grades = {
    schema: 'ledgerboard.grades.v1',
    generation: n,
    created_at: `2026-09-1${5 + n}T00:00:00Z`,
    grader: { ...grader },
    results: Object.entries(verdicts).map(([attempt_id, verdict]) => ({ attempt_id, verdict, input: DIGEST, output: DIGEST, receipt: DIGEST })),
  };
  return { path: `grades/${n}.json`, grades };
}

// Three generations: 1 by the plan's grader (a1..a3), 2 a partial regrade by
// REGRADER (a1, a2), 3 a partial regrade by THIRD (a2 only). Given out of
// order on purpose: "latest" is by generation number, never by array order.
const g1 = generation(1, PLAN_GRADER, { a1: 'fail', a2: 'fail', a3: 'error' });
const g2 = generation(2, REGRADER, { a1: 'pass', a2: 'error' });
const g3 = generation(3, THIRD, { a2: 'pass' });
const shuffled = [g3, g1, g2];

/** The attempts every layer below is asked about. */
const IDS = ['a1', 'a2', 'a3', 'never-graded'];
type Layer = (plan: Plan, generations: readonly GradesFile[], pin: GradingPin) => (attemptId: string) => LayerGrade | null;
const LAYERS: [string, Layer][] = [
  ['shipped (src/analysis/grading.ts)', (p, generations, pin) => shippedGradingLayer(p, generations, pin, IDS)],
  ['reference (test/oracle/grading.ts)', referenceLayer],
];

describe.each(LAYERS)('%s', (_, gradingLayer) => {
  describe('gradingLayer without a pin', () => {
    const layer = gradingLayer(plan, shuffled, null);

    it('takes, per attempt, the latest generation that holds a result for it', () => {
      // a1: generations 1 and 2 hold it -> 2 (REGRADER, pass).
      expect(layer('a1')).toEqual({ grader: REGRADER, generation: 2, verdict: 'pass' });
      // a2: generations 1, 2 and 3 -> 3 (THIRD, pass).
      expect(layer('a2')).toEqual({ grader: THIRD, generation: 3, verdict: 'pass' });
    });

    it('a regrade covering only some attempts leaves the others in the generation that graded them', () => {
      // a3: only generation 1 graded it.
      expect(layer('a3')).toEqual({ grader: PLAN_GRADER, generation: 1, verdict: 'error' });
    });

    it("an attempt graded by no generation is in the plan's grader's layer with verdict null (missing)", () => {
      const grade = layer('never-graded');
      expect(grade).toEqual({ grader: PLAN_GRADER, generation: null, verdict: null });
      // The plan grader's `profile` is not part of the layer's grader.
      expect(Object.keys(grade!.grader).sort()).toEqual(['executable', 'id', 'version']);
    });

    it('with no generation at all, every attempt is missing in the plan grader layer', () => {
      expect(gradingLayer(plan, [], null)('a1')).toEqual({ grader: PLAN_GRADER, generation: null, verdict: null });
    });

    it('does not reorder the generations array it was given', () => {
      const input = [g3, g1, g2];
      gradingLayer(plan, input, null);
      expect(input.map((g) => g.grades.generation)).toEqual([3, 1, 2]);
    });
  });

  describe('gradingLayer with a pin', () => {
    it("counts only the pinned grader's generations (id + version)", () => {
      const layer = gradingLayer(plan, shuffled, { id: REGRADER.id, version: REGRADER.version });
      expect(layer('a1')).toEqual({ grader: REGRADER, generation: 2, verdict: 'pass' });
      // a2 is regraded by THIRD in generation 3, but the pin ignores it: generation 2 (error).
      expect(layer('a2')).toEqual({ grader: REGRADER, generation: 2, verdict: 'error' });
    });

    it('attempts the pinned grader never graded are excluded (null), not missing', () => {
      const layer = gradingLayer(plan, shuffled, { id: REGRADER.id, version: REGRADER.version });
      expect(layer('a3')).toBeNull();
      expect(layer('never-graded')).toBeNull();
    });

    it("pinning the plan's grader ignores every regrade", () => {
      const layer = gradingLayer(plan, shuffled, { id: PLAN_GRADER.id, version: PLAN_GRADER.version });
      expect(layer('a1')).toEqual({ grader: PLAN_GRADER, generation: 1, verdict: 'fail' });
      expect(layer('a2')).toEqual({ grader: PLAN_GRADER, generation: 1, verdict: 'fail' });
      expect(layer('a3')).toEqual({ grader: PLAN_GRADER, generation: 1, verdict: 'error' });
    });

    it('a pin matches id and version together: same id, other version is another grader', () => {
      // REGRADER shares the id "oracle" with the plan's grader; pin oracle@9.9 matches neither.
      const layer = gradingLayer(plan, shuffled, { id: 'oracle', version: '9.9' });
      for (const id of ['a1', 'a2', 'a3']) expect(layer(id)).toBeNull();
    });

    it('with two generations of the pinned grader, the later one wins', () => {
      const g4 = generation(4, REGRADER, { a1: 'fail' });
      const layer = gradingLayer(plan, [g4, g3, g2, g1], { id: REGRADER.id, version: REGRADER.version });
      expect(layer('a1')).toEqual({ grader: REGRADER, generation: 4, verdict: 'fail' });
      expect(layer('a2')).toEqual({ grader: REGRADER, generation: 2, verdict: 'error' });
    });
  });
});

const CLASSES: [string, typeof referenceClass][] = [
  ['shipped (src/analysis/grading.ts)', shippedTerminalClass],
  ['reference (test/oracle/grading.ts)', referenceClass],
];

describe.each(CLASSES)('%s', (_, terminalClass) => {
  describe('terminalClass (FORMAT.md 5.2)', () => {
    it('a completed attempt: pass -> resolved; fail / error / missing -> grader_failure with the reason', () => {
      expect(terminalClass('completed', 'pass')).toEqual({ terminal: 'resolved', reason: null });
      expect(terminalClass('completed', 'fail')).toEqual({ terminal: 'grader_failure', reason: 'failed' });
      expect(terminalClass('completed', 'error')).toEqual({ terminal: 'grader_failure', reason: 'errored' });
      expect(terminalClass('completed', null)).toEqual({ terminal: 'grader_failure', reason: 'missing' });
    });

    const notCompleted: Outcome[] = ['model_failure', 'safety_failure', 'harness_failure', 'environment_failure', 'invalid_case', 'timeout', 'cancelled'];
    it.each(notCompleted)('%s is its own class whatever the grade (even a pass)', (outcome) => {
      for (const verdict of ['pass', 'fail', 'error', null] as const) {
        expect(terminalClass(outcome, verdict)).toEqual({ terminal: outcome, reason: null });
      }
    });

    it('there are exactly nine classes: resolved, grader_failure and the seven non-completed outcomes', () => {
      expect(TERMINAL_CLASSES).toHaveLength(9);
      expect([...TERMINAL_CLASSES].sort()).toEqual(['resolved', 'grader_failure', ...notCompleted].sort());
    });
  });
});
