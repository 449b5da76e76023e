/**
 * The site model's part of claims (FORMAT.md 11): the score card the report's
 * claims were computed with (checked against the digest in the report's
 * config, so the card the site shows and publishes at /scorecard.json is the
 * one the claims came from), and, per cohort, the assessments shown beside
 * its assessed claims: who assessed (`by`), at what level, and the basis
 * linked at its blob URL. The assessments are a contributing bundle's
 * verified evidence (the build hands them over, as it hands the task pages
 * their tables), else its published assessments.json, parsed strictly.
 */
import { digestCanonical } from '../../json/canonical.ts';
import { parseStrictJson } from '../../json/strict-json.ts';
import type { Report, ReportCohort } from '../../report/schema.ts';
import { Scorecard } from '../../claims/scorecard.ts';
import { Assessments, ASSESSMENTS_PATH, type Assessment } from '../../schema/assessments.ts';
import type { Published, PublishedBundle } from './published.ts';
import { claimsOf } from './claims.ts';
import type { SiteAssessment, SiteScorecard } from './model-types.ts';
import { hexOf } from '../views/format.ts';

/** The card's digest the report's config records (absent: the report was built without a card). */
export function reportScorecardDigest(report: Pick<Report, 'config'>): string | null {
  const digest = (report.config as { scorecard?: unknown }).scorecard;
  return typeof digest === 'string' ? digest : null;
}

/**
 * The site's score card from the config's file bytes, checked: it parses
 * strictly, fits the card's schema, and its RFC 8785 digest is the one the
 * report's config records; and a report that records a card is given one.
 * Anything else is a build that would publish a card its claims did not come
 * from: an error.
 */
export function siteScorecard(report: Pick<Report, 'config'>, bytes: Uint8Array | null | undefined): SiteScorecard | null {
  const recorded = reportScorecardDigest(report);
  if (bytes === null || bytes === undefined) {
    if (recorded !== null) throw new Error(`the report's claims were computed with the score card ${recorded}, but the site was given no score card to publish`);
    return null;
  }
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) throw new Error(`the score card is not JSON: ${parsed.error.message}`);
  const card = Scorecard.parse(parsed.value);
  const digest = digestCanonical(parsed.value as Parameters<typeof digestCanonical>[0]);
  if (recorded === null) throw new Error(`the site was given the score card ${digest}, but the report was built without one (its cohorts carry no claims)`);
  if (recorded !== digest) throw new Error(`the site was given the score card ${digest}, but the report's claims were computed with ${recorded}`);
  return { card, digest, bytes: bytes.length };
}

function sameSubject(a: Assessment['subject'], c: ReportCohort['subject']): boolean {
  return a.model === c.model && a.agent.name === c.agent.name && a.agent.version === c.agent.version;
}

/** A published bundle's assessments.json, parsed strictly (none: empty; its bytes withheld or not parsing: null, nothing shown). */
async function publishedAssessments(bundle: PublishedBundle, published: Published): Promise<readonly Assessment[] | null> {
  const file = bundle.files.find((f) => f.path === ASSESSMENTS_PATH);
  if (file === undefined) return bundle.withheld.some((f) => f.path === ASSESSMENTS_PATH) ? null : [];
  const parsed = parseStrictJson(await published.blob(file.sha256));
  if (!parsed.ok) return null;
  const result = Assessments.safeParse(parsed.value);
  return result.success ? result.data.assessments : null;
}

/**
 * Per cohort id (cohorts that carry claims), the assessments of its
 * subject in its contributing bundles (the report's `plans[].bundle_id`) of
 * the card's assessed indicators, in plan order then file order. `given`:
 * the verified evidence's assessments by bundle id, when the build has them.
 */
export async function siteAssessments(
  report: Pick<Report, 'bundles' | 'cohorts'>,
  scorecard: SiteScorecard | null,
  published: Published,
  given?: ReadonlyMap<string, readonly Assessment[]>,
): Promise<Record<string, SiteAssessment[]>> {
  if (scorecard === null) return {};
  const assessed = new Set(scorecard.card.indicators.flatMap((i) => ('assessed' in i ? [i.id] : [])));
  if (assessed.size === 0) return {};
  const byBundle = new Map<string, number>();
  report.bundles.forEach((b, i) => {
    if (b.counted && b.bundle_id !== null && !byBundle.has(b.bundle_id)) byBundle.set(b.bundle_id, i);
  });
  const read = new Map<string, readonly Assessment[] | null>();
  const out: Record<string, SiteAssessment[]> = {};
  for (const cohort of report.cohorts) {
    if (claimsOf(cohort) === null) continue;
    const list: SiteAssessment[] = [];
    for (const plan of cohort.plans) {
      const index = byBundle.get(plan.bundle_id);
      if (index === undefined) continue;
      const bundle = published.bundles[index]!;
      if (!read.has(plan.bundle_id)) read.set(plan.bundle_id, given?.get(plan.bundle_id) ?? (await publishedAssessments(bundle, published)));
      for (const a of read.get(plan.bundle_id) ?? []) {
        if (!assessed.has(a.indicator) || !sameSubject(a.subject, cohort.subject)) continue;
        const basisFile = a.basis === undefined ? undefined : bundle.files.find((f) => f.path === a.basis);
        list.push({
          indicator: a.indicator,
          level: a.level,
          by: a.by,
          plan_hex: hexOf(plan.plan_id),
          basis: a.basis === undefined ? null : { path: a.basis, url: basisFile?.url ?? null },
        });
      }
    }
    if (list.length > 0) out[cohort.cohort_id] = list;
  }
  return out;
}
