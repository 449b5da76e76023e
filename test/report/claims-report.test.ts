/**
 * The report's claims (FORMAT.md 11.3): `cohorts[].claims` computed by
 * buildReport from the report's own figures and the bundles' plans and
 * assessments, hand-computed on a small grid; null for every cohort
 * without a card; the card's digest in the report's config (so in the
 * report id); a report retained before claims existed still parses.
 */
import { describe, expect, it } from 'vitest';
import { Config, scorecardFromBytes, withScorecard } from '../../src/config/config.ts';
import { canonicalJson, digestCanonical } from '../../src/json/canonical.ts';
import { buildReport, type ReportInput } from '../../src/report/build-report.ts';
import { Report } from '../../src/report/schema.ts';
import type { Assessment } from '../../src/schema/assessments.ts';
import { BASELINE, CANDIDATE } from '../helpers/bundle-builder.ts';
import { BASE, CAND, gridInput, gridModel, reportInput, type ModelSpec, type TaskSpec } from '../helpers/report-fixtures.ts';
import { exampleCard } from '../helpers/scorecard.ts';

const CARD = exampleCard([
    { id: 'resolves_headline', title: "Resolves the ledger's headline tasks", computed: { figure: 'wilson_low', at_least: [0.1, 0.4, 0.7] } },
    { id: 'rate', title: 'Headline rate', computed: { figure: 'rate', at_least: [0.25, 0.5, 0.75] } },
    { id: 'beats_baseline', title: 'Better than the frozen baseline, task by task', computed: { figure: 'beats_baseline', at_least: [0.5, 0.5, 1] } },
    { id: 'stable', title: 'Same outcome on every attempt of a task', computed: { figure: 'stability', at_least: [0.5, 0.75, 1] } },
    { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
]);

const withCard = (card: unknown, config: Config = Config.parse({})): Config => withScorecard(config, scorecardFromBytes(new TextEncoder().encode(JSON.stringify(card)), 'card.json', 'lb.json'));

function build(inputs: ReportInput[], config: Config): Report {
  const report = buildReport(inputs, config);
  const parsed = Report.safeParse(JSON.parse(canonicalJson(report)));
  if (!parsed.success) throw new Error(`report fails its schema: ${parsed.error.message}`);
  return report;
}

// Headline: t1 and t3 (t2 is t1's sibling, t4 public). Candidate t1 PP, t3 PF: 3 of 4, stability 1 - 1/2; baseline t1 FF, t3 PF: 1 of 4.
const TASKS: TaskSpec[] = [{ id: 't1', cluster: 'c1' }, { id: 't2', cluster: 'c1' }, { id: 't3', cluster: 'c3' }, { id: 't4', holdout: false }];
const GRID: ModelSpec = { tasks: TASKS, grid: { [CAND]: ['PP', 'PF', 'PF', 'FF'], [BASE]: ['FF', 'PP', 'PF', 'PP'] } };

/** The input with assessments on its verified evidence (as the verifier hands them over: FORMAT.md 11.2). */
function assessed(input: ReportInput, assessments: Assessment[]): ReportInput {
  const v = input.verification;
  return { ...input, verification: { ...v, evidence: Object.freeze({ ...v.evidence, assessments }) } };
}

const tamper = (subject: { model: string; agent: { name: string; version: string } }, level: string): Assessment => ({ indicator: 'no_weight_tampering', subject: { model: subject.model, agent: { ...subject.agent } }, level, by: 'red team, example.org' });

const cohort = (report: Report, model: string) => report.cohorts.find((c) => c.subject.model === model)!;

describe('without a score card', () => {
  it('every cohort carries claims: null and the report config no scorecard', () => {
    const report = build([gridInput(GRID)], Config.parse({}));
    expect(report.cohorts.length).toBe(2);
    for (const c of report.cohorts) expect(c.claims).toBeNull();
    expect(report.config).not.toHaveProperty('scorecard');
  });
});

describe('with a score card', () => {
  const config = withCard(CARD);
  const report = build([gridInput(GRID)], config);
  const candidate = cohort(report, CANDIDATE.model);
  const baseline = cohort(report, BASELINE.model);

  it('the figures are what the claims were computed from', () => {
    expect(candidate.headline).toMatchObject({ resolved: 3, graded: 4, rate: 0.75 });
    // Wilson 95% lower end of 3 / 4: 0.3006..., between 0.1 and 0.4.
    expect(candidate.headline.wilson![0]).toBeGreaterThan(0.3);
    expect(candidate.headline.wilson![0]).toBeLessThan(0.31);
    // t1 is 2/2 against 0/2 (the candidate's), t3 1/2 each (a tie): n = 1, p = 1, no winner.
    expect(report.boards[0]!.pairs![0]!.winner).toBeNull();
    expect(baseline.headline).toMatchObject({ resolved: 1, graded: 4, rate: 0.25 });
  });

  it("the candidate's claims, hand-computed: black_box caps the rate's strong at supported", () => {
    expect(candidate.claims).toEqual([
      { indicator: 'resolves_headline', level: 'indicative', uncapped: 'indicative', ceiling: 'supported', reason: null },
      { indicator: 'rate', level: 'supported', uncapped: 'strong', ceiling: 'supported', reason: 'capped by access tier black_box' },
      { indicator: 'beats_baseline', level: 'not_supported', uncapped: 'not_supported', ceiling: 'supported', reason: null },
      { indicator: 'stable', level: 'indicative', uncapped: 'indicative', ceiling: 'supported', reason: null },
      { indicator: 'no_weight_tampering', level: 'not_supported', uncapped: 'not_supported', ceiling: 'supported', reason: 'not assessed' },
    ]);
  });

  it("the baseline's: beats_baseline is not available for the baseline itself", () => {
    expect(baseline.claims).toEqual([
      // Wilson lower end of 1 / 4: 0.0456, under 0.1.
      { indicator: 'resolves_headline', level: 'not_supported', uncapped: 'not_supported', ceiling: 'supported', reason: null },
      { indicator: 'rate', level: 'indicative', uncapped: 'indicative', ceiling: 'supported', reason: null },
      { indicator: 'beats_baseline', level: 'not_supported', uncapped: 'not_supported', ceiling: 'supported', reason: 'figure beats_baseline not available' },
      { indicator: 'stable', level: 'indicative', uncapped: 'indicative', ceiling: 'supported', reason: null },
      { indicator: 'no_weight_tampering', level: 'not_supported', uncapped: 'not_supported', ceiling: 'supported', reason: 'not assessed' },
    ]);
  });

  it("the report config carries the card's digest, never its path, and the report id covers it", () => {
    expect(report.config.scorecard).toBe(digestCanonical(CARD));
    const retitled = build([gridInput(GRID)], withCard({ ...CARD, indicators: CARD.indicators.map((i) => ({ ...i, title: `${i.title}.` })) }));
    expect(retitled.cohorts.map((c) => c.claims)).toEqual(report.cohorts.map((c) => c.claims));
    expect(retitled.config_digest).not.toBe(report.config_digest);
    expect(retitled.report_id).not.toBe(report.report_id);
    expect(build([gridInput(GRID)], Config.parse({})).report_id).not.toBe(report.report_id);
  });

  it('a beaten baseline: beats_baseline 1 for the winner (strong, capped at supported)', () => {
    // Six headline tasks the candidate resolves and the baseline fails: n = 6, p = 2 / 64 < 0.05 (one pair: Holm changes nothing).
    const tasks: TaskSpec[] = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id }));
    const won = build([gridInput({ tasks, grid: { [CAND]: tasks.map(() => 'P'), [BASE]: tasks.map(() => 'F') } })], config);
    const c = cohort(won, CANDIDATE.model);
    expect(won.boards[0]!.pairs![0]!.winner).toBe(c.cohort_id);
    expect(c.claims!.find((x) => x.indicator === 'beats_baseline')).toEqual({ indicator: 'beats_baseline', level: 'supported', uncapped: 'strong', ceiling: 'supported', reason: 'capped by access tier black_box' });
    // One attempt per task: no task graded twice, so stability is not available.
    expect(c.claims!.find((x) => x.indicator === 'stable')).toEqual({ indicator: 'stable', level: 'not_supported', uncapped: 'not_supported', ceiling: 'supported', reason: 'figure stability not available' });
  });
});

describe('pooled plans and assessments', () => {
  const config = withCard(CARD);
  /** Two plans of one board: A (black_box, frozen first), B (grey_box, a week later). */
  const planB = (tier = 'grey_box') => {
    const model = gridModel({ ...GRID, prefix: 'b', title: 'second run', created_at: '2026-09-21T12:00:00Z', startedAt: '2026-09-22T08:00:00Z', endedAt: '2026-09-22T08:10:00Z', gradedAt: '2026-09-22T09:00:00Z' });
    model.plan.access_tier = tier;
    return reportInput(model);
  };
  const planA = () => gridInput(GRID);

  it('two bundles assessing one subject differently: the weakest; the other subject sees neither', () => {
    const report = build([assessed(planA(), [tamper(CANDIDATE, 'strong')]), assessed(planB(), [tamper(CANDIDATE, 'indicative'), tamper(BASELINE, 'supported')])], config);
    expect(report.cohorts.length).toBe(2);
    const c = cohort(report, CANDIDATE.model);
    expect(c.plans.length).toBe(2);
    expect(c.claims!.find((x) => x.indicator === 'no_weight_tampering')).toEqual({ indicator: 'no_weight_tampering', level: 'indicative', uncapped: 'indicative', ceiling: 'supported', reason: null });
    expect(cohort(report, BASELINE.model).claims!.find((x) => x.indicator === 'no_weight_tampering')).toEqual({ indicator: 'no_weight_tampering', level: 'supported', uncapped: 'supported', ceiling: 'supported', reason: null });
  });

  it('an assessed strong capped at supported by the black_box plan pooled with a grey_box one', () => {
    const report = build([planA(), assessed(planB(), [tamper(CANDIDATE, 'strong')])], config);
    expect(cohort(report, CANDIDATE.model).claims!.find((x) => x.indicator === 'no_weight_tampering')).toEqual({
      indicator: 'no_weight_tampering',
      level: 'supported',
      uncapped: 'strong',
      ceiling: 'supported',
      reason: 'capped by access tier black_box',
    });
  });

  it('a level not on the card, and a later plan of a tier not on the card', () => {
    const report = build([assessed(planA(), [tamper(CANDIDATE, 'excellent')]), planB('white_box')], config);
    const claims = cohort(report, CANDIDATE.model).claims!;
    expect(claims.find((x) => x.indicator === 'no_weight_tampering')).toEqual({ indicator: 'no_weight_tampering', level: 'not_supported', uncapped: 'not_supported', ceiling: 'not_supported', reason: 'level excellent is not on the score card' });
    expect(claims.find((x) => x.indicator === 'rate')!.reason).toBe('access tier white_box is not on the score card');
  });
});

describe('a report retained before claims existed', () => {
  it('without claims on its cohorts and scorecard in its config, still parses', () => {
    const report = JSON.parse(canonicalJson(build([gridInput(GRID)], withCard(CARD)))) as Record<string, unknown> & { cohorts: Record<string, unknown>[]; config: Record<string, unknown> };
    for (const c of report.cohorts) delete c.claims;
    delete report.config.scorecard;
    expect(Report.safeParse(report).success).toBe(true);
    // A claim that is not the Claim shape does not.
    const bad = JSON.parse(canonicalJson(build([gridInput(GRID)], withCard(CARD)))) as { cohorts: { claims: unknown[] }[] };
    (bad.cohorts[0]!.claims[0] as Record<string, unknown>).extra = 1;
    expect(Report.safeParse(bad).success).toBe(false);
  });
});
