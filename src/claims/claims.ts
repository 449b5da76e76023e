/**
 * A cohort's claims (FORMAT.md 11.2 and 11.3): for each indicator of the
 * score card, in the card's order, the level its figure or its assessments
 * reach, the cohort's ceiling (the weakest tier and origin ceiling over its
 * contributing plans) and the claim, the weaker of the two, with its reason
 * word for word. Pure and deterministic: the report builder calls it once per
 * cohort, and a verifier that re-derives the report gets the same claims from
 * the same figures (docs/formulas.md, "Claims", works an example).
 *
 * The figures are the report's own numbers (see {@link claimFigures}):
 * `rate` and `wilson_low` of the headline, `beats_baseline` from the board's
 * pair with its baseline, `stability` from the per-task graded and resolved
 * counts of the headline tasks.
 */
import { compareTimestamps } from '../schema/timestamp.ts';
import type { Figure, Scorecard } from '../schema/scorecard.ts';
import type { Claim } from './scorecard.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** A cohort's four figures (FORMAT.md 11.2), each null when not available. */
export type ClaimFigures = Record<Figure, number | null>;

/** A plan contributing to the cohort, as its ceiling reads it. */
export interface ClaimPlan {
  plan_id: string;
  created_at: string;
  /** The plan's `access_tier`. */
  access_tier: string;
  /** The plan's `origin.kind` (`frozen` without `origin`). */
  origin_kind: string;
}

/** One assessment of the cohort's subject in one of its contributing bundles (FORMAT.md 11.2). */
export interface ClaimAssessment {
  indicator: string;
  level: string;
}

/** What a cohort's claims are computed from. */
export interface ClaimInput {
  figures: ClaimFigures;
  /** Every plan contributing to the cohort, in any order (sorted here by created_at, then plan id). */
  plans: readonly ClaimPlan[];
  /**
   * The assessments of the cohort's subject in its contributing bundles, in
   * the order of those bundles' plans (created_at, then plan id), each
   * bundle's in file order: the order decides only which undeclared level
   * a reason names when several are among the weakest.
   */
  assessments: readonly ClaimAssessment[];
}

/** The level index of a computed figure: how many thresholds it is greater than or equal to. */
export function thresholdsMet(figure: number, at_least: readonly number[]): number {
  let met = 0;
  for (const t of at_least) if (figure >= t) met++;
  return met;
}

/** An indicator's own level (11.2): its index into the card's levels and its reason (null: none). */
function uncappedLevel(card: Scorecard, indicator: Scorecard['indicators'][number], input: ClaimInput): { index: number; reason: string | null } {
  if ('computed' in indicator) {
    const value = input.figures[indicator.computed.figure];
    if (value === null) return { index: 0, reason: `figure ${indicator.computed.figure} not available` };
    return { index: thresholdsMet(value, indicator.computed.at_least), reason: null };
  }
  const levels = new Map(card.levels.map((name, i) => [name, i]));
  let weakest: number | null = null;
  let undeclared: string | null = null;
  for (const a of input.assessments) {
    if (a.indicator !== indicator.id) continue;
    const known = levels.get(a.level);
    const index = known ?? 0;
    if (weakest === null || index < weakest) {
      weakest = index;
      undeclared = known === undefined ? a.level : null;
    } else if (index === weakest && known === undefined && undeclared === null) undeclared = a.level;
  }
  if (weakest === null) return { index: 0, reason: 'not assessed' };
  return { index: weakest, reason: undeclared === null ? null : `level ${undeclared} is not on the score card` };
}

/** A source of the ceiling: a tier's or an origin's, with the reason a claim it lowered carries. */
interface CeilingSource {
  index: number;
  reason: string;
}

/**
 * The cohort's ceiling (11.3): the weakest of every contributing plan's tier
 * ceiling and, when the card lists its origin kind, origin ceiling; its
 * source is the first of them (plans by created_at, then plan id; a plan's
 * tier before its origin) that equals it. Without a plan nothing caps: the
 * strongest level, and no source (a report's cohort always has a plan).
 */
export function cohortCeiling(card: Scorecard, plans: readonly ClaimPlan[]): { index: number; source: CeilingSource | null } {
  const levels = new Map(card.levels.map((name, i) => [name, i]));
  const tiers = new Map(card.tiers.map((t) => [t.name, levels.get(t.ceiling)!]));
  const origins = new Map((card.origins ?? []).map((o) => [o.kind as string, levels.get(o.ceiling)!]));
  const ordered = [...plans].sort((a, b) => compareTimestamps(a.created_at, b.created_at) || byString(a.plan_id, b.plan_id));
  let source: CeilingSource | null = null;
  const consider = (candidate: CeilingSource) => {
    if (source === null || candidate.index < source.index) source = candidate;
  };
  for (const plan of ordered) {
    const tier = tiers.get(plan.access_tier);
    consider(tier === undefined ? { index: 0, reason: `access tier ${plan.access_tier} is not on the score card` } : { index: tier, reason: `capped by access tier ${plan.access_tier}` });
    const origin = origins.get(plan.origin_kind);
    if (origin !== undefined) consider({ index: origin, reason: `capped by origin ${plan.origin_kind}` });
  }
  const found = source as CeilingSource | null;
  return { index: found?.index ?? card.levels.length - 1, source: found };
}

/** A cohort's claims (FORMAT.md 11.3): one per indicator of the card, in its order. */
export function claimsOfCohort(card: Scorecard, input: ClaimInput): Claim[] {
  const ceiling = cohortCeiling(card, input.plans);
  return card.indicators.map((indicator) => {
    const own = uncappedLevel(card, indicator, input);
    const lowered = ceiling.index < own.index;
    return {
      indicator: indicator.id,
      level: card.levels[lowered ? ceiling.index : own.index]!,
      uncapped: card.levels[own.index]!,
      ceiling: card.levels[ceiling.index]!,
      reason: lowered ? ceiling.source!.reason : own.reason,
    };
  });
}

/** Resolved and graded attempts of a cohort on one headline task (graded as in FORMAT.md 8: every attempt there). */
export interface TaskCounts {
  graded: number;
  resolved: number;
}

/** `stability` (11.2): 1 - f / h over the headline tasks with two or more graded attempts (h), f of them mixed; null when h is 0. */
export function stabilityOf(headlineTasks: Iterable<TaskCounts>): number | null {
  let h = 0;
  let f = 0;
  for (const t of headlineTasks) {
    if (t.graded < 2) continue;
    h++;
    if (t.resolved > 0 && t.resolved < t.graded) f++;
  }
  return h === 0 ? null : 1 - f / h;
}

/** `beats_baseline` (11.2): 1 when the cohort wins its pair with the board's single baseline, else 0; null for the baseline itself or without a single baseline. */
export function beatsBaselineOf(cohort_id: string, baseline_cohort_id: string | null, pairs: readonly { a: string; b: string; winner: string | null }[]): number | null {
  if (baseline_cohort_id === null || baseline_cohort_id === cohort_id) return null;
  const [a, b] = cohort_id < baseline_cohort_id ? [cohort_id, baseline_cohort_id] : [baseline_cohort_id, cohort_id];
  const pair = pairs.find((p) => p.a === a && p.b === b);
  return pair !== undefined && pair.winner === cohort_id ? 1 : 0;
}

/**
 * The four figures of a cohort from the report's own numbers: its headline
 * rate and Wilson interval, its board's baseline and pairs, and its
 * resolved / graded counts on each headline task it attempted.
 */
export function claimFigures(cohort: {
  cohort_id: string;
  headline: { rate: number | null; wilson: readonly [number, number] | null };
  baseline_cohort_id: string | null;
  pairs: readonly { a: string; b: string; winner: string | null }[];
  headlineTasks: Iterable<TaskCounts>;
}): ClaimFigures {
  return {
    rate: cohort.headline.rate,
    wilson_low: cohort.headline.wilson === null ? null : cohort.headline.wilson[0],
    beats_baseline: beatsBaselineOf(cohort.cohort_id, cohort.baseline_cohort_id, cohort.pairs),
    stability: stabilityOf(cohort.headlineTasks),
  };
}
