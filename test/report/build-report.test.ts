/**
 * buildReport on small bundles sealed in memory and verified with
 * verifyBundle (FORMAT.md sections 6, 7 and 8): which bundles count,
 * conflicts, boards and incompatibilities, the report id, the section 8
 * cohort shape, the grading pin, evidence_date, and no clock inside.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { twoProportionTest } from '../../src/analysis/stats.ts';
import { Config } from '../../src/config/config.ts';
import { canonicalJson, digestBytes, digestCanonical, selfId } from '../../src/json/canonical.ts';
import { buildReport, type ReportInput } from '../../src/report/build-report.ts';
import { groupedIncompatibilities, Report } from '../../src/report/schema.ts';
import { cohortPairCount, expandCohortPairs, expandLedgerPairs } from '../../src/analysis/incompatibilities.ts';
import { BASELINE, CANDIDATE, GRADER } from '../helpers/bundle-builder.ts';
import { attemptId, BASE, CAND, gridInput, gridModel, OTHER, REGRADER, reportInput, type ModelSpec, type TaskSpec } from '../helpers/report-fixtures.ts';

const DEFAULTS = Config.parse({});
const sha = (text: string) => `sha256:${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')}`;

/** buildReport, checked on every call: schema-valid and its report_id re-derives. */
function build(inputs: ReportInput[], config: Config = DEFAULTS): Report {
  const report = buildReport(inputs, config);
  const parsed = Report.safeParse(report);
  if (!parsed.success) throw new Error(`report fails its schema: ${parsed.error.message}`);
  const { report_id, ...rest } = report;
  expect(report_id).toBe(sha(canonicalJson(rest)));
  return report;
}

// Ledger: t1 (cluster c1, headline), t2 (c1 sibling: watch list), t3 (c3, headline), t4 (public).
const TASKS: TaskSpec[] = [{ id: 't1', cluster: 'c1' }, { id: 't2', cluster: 'c1' }, { id: 't3', cluster: 'c3' }, { id: 't4', holdout: false }];

// The main bundle. Candidate: t1 PP, t2 PF, t3 PF, t4 FF; baseline: t1 FF, t2 PP, t3 PF, t4 PP.
const MAIN: ModelSpec = { tasks: TASKS, grid: { [CAND]: ['PP', 'PF', 'PF', 'FF'], [BASE]: ['FF', 'PP', 'PF', 'PP'] } };
const main = gridInput(MAIN);

const cohortOf = (report: Report, model: string) => {
  const found = report.cohorts.filter((c) => c.subject.model === model);
  expect(found).toHaveLength(1);
  return found[0]!;
};

describe('the bundles built for these tests', () => {
  it('the main bundle is verified with no finding', () => {
    expect(main.verification.status).toBe('verified');
    expect(main.verification.findings).toEqual([]);
  });
});

describe('the main bundle: figures, classes and verdict', () => {
  const report = build([main]);
  const candidate = cohortOf(report, CANDIDATE.model);
  const baseline = cohortOf(report, BASELINE.model);

  it('one board, its ledger split, the baseline named', () => {
    expect(report.boards).toHaveLength(1);
    const board = report.boards[0]!;
    expect(board.ledger).toMatchObject({ name: 'widget-bugs', headline_tasks: ['t1', 't3'], watch_list_tasks: ['t2'], public_tasks: ['t4'] });
    expect(board.baseline_cohort_id).toBe(baseline.cohort_id);
    expect(board.baseline_problem).toBeNull();
    // Ranked by headline rate: candidate 0.75 first, baseline 0.25 second.
    expect(board.cohorts).toEqual([candidate.cohort_id, baseline.cohort_id]);
    expect([candidate.rank, baseline.rank]).toEqual([1, 2]);
  });

  it('board and cohort ids are the digests of the key objects (re-derived here from the board key)', () => {
    const board = report.boards[0]!;
    expect(board.board_id).toBe(sha(canonicalJson(board.key)));
    for (const c of report.cohorts) {
      expect(c.cohort_id).toBe(sha(canonicalJson({ ...board.key, subject: { model: c.subject.model, agent: c.subject.agent } })));
    }
    expect(board.key.grading).toEqual({ id: GRADER.id, version: GRADER.version, executable: GRADER.executable });
    expect(board.key.origin).toBe('frozen');
  });

  it('the FORMAT.md section 8 minimal cohort shape, hand-computed', () => {
    // Candidate headline: t1 PP + t3 PF = 3 resolved of 4; t1 IMPROVED (pass vs fail),
    // t3 UNCLEAR (mixed vs mixed): no regression, 1 improved -> PASS.
    expect(candidate).toMatchObject({
      cohort_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      board_id: report.boards[0]!.board_id,
      subject: { model: CANDIDATE.model, agent: { name: 'loop', version: '3.1.0' }, role: 'candidate' },
      headline: { tasks: 2, resolved: 3, graded: 4, rate: 0.75 },
      classes: { improved: 1, regressed: 0, unchanged: 0, unclear: 1 },
      verdict: 'PASS',
    });
    expect(candidate.headline.wilson).toHaveLength(2);
    // Wilson(3, 4) ~ [0.3006, 0.9544].
    expect(candidate.headline.wilson![0]).toBeCloseTo(0.3006, 4);
    expect(candidate.headline.wilson![1]).toBeCloseTo(0.9544, 4);
    // Baseline: t1 FF + t3 PF = 1 of 4; classes and verdict null for the baseline itself.
    expect(baseline).toMatchObject({
      subject: { model: BASELINE.model, agent: { name: 'loop', version: '3.1.0' }, role: 'baseline' },
      headline: { tasks: 2, resolved: 1, graded: 4, rate: 0.25 },
      classes: null,
      verdict: null,
      delta: null,
    });
  });

  it('watch list and public are apart from the headline', () => {
    expect(candidate.watch_list).toMatchObject({ tasks: 1, resolved: 1, graded: 2, rate: 0.5 });
    expect(candidate.public).toMatchObject({ tasks: 1, resolved: 0, graded: 2, rate: 0 });
    expect(baseline.watch_list).toMatchObject({ resolved: 2, graded: 2, rate: 1 });
    expect(baseline.public).toMatchObject({ resolved: 2, graded: 2, rate: 1 });
  });

  it('per-task sides and the delta against the baseline', () => {
    expect(candidate.tasks).toEqual([
      { task_id: 't1', candidate: { outcome: 'pass', reason: null, attempts: 2, resolved: 2 }, baseline: { outcome: 'fail', reason: null, attempts: 2, resolved: 0 }, class: 'IMPROVED' },
      { task_id: 't3', candidate: { outcome: 'mixed', reason: null, attempts: 2, resolved: 1 }, baseline: { outcome: 'mixed', reason: null, attempts: 2, resolved: 1 }, class: 'UNCLEAR' },
    ]);
    // Pooled rates over the two paired headline tasks: 3/4 - 1/4 = 0.5.
    expect(candidate.delta).toMatchObject({ rate: 0.5, paired_tasks: 2 });
    expect(candidate.baseline_cohort_id).toBe(baseline.cohort_id);
  });
});

describe('which bundles count', () => {
  // Each of these names a third subject: had it been counted, a cohort for OTHER would appear.
  const other = (title: string): ModelSpec => ({
    title,
    created_at: '2026-09-14T12:00:00Z',
    tasks: TASKS,
    subjects: [OTHER, BASELINE],
    grid: { [OTHER.selector]: ['P', 'P', 'P', 'P'], [BASE]: ['F', 'F', 'F', 'F'] },
    endedAt: '2026-12-31T23:59:59Z',
  });
  const invalid = gridInput(other('invalid'), { after: { 'unlisted.txt': 'not in the manifest' } });
  const noVerdict = gridInput(other('no verdict'), { remove: ['grades/1.json'] });
  const unreadable = gridInput(other('unreadable manifest'), { manifestRaw: 'not json' });

  it('the tampered bundles have the statuses their findings give', () => {
    expect(invalid.verification.status).toBe('invalid');
    expect(noVerdict.verification.status).toBe('no_verdict');
    expect(unreadable.verification.status).toBe('invalid');
    expect(unreadable.verification.bundle_id).toBeNull();
  });

  const report = build([invalid, main, noVerdict, unreadable]);

  it('every bundle is listed with its status and findings; only the verified one is counted', () => {
    expect(report.bundles).toHaveLength(4);
    const byTitle = new Map(report.bundles.map((b) => [b.plan?.title ?? null, b]));
    expect(byTitle.get('widget-bugs bake-off, September')).toMatchObject({ status: 'verified', counted: true, findings: [] });
    expect(byTitle.get('invalid')).toMatchObject({ status: 'invalid', counted: false, bundle_id: invalid.verification.bundle_id });
    expect(byTitle.get('invalid')!.findings.map((f) => f.code)).toContain('UNLISTED_FILE');
    expect(byTitle.get('no verdict')).toMatchObject({ status: 'no_verdict', counted: false });
    expect(byTitle.get('no verdict')!.findings.map((f) => f.code)).toContain('MISSING_FILE');
    expect(byTitle.get('unreadable manifest')).toMatchObject({ status: 'invalid', counted: false, bundle_id: null });
    expect(byTitle.get('unreadable manifest')!.findings.map((f) => f.code)).toContain('BAD_JSON');
    for (const b of report.bundles) {
      const input = [invalid, main, noVerdict, unreadable].find((i) => i.content_digest === b.content_digest)!;
      expect(b.findings).toEqual(input.verification.findings.map((f) => ({ ...f })));
    }
  });

  it('only the verified bundle contributes cohorts, plans and the evidence date', () => {
    expect(report.cohorts.map((c) => c.subject.model).sort()).toEqual([BASELINE.model, CANDIDATE.model].sort());
    for (const c of report.cohorts) expect(c.plans.map((p) => p.plan_id)).toEqual([main.verification.plan_id]);
    // The uncounted bundles' attempts ended 2026-12-31; the main bundle's newest timestamp is its grades (09:00).
    expect(report.evidence_date).toBe('2026-09-15T09:00:00Z');
    // Same boards and cohorts, bootstrap seeds included (the counted bundle ids are the same), as the main bundle alone.
    const alone = build([main]);
    expect(report.inputs_digest).toBe(alone.inputs_digest);
    expect(report.cohorts).toEqual(alone.cohorts);
    expect(report.boards).toEqual(alone.boards);
  });

  it('the same bundle given twice is listed and counted once: the report bytes are those of one copy', () => {
    const once = build([main]);
    const twice = build([main, main, { ...main }]);
    expect(twice.bundles).toHaveLength(1);
    expect(canonicalJson(twice)).toBe(canonicalJson(once));
  });

  it('two different bundles of one plan: a conflict, neither counted, no cohort from them', () => {
    const changed = gridModel(MAIN);
    changed.attempts[0]!.wall_seconds = 601; // another bundle of the same plan
    const second = reportInput(changed);
    expect(second.verification.status).toBe('verified');
    expect(second.verification.plan_id).toBe(main.verification.plan_id);
    expect(second.verification.bundle_id).not.toBe(main.verification.bundle_id);

    const report = build([main, second]);
    expect(report.conflicts).toEqual([{ plan_id: main.verification.plan_id, bundle_ids: [main.verification.bundle_id, second.verification.bundle_id].sort() }]);
    expect(report.bundles.map((b) => [b.status, b.counted])).toEqual([
      ['verified', false],
      ['verified', false],
    ]);
    expect(report.cohorts).toEqual([]);
    expect(report.boards).toEqual([]);
    expect(report.evidence_date).toBeNull();
  });

  it('a conflict does not stop other plans from counting', () => {
    const changed = gridModel(MAIN);
    changed.attempts[0]!.wall_seconds = 601;
    const october = gridInput({ ...MAIN, title: 'October', created_at: '2026-10-01T00:00:00Z', startedAt: '2026-10-02T00:00:00Z', endedAt: '2026-10-02T00:10:00Z', gradedAt: '2026-10-03T00:00:00Z' });
    const report = build([main, reportInput(changed), october]);
    expect(report.conflicts).toHaveLength(1);
    expect(report.bundles.filter((b) => b.counted).map((b) => b.bundle_id)).toEqual([october.verification.bundle_id]);
    for (const c of report.cohorts) expect(c.plans.map((p) => p.title)).toEqual(['October']);
    expect(report.evidence_date).toBe('2026-10-03T00:00:00Z');
  });
});

describe('boards and incompatibilities', () => {
  it('two plans on different tool policies: two boards, and every cross-board pair names environment.tool_policy with both values', () => {
    const policy2 = digestBytes('tool policy 2');
    const other = gridInput({ ...MAIN, title: 'other policy', toolPolicy: policy2 });
    const report = build([main, other]);
    expect(report.boards).toHaveLength(2);
    expect(report.cohorts).toHaveLength(4);
    const policyOf = new Map(report.boards.map((b) => [b.board_id, b.key.environment.tool_policy]));
    expect([...policyOf.values()].sort()).toEqual([digestBytes('tool policy'), policy2].sort());
    // Grouped (issue 25): the one ledger, its two boards with their two cohorts each, and the one component that differs, each value once.
    const { by_ledger } = groupedIncompatibilities(report);
    expect(by_ledger).toHaveLength(1);
    expect(by_ledger[0]!.ledger_digest).toBe(report.boards[0]!.key.ledger_digest);
    expect(by_ledger[0]!.boards).toEqual(
      [...report.boards].sort((x, y) => (x.board_id < y.board_id ? -1 : 1)).map((b) => ({ board_id: b.board_id, cohorts: report.cohorts.filter((c) => c.board_id === b.board_id).map((c) => c.cohort_id).sort() })),
    );
    expect(by_ledger[0]!.components).toEqual([
      { component: 'environment.tool_policy', values: [...policyOf].map(([board, value]) => ({ value, boards: [board] })).sort((x, y) => (x.value < y.value ? -1 : 1)) },
    ]);
    // 2 cohorts x 2 cohorts across the boards, all on one ledger: 4 pairs, each naming environment.tool_policy with both values.
    const pairs = expandCohortPairs(by_ledger);
    expect(cohortPairCount(by_ledger)).toBe(4);
    expect(pairs).toHaveLength(4);
    for (const pair of pairs) {
      expect(pair.a < pair.b).toBe(true);
      expect(pair.board_a).not.toBe(pair.board_b);
      expect(pair.differences).toEqual([{ component: 'environment.tool_policy', a: policyOf.get(pair.board_a), b: policyOf.get(pair.board_b) }]);
    }
    // A cohort no longer lists the cohorts it cannot be pooled with (quadratic): its ledger's group says it once.
    for (const c of report.cohorts) expect(c.incompatible_with).toBeUndefined();
    // Each board judges its candidate against its own baseline.
    for (const board of report.boards) expect(board.baseline_cohort_id).not.toBeNull();
    expect(report.cohorts.filter((c) => c.verdict === 'PASS')).toHaveLength(2);
    expect(groupedIncompatibilities(report).by_name).toEqual([]);
  });

  it('two ledgers with one name: a ledger incompatibility with the changed, added and removed task ids', () => {
    // Ledger 1: x1 x2 x3. Ledger 2: x1 (another prompt), x2 (same), x4 (new).
    const one = gridInput({ title: 'ledger 1', tasks: [{ id: 'x1' }, { id: 'x2' }, { id: 'x3' }], grid: { [CAND]: ['P', 'P', 'P'], [BASE]: ['F', 'F', 'F'] } });
    const two = gridInput({ title: 'ledger 2', tasks: [{ id: 'x1', prompt: 'reworded' }, { id: 'x2' }, { id: 'x4' }], grid: { [CAND]: ['P', 'P', 'P'], [BASE]: ['F', 'F', 'F'] } });
    const report = build([one, two]);
    const d1 = report.bundles.find((b) => b.plan?.title === 'ledger 1')!.plan!.ledger.digest;
    const d2 = report.bundles.find((b) => b.plan?.title === 'ledger 2')!.plan!.ledger.digest;
    expect(d1).not.toBe(d2);
    const [a, b] = [d1, d2].sort();
    // From the smaller digest (a) to the larger (b).
    const expected =
      a === d1
        ? { name: 'widget-bugs', a, b, changed: ['x1'], added: ['x4'], removed: ['x3'] }
        : { name: 'widget-bugs', a, b, changed: ['x1'], added: ['x3'], removed: ['x4'] };
    const { by_name, by_ledger } = groupedIncompatibilities(report);
    expect(expandLedgerPairs(by_name)).toEqual([expected]);
    // Grouped (issue 25): the digests once, and per differing task id its versions with the ledgers holding each (x2, alike in both, is left out).
    const record = (id: string, prompt?: string) => digestCanonical(gridModel({ tasks: [{ id, ...(prompt ? { prompt } : {}) }], grid: {} }).ledger[0]!);
    expect(by_name).toEqual([
      {
        name: 'widget-bugs',
        ledgers: [a, b],
        tasks: [
          { task_id: 'x1', versions: [{ record: record('x1'), ledgers: [d1] }, { record: record('x1', 'reworded'), ledgers: [d2] }].sort((x, y) => (x.record < y.record ? -1 : 1)) },
          { task_id: 'x3', versions: [{ record: record('x3'), ledgers: [d1] }] },
          { task_id: 'x4', versions: [{ record: record('x4'), ledgers: [d2] }] },
        ],
      },
    ]);
    // Cohorts on different ledgers are never paired as cohort incompatibilities.
    expect(report.boards).toHaveLength(2);
    expect(by_ledger).toEqual([]);
  });

  it('a board with no baseline, and a board with two: NO_VERDICT with the reason', () => {
    const noBase = gridInput({ ...MAIN, title: 'no base', subjects: [CANDIDATE, OTHER], grid: { [CAND]: ['P', 'P', 'P', 'P'], [OTHER.selector]: ['F', 'F', 'F', 'F'] } });
    const r1 = build([noBase]);
    expect(r1.boards[0]!.baseline_problem).toBe('no_baseline');
    for (const c of r1.cohorts) {
      expect(c.verdict).toBe('NO_VERDICT');
      expect(c.verdict_reasons).toEqual(['the board has no baseline cohort']);
      expect(c.delta).toBeNull();
    }
    const twoBases = gridInput({
      ...MAIN,
      title: 'two bases',
      subjects: [CANDIDATE, BASELINE, { ...OTHER, role: 'baseline' }],
      grid: { [CAND]: ['P', 'P', 'P', 'P'], [BASE]: ['F', 'F', 'F', 'F'], [OTHER.selector]: ['F', 'F', 'F', 'F'] },
    });
    const r2 = build([twoBases]);
    expect(r2.boards[0]!.baseline_problem).toBe('several_baselines');
    expect(r2.boards[0]!.baseline_cohort_id).toBeNull();
    const cand = cohortOf(r2, CANDIDATE.model);
    expect(cand.verdict).toBe('NO_VERDICT');
    expect(cand.verdict_reasons).toEqual(['the board has more than one baseline cohort']);
    // The two baselines themselves get no verdict.
    expect(r2.cohorts.filter((c) => c.subject.role === 'baseline').map((c) => c.verdict)).toEqual([null, null]);
  });
});

describe('pooling across plans and drift', () => {
  // A later plan on the same board: everything resolves.
  const october = gridInput({
    tasks: TASKS,
    title: 'October',
    created_at: '2026-10-01T00:00:00Z',
    startedAt: '2026-10-02T00:00:00Z',
    endedAt: '2026-10-02T00:10:00Z',
    gradedAt: '2026-10-03T00:00:00Z',
    grid: { [CAND]: ['PP', 'PP', 'PP', 'PP'], [BASE]: ['PP', 'PP', 'PP', 'PP'] },
  });
  const report = build([october, main]);

  it('one board; each subject pools both plans into one cohort', () => {
    expect(report.boards).toHaveLength(1);
    expect(report.cohorts).toHaveLength(2);
    const candidate = cohortOf(report, CANDIDATE.model);
    expect(candidate.attempts).toBe(16);
    // Headline: September t1 PP, t3 PF (3 of 4) + October t1 PP, t3 PP (4 of 4) = 7 of 8.
    expect(candidate.headline).toMatchObject({ resolved: 7, graded: 8, rate: 7 / 8 });
    expect(candidate.plans.map((p) => p.title)).toEqual(['widget-bugs bake-off, September', 'October']);
    // t1: candidate pass (4 of 4), baseline mixed (FF + PP) -> UNCLEAR; t3: candidate mixed -> UNCLEAR.
    expect(candidate.classes).toEqual({ improved: 0, regressed: 0, unchanged: 0, unclear: 2 });
    expect(candidate.verdict).toBe('NO_GAIN');
    // pass@k pools plans: 4 attempts per headline task -> k = 1..4.
    expect(candidate.pass_at_k.map((p) => p.k)).toEqual([1, 2, 3, 4]);
  });

  it("the baseline's rate per plan in created_at order, with the two-proportion test between them", () => {
    const drift = report.boards[0]!.drift;
    // September: t1 FF + t3 PF = 1 of 4; October: 4 of 4.
    expect(drift.map((d) => [d.created_at, d.resolved, d.graded, d.rate])).toEqual([
      ['2026-09-14T12:00:00Z', 1, 4, 0.25],
      ['2026-10-01T00:00:00Z', 4, 4, 1],
    ]);
    expect(drift[0]!.versus_previous).toBeNull();
    // Pooled p = 5/8; se = sqrt(5/8 * 3/8 * (1/4 + 1/4)) = sqrt(15/128); z = (1/4 - 1) / se ~ -2.1909; p ~ 0.0285.
    expect(drift[1]!.versus_previous!.z).toBeCloseTo(-0.75 / Math.sqrt(15 / 128), 12);
    expect(drift[1]!.versus_previous!.p).toBeCloseTo(0.0285, 3);
    expect(drift[1]!.versus_previous!.drift).toBe(true);
    expect(drift[1]!.versus_previous).toEqual({ ...twoProportionTest(1, 4, 4, 4)!, drift: true });
  });
});

describe('unaccounted slots across pooled plans (FORMAT.md 7.4)', () => {
  // Two plans on one board (same ledger, environment, harness, budget share, grader), both
  // listing the candidate and the baseline. September is complete; in October the baseline
  // has empty slots (UNACCOUNTED_SLOT warnings: the bundle is still verified).
  const tasks: TaskSpec[] = [{ id: 't1' }, { id: 't2' }];
  const september = gridInput({ tasks, grid: { [CAND]: ['P', 'P'], [BASE]: ['F', 'P'] } });
  const october = (baseline: string[]) =>
    gridInput({ title: 'October', created_at: '2026-10-01T00:00:00Z', startedAt: '2026-10-02T00:00:00Z', endedAt: '2026-10-02T00:10:00Z', tasks, grid: { [CAND]: ['P', 'P'], [BASE]: baseline } });

  it('an October baseline with one of its two slots empty: t1 is incomplete on the baseline side, NO_VERDICT', () => {
    const oct = october(['-', 'P']);
    expect(oct.verification.status).toBe('verified');
    expect(oct.verification.findings.map((f) => f.code)).toEqual(['UNACCOUNTED_SLOT']);
    const report = build([september, oct]);
    expect(report.boards).toHaveLength(1);
    const candidate = cohortOf(report, CANDIDATE.model);
    expect(candidate.incomplete_tasks).toEqual([{ task_id: 't1', side: 'baseline', reason: 'unaccounted_slot' }]);
    expect(candidate.verdict).toBe('NO_VERDICT');
  });

  // Regression: a plan once contributed to a cohort only through its attempts, so an October
  // baseline with NO attempt hid its empty slots and the candidate got PASS. Every subject of a
  // plan now contributes the plan to each board the plan uses. FORMAT.md 7.4: "a side is
  // incomplete when it has ... an unaccounted slot there"; FORMAT.md 6: "A missing decision is
  // never a pass".
  it('an October baseline with every slot empty: still incomplete, never PASS', () => {
    const oct = october(['-', '-']);
    expect(oct.verification.status).toBe('verified');
    expect(oct.verification.findings.map((f) => f.code)).toEqual(['UNACCOUNTED_SLOT', 'UNACCOUNTED_SLOT']);
    const candidate = cohortOf(build([september, oct]), CANDIDATE.model);
    expect(candidate.verdict).toBe('NO_VERDICT'); // today: PASS
    expect(candidate.incomplete_tasks).toEqual([
      { task_id: 't1', side: 'baseline', reason: 'unaccounted_slot' },
      { task_id: 't2', side: 'baseline', reason: 'unaccounted_slot' },
    ]);
  });
});

describe('the grading pin', () => {
  // t1, t2 headline; one attempt each. Candidate: t1 P, t2 F; baseline: t1 F, t2 timeout.
  // Generation 2 (REGRADER) regrades only the candidate's t2 (pass) and the baseline's t1 (pass).
  const spec: ModelSpec = {
    tasks: [{ id: 't1' }, { id: 't2' }],
    grid: { [CAND]: ['P', 'F'], [BASE]: ['F', 'T'] },
    regrades: [{ grader: REGRADER, created_at: '2026-10-01T00:00:00.5Z', verdicts: { [attemptId('a', 0, 't2', 1)]: 'pass', [attemptId('a', 1, 't1', 1)]: 'pass' } }],
  };
  const input = gridInput(spec);

  it('the bundle is verified', () => {
    expect(input.verification.findings).toEqual([]);
  });

  it("pinned to the regrader: only its generation counts; the two attempts it never graded are excluded and counted", () => {
    const config = Config.parse({ grading_pin: { id: REGRADER.id, version: REGRADER.version } });
    const report = build([input], config);
    expect(report.config.grading_pin).toEqual({ id: 'oracle', version: '2.0.0' });
    expect(report.excluded_by_grading_pin).toEqual([{ bundle_id: input.verification.bundle_id, attempts: 2 }]);
    expect(report.boards).toHaveLength(1);
    expect(report.boards[0]!.key.grading).toEqual(REGRADER);
    const candidate = cohortOf(report, CANDIDATE.model);
    const baseline = cohortOf(report, BASELINE.model);
    expect([candidate.attempts, baseline.attempts]).toEqual([1, 1]);
    expect(candidate.headline).toMatchObject({ tasks: 2, attempted_tasks: 1, resolved: 1, graded: 1 });
    expect(baseline.headline).toMatchObject({ tasks: 2, attempted_tasks: 1, resolved: 1, graded: 1 });
    // The candidate has nothing on t1 in this layer, the baseline nothing on t2.
    expect(candidate.verdict).toBe('NO_VERDICT');
    expect(candidate.incomplete_tasks).toEqual([
      { task_id: 't1', side: 'candidate', reason: 'no_attempt' },
      { task_id: 't2', side: 'baseline', reason: 'no_attempt' },
    ]);
  });

  it("pinned to the plan's grader: the regrade is ignored; the never-graded timeout is excluded too (docs/analysis.md: whatever their outcome)", () => {
    const report = build([input], Config.parse({ grading_pin: { id: GRADER.id, version: GRADER.version } }));
    expect(report.excluded_by_grading_pin).toEqual([{ bundle_id: input.verification.bundle_id, attempts: 1 }]);
    expect(report.boards.map((b) => b.key.grading.version)).toEqual(['1.2.0']);
    const candidate = cohortOf(report, CANDIDATE.model);
    // Generation 1: candidate t1 pass, t2 fail.
    expect(candidate.headline).toMatchObject({ resolved: 1, graded: 2 });
    expect(candidate.terminal_classes).toMatchObject({ resolved: 1, grader_failure: 1 });
    expect(cohortOf(report, BASELINE.model).terminal_classes).toMatchObject({ grader_failure: 1, timeout: 0 });
  });

  it('without a pin: each attempt in its latest layer, nothing excluded, the plan split over two boards', () => {
    const report = build([input]);
    expect(report.excluded_by_grading_pin).toEqual([]);
    expect(report.boards.map((b) => b.key.grading.version).sort()).toEqual(['1.2.0', '2.0.0']);
    expect(report.cohorts).toHaveLength(4);
    expect(report.cohorts.reduce((n, c) => n + c.attempts, 0)).toBe(4);
    // The baseline's timeout was never graded: it stays in the plan grader's layer, class timeout.
    const v1 = report.boards.find((b) => b.key.grading.version === '1.2.0')!;
    const baseV1 = report.cohorts.find((c) => c.board_id === v1.board_id && c.subject.model === BASELINE.model)!;
    expect(baseV1.terminal_classes).toMatchObject({ timeout: 1, grader_failure: 0 });
    expect(baseV1.grader_failure_reasons).toEqual({ failed: 0, errored: 0, missing: 0 });
    // The two boards share the ledger: every cross-board cohort pair is listed with the grader differences.
    const pairs = expandCohortPairs(groupedIncompatibilities(report).by_ledger);
    expect(pairs).toHaveLength(4);
    for (const pair of pairs) {
      expect(pair.differences.map((d) => d.component)).toEqual(['grading.executable', 'grading.version']);
    }
  });

  it('the pin is part of the report identity', () => {
    const a = build([input]);
    const b = build([input], Config.parse({ grading_pin: { id: GRADER.id, version: GRADER.version } }));
    expect(a.config_digest).not.toBe(b.config_digest);
    expect(a.report_id).not.toBe(b.report_id);
    expect(b.config_digest).toBe(sha(canonicalJson(b.config)));
  });

  it('the acceptance rule is part of the report identity and changes the verdict', () => {
    const d = build([main]);
    const strict = build([main], Config.parse({ acceptance: { min_improved: 2 } }));
    expect(cohortOf(d, CANDIDATE.model).verdict).toBe('PASS');
    expect(cohortOf(strict, CANDIDATE.model).verdict).toBe('NO_GAIN');
    expect(strict.report_id).not.toBe(d.report_id);
  });
});

describe('evidence_date', () => {
  it('is the newest timestamp of the counted evidence: a later regrade', () => {
    const input = gridInput({ ...MAIN, regrades: [{ grader: REGRADER, created_at: '2026-10-01T00:00:00.5Z', verdicts: { [attemptId('a', 0, 't1', 1)]: 'pass' } }] });
    expect(build([input]).evidence_date).toBe('2026-10-01T00:00:00.5Z');
  });

  it('compares instants, not strings: ...00.5Z is after ...00Z although "Z" sorts after "."', () => {
    const a = gridInput({ ...MAIN, gradedAt: '2026-10-01T00:00:00Z' });
    const b = gridInput({ ...MAIN, title: 'later attempt', endedAt: '2026-10-01T00:00:00.5Z' });
    expect(build([a, b]).evidence_date).toBe('2026-10-01T00:00:00.5Z');
    expect(build([b, a]).evidence_date).toBe('2026-10-01T00:00:00.5Z');
  });

  it('a plan freeze can be the newest timestamp', () => {
    // Attempts start after the freeze, so the freeze is the newest timestamp only in a bundle without attempts.
    const empty = gridInput({ tasks: [{ id: 't1' }], created_at: '2026-09-20T00:00:00Z', grid: {}, gradedAt: '2026-09-19T00:00:00Z' });
    expect(empty.verification.status).toBe('verified');
    expect(build([empty]).evidence_date).toBe('2026-09-20T00:00:00Z');
  });

  it('is null without counted evidence', () => {
    expect(build([]).evidence_date).toBeNull();
  });
});

describe('the report id', () => {
  const report = build([main]);

  it('re-derives: RFC 8785 digest of the report without report_id', () => {
    expect(report.report_id).toBe(selfId(report as unknown as Record<string, unknown>, 'report_id'));
    const copy = JSON.parse(JSON.stringify(report)) as Record<string, unknown>;
    delete copy.report_id;
    expect(report.report_id).toBe(sha(canonicalJson(copy)));
  });

  it('passes the report schema, with schema, generator and config', () => {
    expect(Report.safeParse(report).success).toBe(true);
    expect(report.schema).toBe('ledgerboard.report.v1');
    expect(report.generator.name).toBe('ledgerboard');
    // The config without where the files sit: the same evidence elsewhere keeps the report id.
    const { bundles_dir: _b, retained_reports_dir: _r, attestations_dir: _a, withhold: _w, compare_max_cohorts: _c, ...withoutPaths } = DEFAULTS;
    expect(report.config).toEqual(withoutPaths);
    expect(build([], Config.parse({ bundles_dir: ['x', 'y'], retained_reports_dir: 'z' })).report_id).toBe(build([]).report_id);
    // A site-only key (compare pages) never changes the report id.
    expect(build([], Config.parse({ compare_max_cohorts: 3 })).report_id).toBe(build([]).report_id);
    // Import limits: imports are re-derived under them, so the report carries them when the config has them (absent: absent, the same id).
    expect(build([]).config).not.toHaveProperty('import_limits');
    const withImportLimits = build([], Config.parse({ import_limits: { file_bytes: 10 } }));
    expect(withImportLimits.report_id).not.toBe(build([]).report_id);
    expect(withImportLimits.config.import_limits).toEqual(Config.parse({ import_limits: { file_bytes: 10 } }).import_limits);
    expect(withImportLimits.config.import_limits?.file_bytes).toBe(10);
    expect(Report.safeParse(withImportLimits).success).toBe(true);
    // An empty report is valid too.
    expect(Report.safeParse(build([])).success).toBe(true);
  });
});

describe('no clock inside', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const T1 = new Date('2031-02-03T04:05:06.789Z');
  const T2 = new Date('2035-06-07T08:09:10.111Z');

  /** Every string and number anywhere in a value. */
  function leaves(value: unknown, out: (string | number)[] = []): (string | number)[] {
    if (typeof value === 'string' || typeof value === 'number') out.push(value);
    else if (Array.isArray(value)) for (const v of value) leaves(v, out);
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        out.push(k);
        leaves(v, out);
      }
    }
    return out;
  }

  it('building at two different system times gives the same bytes, and no member holds the build time', () => {
    const changed = gridModel(MAIN);
    changed.attempts[0]!.wall_seconds = 601;
    const inputs = [main, reportInput(changed), gridInput({ ...MAIN, title: 'other policy', toolPolicy: digestBytes('p2') }), gridInput(spec2())];
    vi.useFakeTimers({ now: T1 });
    expect(Date.now()).toBe(T1.getTime());
    const first = canonicalJson(buildReport(inputs, DEFAULTS));
    vi.setSystemTime(T2);
    const second = canonicalJson(buildReport(inputs, DEFAULTS));
    expect(second).toBe(first);
    for (const t of [T1, T2]) {
      const iso = t.toISOString();
      expect(first).not.toContain(iso.slice(0, 10));
      expect(first).not.toContain(iso.slice(0, 19));
      for (const leaf of leaves(JSON.parse(first))) {
        expect(leaf).not.toBe(t.getTime());
        expect(leaf).not.toBe(Math.floor(t.getTime() / 1000));
        expect(leaf).not.toBe(iso);
      }
    }
  });

  function spec2(): ModelSpec {
    return { ...MAIN, title: 'October', created_at: '2026-10-01T00:00:00Z', startedAt: '2026-10-02T00:00:00Z', endedAt: '2026-10-02T00:10:00Z' };
  }
});
