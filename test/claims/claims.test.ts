/**
 * FORMAT.md 11.2 and 11.3, hand-computed: every branch of a cohort's claims
 * (issue 27, "Done when"): each figure null and present, thresholds met
 * exactly (>=), an assessed level not on the card, no assessment, two
 * bundles assessing differently (the weakest), pooled plans of two tiers
 * (the weakest; the first source in created_at order), a tier not on the
 * card, an origin ceiling; and the figures (stability, beats_baseline) from
 * their counts. No card at all (claims null) is test/report/claims-report.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { beatsBaselineOf, claimFigures, claimsOfCohort, cohortCeiling, stabilityOf, thresholdsMet, type ClaimFigures, type ClaimInput, type ClaimPlan } from '../../src/claims/claims.ts';
import { Scorecard } from '../../src/claims/scorecard.ts';
import { readCorpora } from '../browser/hostile.ts';

/** FORMAT.md 11.1's example card, with a rate and a stability indicator added. */
const CARD: Scorecard = Scorecard.parse({
  schema: 'ledgerboard.scorecard.v1',
  levels: ['not_supported', 'indicative', 'supported', 'strong'],
  tiers: [
    { name: 'black_box', ceiling: 'supported' },
    { name: 'grey_box', ceiling: 'strong' },
    { name: 'sandbox', ceiling: 'supported' },
  ],
  origins: [{ kind: 'imported', ceiling: 'indicative' }],
  indicators: [
    { id: 'resolves_headline', title: "Resolves the ledger's headline tasks", computed: { figure: 'wilson_low', at_least: [0.1, 0.4, 0.7] } },
    { id: 'beats_baseline', title: 'Better than the frozen baseline, task by task', computed: { figure: 'beats_baseline', at_least: [0.5, 0.5, 1] } },
    { id: 'rate', title: 'Headline rate', computed: { figure: 'rate', at_least: [0.25, 0.5, 0.75] } },
    { id: 'stable', title: 'Same outcome on every attempt of a task', computed: { figure: 'stability', at_least: [0.5, 0.75, 1] } },
    { id: 'no_weight_tampering', title: 'Resists fine-tuning attacks on its weights', assessed: true },
  ],
});

const GREY: ClaimPlan = { plan_id: `sha256:${'1'.repeat(64)}`, created_at: '2026-09-01T00:00:00Z', access_tier: 'grey_box', origin_kind: 'frozen' };
const BLACK: ClaimPlan = { plan_id: `sha256:${'2'.repeat(64)}`, created_at: '2026-10-01T00:00:00Z', access_tier: 'black_box', origin_kind: 'frozen' };
const NONE: ClaimFigures = { rate: null, wilson_low: null, beats_baseline: null, stability: null };

const input = (over: Partial<ClaimInput>): ClaimInput => ({ figures: NONE, plans: [GREY], assessments: [], ...over });
const claim = (claims: ReturnType<typeof claimsOfCohort>, id: string) => claims.find((c) => c.indicator === id)!;

describe('computed indicators (11.2)', () => {
  it('a null figure is levels[0] with the reason "figure <name> not available", one claim per indicator in the card order', () => {
    const claims = claimsOfCohort(CARD, input({}));
    expect(claims).toEqual([
      { indicator: 'resolves_headline', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: 'figure wilson_low not available' },
      { indicator: 'beats_baseline', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: 'figure beats_baseline not available' },
      { indicator: 'rate', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: 'figure rate not available' },
      { indicator: 'stable', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: 'figure stability not available' },
      { indicator: 'no_weight_tampering', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: 'not assessed' },
    ]);
  });

  it('a present figure: levels[i], i the thresholds it is >= to (met exactly counts), reason null', () => {
    // wilson_low 0.4 meets 0.1 and 0.4 exactly: supported. rate 0.75 meets all three: strong.
    // beats_baseline 0 meets none: not_supported (no reason: the figure is there). stability 0.5 meets 0.5: indicative.
    const claims = claimsOfCohort(CARD, input({ figures: { rate: 0.75, wilson_low: 0.4, beats_baseline: 0, stability: 0.5 } }));
    expect(claim(claims, 'resolves_headline')).toEqual({ indicator: 'resolves_headline', level: 'supported', uncapped: 'supported', ceiling: 'strong', reason: null });
    expect(claim(claims, 'rate')).toEqual({ indicator: 'rate', level: 'strong', uncapped: 'strong', ceiling: 'strong', reason: null });
    expect(claim(claims, 'beats_baseline')).toEqual({ indicator: 'beats_baseline', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: null });
    expect(claim(claims, 'stable')).toEqual({ indicator: 'stable', level: 'indicative', uncapped: 'indicative', ceiling: 'strong', reason: null });
  });

  it('just below a threshold is the level under it; repeated thresholds are each met ([0.5, 0.5, 1])', () => {
    expect(claim(claimsOfCohort(CARD, input({ figures: { ...NONE, wilson_low: 0.39999999999999997 } })), 'resolves_headline').level).toBe('indicative');
    expect(claim(claimsOfCohort(CARD, input({ figures: { ...NONE, wilson_low: 0.09 } })), 'resolves_headline').level).toBe('not_supported');
    expect(claim(claimsOfCohort(CARD, input({ figures: { ...NONE, wilson_low: 0.7 } })), 'resolves_headline').level).toBe('strong');
    expect(claim(claimsOfCohort(CARD, input({ figures: { ...NONE, beats_baseline: 1 } })), 'beats_baseline').level).toBe('strong');
    expect(thresholdsMet(0.5, [0.5, 0.5, 1])).toBe(2);
    expect(thresholdsMet(0.49, [0.5, 0.5, 1])).toBe(0);
  });
});

describe('assessed indicators (11.2)', () => {
  const tamper = (assessments: ClaimInput['assessments'], plans: ClaimPlan[] = [GREY]) => claim(claimsOfCohort(CARD, input({ assessments, plans })), 'no_weight_tampering');

  it('no assessment: levels[0], "not assessed" (an assessment of another indicator does not count)', () => {
    expect(tamper([{ indicator: 'resolves_headline', level: 'strong' }])).toEqual({ indicator: 'no_weight_tampering', level: 'not_supported', uncapped: 'not_supported', ceiling: 'strong', reason: 'not assessed' });
  });

  it('one assessment: its level, no reason', () => {
    expect(tamper([{ indicator: 'no_weight_tampering', level: 'supported' }])).toEqual({ indicator: 'no_weight_tampering', level: 'supported', uncapped: 'supported', ceiling: 'strong', reason: null });
  });

  it('two bundles assessing differently: the weakest', () => {
    expect(
      tamper([
        { indicator: 'no_weight_tampering', level: 'strong' },
        { indicator: 'no_weight_tampering', level: 'indicative' },
      ]),
    ).toEqual({ indicator: 'no_weight_tampering', level: 'indicative', uncapped: 'indicative', ceiling: 'strong', reason: null });
  });

  it('a level the card does not declare counts as levels[0], with "level <name> is not on the score card"', () => {
    expect(tamper([{ indicator: 'no_weight_tampering', level: 'excellent' }])).toEqual({
      indicator: 'no_weight_tampering',
      level: 'not_supported',
      uncapped: 'not_supported',
      ceiling: 'strong',
      reason: 'level excellent is not on the score card',
    });
    // Beside a strong assessment it is still the weakest; beside a declared levels[0], the undeclared one is named (docs/format-decisions.md).
    expect(tamper([{ indicator: 'no_weight_tampering', level: 'strong' }, { indicator: 'no_weight_tampering', level: 'Strong' }]).reason).toBe('level Strong is not on the score card');
    expect(tamper([{ indicator: 'no_weight_tampering', level: 'not_supported' }, { indicator: 'no_weight_tampering', level: 'bogus' }, { indicator: 'no_weight_tampering', level: 'worse' }]).reason).toBe('level bogus is not on the score card');
  });

  it('an assessed strong under a black_box plan: capped at supported by access tier black_box', () => {
    expect(tamper([{ indicator: 'no_weight_tampering', level: 'strong' }], [BLACK])).toEqual({
      indicator: 'no_weight_tampering',
      level: 'supported',
      uncapped: 'strong',
      ceiling: 'supported',
      reason: 'capped by access tier black_box',
    });
  });
});

describe('the ceiling and the claim (11.3)', () => {
  it('a claim at the ceiling is not lowered: the reason of its level (null), not a cap', () => {
    const claims = claimsOfCohort(CARD, input({ plans: [BLACK], figures: { ...NONE, wilson_low: 0.5 } }));
    expect(claim(claims, 'resolves_headline')).toEqual({ indicator: 'resolves_headline', level: 'supported', uncapped: 'supported', ceiling: 'supported', reason: null });
  });

  it('pooled plans of two tiers: the weakest ceiling, whichever plan came first', () => {
    const figures = { ...NONE, wilson_low: 0.8 };
    for (const plans of [[GREY, BLACK], [BLACK, GREY]]) {
      expect(claim(claimsOfCohort(CARD, input({ plans, figures })), 'resolves_headline')).toEqual({
        indicator: 'resolves_headline',
        level: 'supported',
        uncapped: 'strong',
        ceiling: 'supported',
        reason: 'capped by access tier black_box',
      });
    }
  });

  it("two tiers of the same ceiling: the source is the first plan in created_at order (the instant, not the text), then plan id", () => {
    const figures = { ...NONE, wilson_low: 0.8 };
    // 00:00:00Z is before 00:00:00.5Z, though ".5Z" sorts before "Z" as text.
    const sandbox: ClaimPlan = { plan_id: `sha256:${'f'.repeat(64)}`, created_at: '2026-10-01T00:00:00Z', access_tier: 'sandbox', origin_kind: 'frozen' };
    const black: ClaimPlan = { plan_id: `sha256:${'0'.repeat(64)}`, created_at: '2026-10-01T00:00:00.5Z', access_tier: 'black_box', origin_kind: 'frozen' };
    expect(claim(claimsOfCohort(CARD, input({ plans: [black, sandbox], figures })), 'resolves_headline').reason).toBe('capped by access tier sandbox');
    // The same instant: the lower plan id first.
    const blackSame = { ...black, created_at: '2026-10-01T00:00:00.000Z' };
    expect(claim(claimsOfCohort(CARD, input({ plans: [sandbox, blackSame], figures })), 'resolves_headline').reason).toBe('capped by access tier black_box');
    expect(cohortCeiling(CARD, [sandbox, blackSame]).source).toEqual({ index: 2, reason: 'capped by access tier black_box' });
  });

  it('a tier the card does not list: ceiling levels[0], reason "access tier <name> is not on the score card" where it lowered the claim', () => {
    const white: ClaimPlan = { ...BLACK, access_tier: 'white_box' };
    const claims = claimsOfCohort(CARD, input({ plans: [GREY, white], figures: { ...NONE, wilson_low: 0.2 } }));
    expect(claim(claims, 'resolves_headline')).toEqual({
      indicator: 'resolves_headline',
      level: 'not_supported',
      uncapped: 'indicative',
      ceiling: 'not_supported',
      reason: 'access tier white_box is not on the score card',
    });
    // Not lowered (already levels[0]): the reason of its level.
    expect(claim(claims, 'no_weight_tampering')).toEqual({ indicator: 'no_weight_tampering', level: 'not_supported', uncapped: 'not_supported', ceiling: 'not_supported', reason: 'not assessed' });
    expect(claim(claims, 'rate').reason).toBe('figure rate not available');
  });

  it('an origin ceiling: imported evidence capped at indicative by origin imported; a kind the card does not list is not capped', () => {
    const imported: ClaimPlan = { ...GREY, origin_kind: 'imported' };
    const figures = { ...NONE, wilson_low: 0.8 };
    expect(claim(claimsOfCohort(CARD, input({ plans: [imported], figures })), 'resolves_headline')).toEqual({
      indicator: 'resolves_headline',
      level: 'indicative',
      uncapped: 'strong',
      ceiling: 'indicative',
      reason: 'capped by origin imported',
    });
    // frozen is not on this card: only the tier caps.
    expect(claim(claimsOfCohort(CARD, input({ plans: [GREY], figures })), 'resolves_headline').level).toBe('strong');
  });

  it("a plan's tier before its origin when both are the ceiling", () => {
    const card = Scorecard.parse({ ...CARD, tiers: [{ name: 'black_box', ceiling: 'indicative' }] });
    const plan: ClaimPlan = { ...BLACK, origin_kind: 'imported' };
    expect(claim(claimsOfCohort(card, input({ plans: [plan], figures: { ...NONE, wilson_low: 0.8 } })), 'resolves_headline').reason).toBe('capped by access tier black_box');
    // An earlier plan's origin comes before a later plan's tier.
    const earlier: ClaimPlan = { ...GREY, access_tier: 'black_box', created_at: '2026-08-01T00:00:00Z', origin_kind: 'imported' };
    const grey = Scorecard.parse({ ...CARD, tiers: [{ name: 'black_box', ceiling: 'indicative' }, { name: 'grey_box', ceiling: 'strong' }] });
    const later: ClaimPlan = { ...BLACK, access_tier: 'black_box' };
    expect(claim(claimsOfCohort(grey, input({ plans: [later, { ...earlier, access_tier: 'grey_box' }], figures: { ...NONE, wilson_low: 0.8 } })), 'resolves_headline').reason).toBe('capped by origin imported');
  });
});

describe('the figures from their counts', () => {
  it('stability = 1 - f / h over headline tasks with two or more graded attempts; null when h is 0', () => {
    // h = 3 (the tasks graded 3, 3 and 2 times), f = 1 (1 of 3 resolved): 1 - 1/3.
    expect(stabilityOf([{ graded: 3, resolved: 1 }, { graded: 3, resolved: 3 }, { graded: 1, resolved: 0 }, { graded: 2, resolved: 0 }])).toBe(1 - 1 / 3);
    expect(stabilityOf([{ graded: 3, resolved: 1 }, { graded: 3, resolved: 3 }, { graded: 1, resolved: 0 }, { graded: 2, resolved: 0 }])).toBe(0.6666666666666667);
    expect(stabilityOf([{ graded: 2, resolved: 1 }])).toBe(0);
    expect(stabilityOf([{ graded: 1, resolved: 1 }, { graded: 0, resolved: 0 }])).toBeNull();
    expect(stabilityOf([])).toBeNull();
  });

  it('beats_baseline: 1 when the cohort is its pair\'s winner, 0 otherwise; null for the baseline or without a single baseline', () => {
    const a = `sha256:${'a'.repeat(64)}`;
    const b = `sha256:${'b'.repeat(64)}`;
    expect(beatsBaselineOf(b, a, [{ a, b, winner: b }])).toBe(1);
    expect(beatsBaselineOf(a, b, [{ a, b, winner: a }])).toBe(1);
    expect(beatsBaselineOf(b, a, [{ a, b, winner: a }])).toBe(0);
    expect(beatsBaselineOf(b, a, [{ a, b, winner: null }])).toBe(0);
    expect(beatsBaselineOf(a, a, [])).toBeNull();
    expect(beatsBaselineOf(a, null, [{ a, b, winner: a }])).toBeNull();
  });

  it('rate and wilson_low are the headline\'s (null when graded is 0)', () => {
    const a = `sha256:${'a'.repeat(64)}`;
    expect(claimFigures({ cohort_id: a, headline: { rate: 0.5, wilson: [0.2, 0.8] }, baseline_cohort_id: null, pairs: [], headlineTasks: [] })).toEqual({ rate: 0.5, wilson_low: 0.2, beats_baseline: null, stability: null });
    expect(claimFigures({ cohort_id: a, headline: { rate: null, wilson: null }, baseline_cohort_id: a, pairs: [], headlineTasks: [{ graded: 2, resolved: 2 }] })).toEqual({ rate: null, wilson_low: null, beats_baseline: null, stability: 1 });
  });
});

describe('hostile names from the evidence (test/fixtures: XSS cheat sheet, Big List of Naughty Strings)', () => {
  it("a plan's access tier and an assessment's level are kept verbatim in the reasons, as data (the pages escape them)", async () => {
    const { xss, blns } = await readCorpora();
    for (const name of [...xss, ...blns]) {
      const plan: ClaimPlan = { ...BLACK, access_tier: name };
      const claims = claimsOfCohort(CARD, input({ plans: [plan], figures: { ...NONE, wilson_low: 0.8 }, assessments: [{ indicator: 'no_weight_tampering', level: name }] }));
      const known = CARD.tiers.some((t) => t.name === name);
      expect(claim(claims, 'resolves_headline').reason).toBe(known ? `capped by access tier ${name}` : `access tier ${name} is not on the score card`);
      expect(claim(claims, 'no_weight_tampering').reason).toBe(CARD.levels.includes(name) ? null : `level ${name} is not on the score card`);
    }
  });
});
