/**
 * What the pages say of claims (FORMAT.md 11): each cohort's claims as its
 * page lists them ("may say: <title>: <level>", "Capped: <title>: assessed
 * strong, capped at supported by access tier black_box"), the board row's
 * summary ("claims: 2 supported, 1 capped"), the score card as /methodology/
 * explains it, and the sentence of a site without a card. The claims are the
 * report's (src/claims/claims.ts computed them): nothing here computes a
 * level. Every name here is the publisher's (indicator titles, level, tier
 * and origin names: the card) or evidence (an assessor's `by`, a tier of a
 * plan): shown bounded with invisible characters made visible (format.ts
 * shortIdentity), and escaped by the pages. Pure: types and format.ts only,
 * so pages, components and tests import it.
 */
import type { Claim, Scorecard } from '../../claims/scorecard.ts';
import type { Report, ReportCohort } from '../../report/schema.ts';
import type { SiteAssessment, SiteBundle } from './model-types.ts';
import { hexOf, shortIdentity } from '../views/format.ts';

export type { Claim, Scorecard, SiteAssessment };

/** The URL path of the card as published (its bytes as the config's file holds them). */
export const SCORECARD_PATH = '/scorecard.json';

/** How many characters of an indicator title a page shows. */
export const TITLE_CHARS = 200;
/** How many characters of an assessor's `by`, a reason or a basis path a page shows. */
export const TEXT_CHARS = 300;

/** What a site without a score card says, on every cohort page and on /methodology/. */
export const NO_CLAIMS =
  "This site's figures carry no claims: its config names no score card (FORMAT.md 11), so no figure here is a statement of what the evidence supports, at any level.";

/** A cohort's claims as the report holds them: null without a card, or in a report retained before claims existed. */
export function claimsOf(cohort: ReportCohort): Claim[] | null {
  const claims = (cohort as ReportCohort & { claims?: Claim[] | null }).claims;
  return claims === undefined || claims === null ? null : claims;
}

/** A level, tier or origin name as pages show it. */
export function levelText(name: string): string {
  return shortIdentity(name);
}

/** An indicator of the card, by id (undefined: not on this card). */
export function indicatorOf(card: Scorecard | null, id: string): Scorecard['indicators'][number] | undefined {
  return card?.indicators.find((i) => i.id === id);
}

/** An indicator's title as pages show it: the card's title, else (not on the card the site was given) its id. */
export function titleOf(card: Scorecard | null, id: string): string {
  return shortIdentity(indicatorOf(card, id)?.title ?? id, TITLE_CHARS);
}

/** Whether the indicator is assessed by people (assessments.json), else computed from a figure. */
export function isAssessed(card: Scorecard | null, id: string): boolean {
  const indicator = indicatorOf(card, id);
  return indicator !== undefined && 'assessed' in indicator;
}

/** True when the ceiling lowered the claim (FORMAT.md 11.3): the claimed level is not the indicator's own. */
export function isCapped(claim: Claim): boolean {
  return claim.level !== claim.uncapped;
}

/** One claim as a cohort page states it. */
export interface ClaimLine {
  indicator: string;
  capped: boolean;
  assessed: boolean;
  /** The sentence, e.g. "may say: Resolves the ledger's headline tasks: supported" or "Capped: ...". */
  text: string;
}

/**
 * A claim's sentence. Not capped: "may say: <title>: <level>", and the
 * reason of its level in brackets when it has one ("(not assessed)").
 * Capped: "Capped: <title>: <assessed|computed> <uncapped>, capped at
 * <level> by access tier <name>" (the claim's reason: "capped by origin
 * <kind>" reads "by origin <kind>"; a tier the card does not list reads
 * "capped at <level>: access tier <name> is not on the score card").
 */
export function claimLine(card: Scorecard | null, claim: Claim): ClaimLine {
  const title = titleOf(card, claim.indicator);
  const assessed = isAssessed(card, claim.indicator);
  const level = levelText(claim.level);
  const reason = claim.reason === null ? null : shortIdentity(claim.reason, TEXT_CHARS);
  if (isCapped(claim)) {
    const why = reason === null ? '' : reason.startsWith('capped ') ? ` ${reason.slice('capped '.length)}` : `: ${reason}`;
    return { indicator: claim.indicator, capped: true, assessed, text: `Capped: ${title}: ${assessed ? 'assessed' : 'computed'} ${levelText(claim.uncapped)}, capped at ${level}${why}` };
  }
  return { indicator: claim.indicator, capped: false, assessed, text: `may say: ${title}: ${level}${reason === null ? '' : ` (${reason})`}` };
}

/**
 * The board row's summary of a cohort's claims: the claims not capped
 * counted by level (the card's levels strongest first; a level the card does
 * not declare after them, in claim order), then the capped ones:
 * "claims: 2 supported, 1 capped"; "claims: none" for a card without
 * indicators. Null when the cohort carries no claims.
 */
export function claimSummary(card: Scorecard | null, claims: readonly Claim[] | null): string | null {
  if (claims === null) return null;
  if (claims.length === 0) return 'claims: none';
  const counts = new Map<string, number>();
  for (const level of [...(card?.levels ?? [])].reverse()) counts.set(level, 0);
  let capped = 0;
  for (const claim of claims) {
    if (isCapped(claim)) capped++;
    else counts.set(claim.level, (counts.get(claim.level) ?? 0) + 1);
  }
  const parts = [...counts].filter(([, n]) => n > 0).map(([level, n]) => `${n} ${levelText(level)}`);
  if (capped > 0) parts.push(`${capped} capped`);
  return `claims: ${parts.join(', ')}`;
}

/** An assessment as the page lists it under its claim, before the basis (linked by the page): "assessed supported by red team, example.org". */
export function assessmentText(a: SiteAssessment): string {
  return `assessed ${levelText(a.level)} by ${shortIdentity(a.by, TEXT_CHARS)}`;
}

/** A basis path as pages show it. */
export function basisText(path: string): string {
  return shortIdentity(path, TEXT_CHARS);
}

/** A contributing plan's part in a cohort's ceiling, as the cohort page says it. */
export interface PlanCeiling {
  plan_hex: string;
  title: string;
  /** "access tier black_box (ceiling supported)", "access tier x (not on the score card: not_supported)", or null when the plan is not shown on this site. */
  tier: string | null;
  /** "origin imported (ceiling indicative)" or "origin frozen (not capped by its origin)". */
  origin: string;
}

/** The ceiling sentences of one contributing plan (FORMAT.md 11.3), from the card and the plan's access tier and origin kind. */
export function planCeiling(card: Scorecard, plan: { plan_hex: string; title: string; access_tier: string | null; origin: string }): PlanCeiling {
  const tier = plan.access_tier === null ? undefined : card.tiers.find((t) => t.name === plan.access_tier);
  const origin = (card.origins ?? []).find((o) => o.kind === plan.origin);
  return {
    plan_hex: plan.plan_hex,
    title: shortIdentity(plan.title),
    tier:
      plan.access_tier === null
        ? null
        : tier === undefined
          ? `access tier ${levelText(plan.access_tier)} (not on the score card: ${levelText(card.levels[0]!)})`
          : `access tier ${levelText(plan.access_tier)} (ceiling ${levelText(tier.ceiling)})`,
    origin: origin === undefined ? `origin ${levelText(plan.origin)} (not capped by its origin)` : `origin ${levelText(plan.origin)} (ceiling ${levelText(origin.ceiling)})`,
  };
}

/** What each figure a computed indicator reads is (FORMAT.md 11.2), as /methodology/ says it. */
export const FIGURE_TEXT: Readonly<Record<string, string>> = {
  rate: 'the headline rate (resolved / graded on the headline tasks); not available when nothing is graded',
  wilson_low: 'the lower end of the headline 95% Wilson interval; not available when nothing is graded',
  beats_baseline: "1 when the cohort beats the board's baseline in their pair (the sign test, Holm-adjusted), else 0; not available for the baseline itself or on a board without a single baseline",
  stability:
    '1 - f / h, where h is the headline tasks on which the cohort has two or more graded attempts and f those of them with some but not all resolved; not available when h is 0',
};

/** How a computed or assessed indicator gets its level, as /methodology/ says it. */
export function indicatorRule(card: Scorecard, indicator: Scorecard['indicators'][number]): string {
  const weakest = levelText(card.levels[0]!);
  if ('assessed' in indicator) {
    return `Assessed: the weakest level among the assessments of this indicator for the cohort's subject in the cohort's bundles (assessments.json, evidence like every file of a bundle); not assessed: ${weakest}; a level the card does not declare counts as ${weakest}.`;
  }
  const { figure, at_least } = indicator.computed;
  const steps = at_least.map((t, i) => `${levelText(card.levels[i + 1]!)} at ${t} or more`);
  return `Computed from ${figure}, ${FIGURE_TEXT[figure] ?? figure}: ${steps.join(', ')}; below ${at_least[0]}: ${weakest} (the strongest level whose threshold the figure reaches); not available: ${weakest}.`;
}

/** The fixed explanation of claims on /methodology/ (each a paragraph), beside the card's own levels, tiers, origins and indicators. */
export const CLAIMS_TEXT: readonly string[] = [
  'A figure is not a claim. A claim says what the evidence supports, at a level, and no claim may exceed what the plan\u2019s access tier can support: an evaluation that saw only inputs and outputs cannot support a claim that needed weights or training data, however good its numbers.',
  "The publisher's score card declares the levels (weakest first), the strongest level each access tier may reach (its ceiling), optionally a ceiling for each origin of the evidence (frozen here, or imported from another harness's logs), and the indicators: each computed from one of a cohort's figures or assessed by people in an assessments.json a bundle holds. The card is published byte for byte at /scorecard.json; its RFC 8785 digest is part of the report's config, so another card is another report.",
  "A cohort's ceiling is the weakest of, over every plan that contributes to it, the ceiling of the plan's access tier (a tier the card does not list: the weakest level) and the ceiling of its origin when the card lists one. Each claim is the weaker of the indicator's own level and the ceiling; a claim the ceiling lowered is shown as capped, with the tier or origin that capped it (the first such source among the plans in the order they were frozen).",
];

/** The contributing plans of a cohort with their part in its ceiling, from the plan pages the site shows (access tier) and the report (origin). */
export function cohortPlanCeilings(
  card: Scorecard,
  model: { report: Pick<Report, 'bundles'>; plans: Record<string, number>; bundles: readonly Pick<SiteBundle, 'page'>[] },
  cohort: Pick<ReportCohort, 'plans'>,
): PlanCeiling[] {
  return cohort.plans.map((p) => {
    const hex = hexOf(p.plan_id);
    const shown = Object.hasOwn(model.plans, hex) ? model.bundles[model.plans[hex]!]?.page?.plan : undefined;
    const origin = shown?.origin?.kind ?? model.report.bundles.find((b) => b.bundle_id === p.bundle_id)?.plan?.origin ?? 'frozen';
    return planCeiling(card, { plan_hex: hex, title: p.title, access_tier: shown?.access_tier ?? null, origin });
  });
}
