/**
 * What the report reads of a bundle's tables besides its poolings, summed
 * once: the money of its attempts (report/build-report.ts, a bundle's
 * `cost`), its newest attempt end and each grading generation's time (the
 * report's evidence_date, report/ledger-section.ts). A kept verification
 * holds this summary in its small head entry (pipeline/verify-cache.ts), so a
 * report made again over kept verifications reads no table for it; evidence
 * verified in this run is summed from its tables (once: the summary is
 * remembered per evidence object).
 */
import type { BundleEvidence } from './evidence.ts';
import { COST_STATE_CODES } from './tables.ts';

/** The money of a bundle's attempts: micros of the complete and partial costs (a float sum in row order: exact while within 2^53 - 1), and the count of each other state. */
export interface CostSums {
  micros: number;
  partial: number;
  unavailable: number;
  not_applicable: number;
  zero: number;
}

/** See the module comment. */
export interface EvidenceSummary {
  /** Attempt rows. */
  attempts: number;
  cost: CostSums;
  /** The newest ended_at (the first of equal instants, in attempt order), or null. */
  newestEnd: string | null;
  /** Each grading generation's created_at, in evidence order. */
  generations: string[];
}

/** Where evidence rebuilt from a kept head carries its summary (not enumerable: not part of the evidence's value). */
export const KEPT_SUMMARY: unique symbol = Symbol('ledgerboard.evidence-summary');

const remembered = new WeakMap<BundleEvidence, EvidenceSummary>();

/** The summary of this evidence: the kept one, else summed from its tables (see the module comment). */
export function evidenceSummary(evidence: BundleEvidence): EvidenceSummary {
  const kept = (evidence as { [KEPT_SUMMARY]?: EvidenceSummary })[KEPT_SUMMARY];
  if (kept !== undefined) return kept;
  let summary = remembered.get(evidence);
  if (summary === undefined) remembered.set(evidence, (summary = summarise(evidence)));
  return summary;
}

const [COMPLETE, PARTIAL, UNAVAILABLE, NOT_APPLICABLE, ZERO] = (['complete', 'partial', 'unavailable', 'not_applicable', 'zero'] as const).map((s) => COST_STATE_CODES.indexOf(s));

function summarise(evidence: BundleEvidence): EvidenceSummary {
  const a = evidence.attempts;
  const cost: CostSums = { micros: 0, partial: 0, unavailable: 0, not_applicable: 0, zero: 0 };
  for (let row = 0; row < a.count; row++) {
    const state = a.costState[row]!;
    if (state === COMPLETE || state === PARTIAL) {
      if (state === PARTIAL) cost.partial++;
      const m = a.costMicros[row]!;
      // NaN: micros null, which adds nothing.
      if (m === m) cost.micros += m;
    } else if (state === UNAVAILABLE) cost.unavailable++;
    else if (state === NOT_APPLICABLE) cost.not_applicable++;
    else if (state === ZERO) cost.zero++;
  }
  return { attempts: a.count, cost, newestEnd: a.newestEnd, generations: evidence.grades.map((g) => g.created_at) };
}

const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/** Whether a value read back from a cache entry has a summary's shape (checked as input, as every kept value is). */
export function isEvidenceSummary(value: unknown): value is EvidenceSummary {
  if (typeof value !== 'object' || value === null) return false;
  const s = value as Record<string, unknown>;
  const cost = s.cost as Record<string, unknown> | null;
  if (!isCount(s.attempts) || typeof cost !== 'object' || cost === null) return false;
  if (typeof cost.micros !== 'number' || !(cost.micros >= 0) || ![cost.partial, cost.unavailable, cost.not_applicable, cost.zero].every(isCount)) return false;
  if (s.newestEnd !== null && typeof s.newestEnd !== 'string') return false;
  return Array.isArray(s.generations) && s.generations.every((g) => typeof g === 'string');
}
