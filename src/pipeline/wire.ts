/**
 * A verified directory as posted from a verifying worker thread to the main
 * thread: the evidence in its posted form (src/bundle/evidence.ts: the
 * tables' typed arrays are moved, not copied); ids, findings and entries are
 * structured-cloned. The main thread rebuilds the same verification:
 * test/pipeline/threads.test.ts compares it with verifying in the main thread.
 */
import { evidenceFromWire, evidenceToWire, type EvidenceWire } from '../bundle/evidence.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';
import type { BundleEntry } from './verify-directory.ts';

/** What verifyDirectory gives for one directory. */
export interface DirectoryResult {
  verification: BundleVerification;
  content_digest: string;
  entries: BundleEntry[];
}

/** A {@link DirectoryResult} as posted between threads. */
export interface DirectoryWire {
  verification: Omit<BundleVerification, 'evidence'>;
  evidence: EvidenceWire;
  content_digest: string;
  entries: BundleEntry[];
}

/** The posted form of a result, and the buffers to move with it. */
export function toWire(result: DirectoryResult): { wire: DirectoryWire; transfer: ArrayBuffer[] } {
  const { evidence, ...verification } = result.verification;
  const posted = evidenceToWire(evidence);
  return { wire: { verification, evidence: posted.wire, content_digest: result.content_digest, entries: result.entries }, transfer: posted.transfer };
}

/** The result a posted form describes. */
export function fromWire(wire: DirectoryWire): DirectoryResult {
  return { verification: { ...wire.verification, evidence: evidenceFromWire(wire.evidence) }, content_digest: wire.content_digest, entries: wire.entries };
}
