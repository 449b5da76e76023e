/**
 * A verified directory as posted from a verifying worker thread to the main
 * thread: the evidence in its posted form (src/bundle/evidence.ts: the
 * tables' typed arrays are moved, not copied); ids, findings and entries are
 * structured-cloned. The main thread rebuilds the same verification:
 * test/pipeline/threads.test.ts compares it with verifying in the main thread.
 */
import { evidenceFromWire, evidenceToWire, type EvidenceWire } from '../bundle/evidence.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';
import type { BundleEntry, DirectoryResult } from './results.ts';

export type { DirectoryResult } from './results.ts';

/** A {@link DirectoryResult} as posted between threads. */
export interface DirectoryWire {
  verification: Omit<BundleVerification, 'evidence'>;
  evidence: EvidenceWire;
  content_digest: string;
  entries: BundleEntry[];
  /** The result came from the verification cache. */
  cached: boolean;
}

/** The posted form of a result, and the buffers to move with it (`compact`: see evidenceToWire). */
export function toWire(result: DirectoryResult, compact = false): { wire: DirectoryWire; transfer: ArrayBuffer[] } {
  const { evidence, ...verification } = result.verification;
  const posted = evidenceToWire(evidence, compact);
  return { wire: { verification, evidence: posted.wire, content_digest: result.content_digest, entries: result.entries, cached: result.cached === true }, transfer: posted.transfer };
}

/** The result a posted form describes. */
export function fromWire(wire: DirectoryWire): DirectoryResult {
  const result: DirectoryResult = { verification: { ...wire.verification, evidence: evidenceFromWire(wire.evidence) }, content_digest: wire.content_digest, entries: wire.entries };
  if (wire.cached) result.cached = true;
  return result;
}
