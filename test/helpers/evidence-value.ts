/**
 * A verified result as plain values, for comparing two results: the
 * evidence's tables become the records they hold (`lines()`, `file()`). Two
 * tables with the same records may differ in spare capacity and in the bytes
 * past their end, which is not evidence.
 */
import type { BundleEvidence } from '../../src/bundle/evidence.ts';

/** The evidence with its attempts and generations as records. */
export function evidenceValue(e: BundleEvidence): Record<string, unknown> {
  return { ...e, attempts: e.attempts.lines(), grades: e.grades.map((g) => g.file()) };
}

/** A result (anything with a `verification.evidence`) with its evidence as records. */
export function resultValue<T extends { verification: { evidence: BundleEvidence } }>(result: T): unknown {
  return { ...result, verification: { ...result.verification, evidence: evidenceValue(result.verification.evidence) } };
}
