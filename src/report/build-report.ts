/**
 * Builds the report (FORMAT.md section 8) from verified and unverified
 * bundles: a pure function of the evidence and the config. The same inputs
 * give the same report, byte for byte, whatever order they come in; nothing
 * in it reads a clock.
 *
 * The counted bundles are grouped by the ledger they pin and each group is
 * analysed alone (ledger-section.ts); the report is the sorted union of the
 * sections. A caller may hand in sections it kept for groups of exactly the
 * same bundles, and bundle poolings it kept for the others
 * (src/run/report-cache.ts): the report is the same either way.
 */
import type { Config } from '../config/config.ts';
import { digestCanonical, selfId } from '../json/canonical.ts';
import { NAME, VERSION } from '../version.ts';
import type { BundleEvidence, BundleVerification } from '../verify/verify-bundle.ts';
import { ledgerIncompatibilities } from '../analysis/incompatibilities.ts';
import { splitConflicts, type AnalysisInput, type PoolingStore } from '../analysis/pool.ts';
import type { LedgerRecord } from '../schema/index.ts';
import { evidenceSummary } from '../bundle/evidence-summary.ts';
import { reportConfigOf, type Report } from './schema.ts';
import { laterDate, ledgerSection, type LedgerSection } from './ledger-section.ts';

export { BOOTSTRAP_RESAMPLES } from './ledger-section.ts';

/** One bundle as the report takes it. */
export interface ReportInput {
  verification: BundleVerification;
  content_digest: string;
}

/** A counted bundle, with the digest of its content. */
export interface CountedBundle extends AnalysisInput {
  content_digest: string;
}

/** The counted bundles that pin one ledger, sorted by bundle id: what one section is made from. */
export interface LedgerGroup {
  ledger_digest: string;
  bundles: CountedBundle[];
}

/** Sections kept from an earlier run, and where newly made ones go (both optional). */
export interface SectionStore {
  /** The kept section of exactly this group under this config, or null. */
  kept(group: LedgerGroup): LedgerSection | null;
  /** Called with each section analysed afresh. */
  made?(group: LedgerGroup, section: LedgerSection): void;
  /** Bundle poolings kept from an earlier run, for the sections analysed afresh. */
  poolings?: PoolingStore;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The counted bundles by ledger (sorted by ledger digest), and the plans in conflict. */
export function countedGroups(inputs: readonly ReportInput[]): { groups: LedgerGroup[]; conflicts: Report['conflicts'] } {
  const candidates: CountedBundle[] = [];
  for (const { verification: v, content_digest } of dedupe(inputs)) {
    if (v.status === 'verified' && v.bundle_id && v.plan_id && v.evidence.plan) {
      candidates.push({ bundle_id: v.bundle_id, plan_id: v.plan_id, evidence: v.evidence, content_digest });
    }
  }
  const { counted, conflicts } = splitConflicts(candidates);
  const groups = new Map<string, LedgerGroup>();
  for (const bundle of counted) {
    const digest = bundle.evidence.plan!.ledger.digest;
    let group = groups.get(digest);
    if (!group) groups.set(digest, (group = { ledger_digest: digest, bundles: [] }));
    group.bundles.push(bundle);
  }
  return { groups: [...groups.values()].sort((a, b) => byString(a.ledger_digest, b.ledger_digest)), conflicts };
}

/** Builds the report (see the module comment). */
export function buildReport(inputs: readonly ReportInput[], config: Config, store?: SectionStore): Report {
  const bundles = reportBundles(inputs);
  const { groups, conflicts } = countedGroups(inputs);
  const conflicted = new Set(conflicts.flatMap((c) => c.bundle_ids));
  for (const b of bundles) b.counted = b.status === 'verified' && b.bundle_id !== null && !conflicted.has(b.bundle_id);

  const reported = reportConfigOf(config);
  const config_digest = digestCanonical(reported);
  const countedIds = bundles.filter((b) => b.counted).map((b) => b.bundle_id!);
  const inputs_digest = digestCanonical({ bundles: countedIds, config_digest });

  const sections = groups.map((group) => {
    const kept = store?.kept(group) ?? null;
    if (kept !== null) return kept;
    const made = ledgerSection(group.ledger_digest, group.bundles, config, config_digest, store?.poolings);
    store?.made?.(group, made);
    return made;
  });

  // A ledger's name is the one the plan of its lowest bundle id gives it (as its boards say).
  const ledgers = new Map<string, { name: string; records: readonly LedgerRecord[] }>();
  for (const group of groups) {
    const first = group.bundles[0]!;
    ledgers.set(group.ledger_digest, { name: first.evidence.plan!.ledger.name, records: first.evidence.ledger });
  }
  let evidence_date: string | null = null;
  for (const { evidence_date: date } of sections) {
    if (date !== null && (evidence_date === null || laterDate(date, evidence_date))) evidence_date = date;
  }

  const report: Omit<Report, 'report_id'> = {
    schema: 'ledgerboard.report.v1',
    generator: { name: NAME, version: VERSION },
    config: reported,
    config_digest,
    inputs_digest,
    evidence_date,
    bundles,
    conflicts,
    excluded_by_grading_pin: sections.flatMap((s) => s.excluded_by_grading_pin).sort((a, b) => byString(a.bundle_id, b.bundle_id)),
    boards: sections.flatMap((s) => s.boards).sort((a, b) => byString(a.board_id, b.board_id)),
    cohorts: sections.flatMap((s) => s.cohorts).sort((a, b) => byString(a.board_id, b.board_id) || a.rank - b.rank || byString(a.cohort_id, b.cohort_id)),
    incompatibilities: {
      by_ledger: sections.flatMap((s) => s.incompatible).sort((x, y) => byString(x.ledger_digest, y.ledger_digest)),
      by_name: ledgerIncompatibilities(ledgers),
    },
  };
  const report_id = selfId(report as Record<string, unknown>, 'report_id');
  const { schema, ...rest } = report;
  return { schema, report_id, ...rest };
}

/** Drops repeated copies of one bundle (same bundle id and content). */
function dedupe(inputs: readonly ReportInput[]): ReportInput[] {
  const seen = new Map<string, ReportInput>();
  for (const input of inputs) seen.set(`${input.verification.bundle_id ?? ''}/${input.content_digest}`, input);
  return [...seen.values()];
}

function reportBundles(inputs: readonly ReportInput[]): Report['bundles'] {
  return dedupe(inputs)
    .map(({ verification: v, content_digest }) => {
      const plan = v.evidence.plan;
      return {
        bundle_id: v.bundle_id,
        plan_id: v.plan_id,
        content_digest,
        status: v.status,
        counted: false,
        findings: v.findings.map((f) => ({ code: f.code, severity: f.severity, file: f.file, ...(f.line !== undefined ? { line: f.line } : {}), message: f.message })),
        plan: plan
          ? {
              title: plan.title,
              created_at: plan.created_at,
              ledger: { name: plan.ledger.name, digest: plan.ledger.digest, tasks: plan.ledger.tasks },
              origin: plan.origin?.kind ?? 'frozen',
              subjects: plan.subjects.length,
              attempts_per_task: plan.attempts,
              budget: plan.budget && { currency: plan.budget.currency, aggregate_micros: plan.budget.aggregate_micros, per_attempt_micros: plan.budget.per_attempt_micros },
            }
          : null,
        cost: bundleCost(v.evidence, plan?.budget?.currency ?? null),
        // FORMAT.md 12: the earliest time-stamp token that checks, or null.
        anchor: v.anchor,
      };
    })
    .sort((a, b) => byString(a.bundle_id ?? '', b.bundle_id ?? '') || byString(a.content_digest, b.content_digest));
}

/**
 * A bundle's money (ReportBundle.cost), summed once from the bundle's attempt table
 * (bundle/evidence-summary.ts; a kept verification's head holds the sums,
 * so no table is read for them): the complete and partial micros, and the count of each other
 * state, as analysis sums a cohort's. Every micros value is an integer
 * from 0 to 2^53 - 1, so the sum is exact while it stays within 2^53 - 1
 * and, rounding being monotone, over it once the exact sum is: null then
 * (the verifier's LIMIT_EXCEEDED names that total).
 */
function bundleCost(evidence: BundleEvidence, currency: string | null): NonNullable<Report['bundles'][number]['cost']> | null {
  const sums = evidenceSummary(evidence).cost;
  if (sums.micros > Number.MAX_SAFE_INTEGER) return null;
  const cost = { currency, micros: sums.micros, complete: true, unavailable: sums.unavailable, partial: sums.partial, not_applicable: sums.not_applicable, zero: sums.zero };
  cost.complete = cost.unavailable === 0 && cost.partial === 0;
  return cost;
}

