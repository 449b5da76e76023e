/**
 * A verified bundle as posted from a verifying worker thread to the main
 * thread: the attempts and grades tables go as typed arrays and one buffer of
 * strings each, moved (not copied); everything else (ids, findings, entries,
 * manifest, plan, ledger, grant, notes) is structured-cloned. The main thread
 * rebuilds the same verification: test/pipeline/workers.test.ts compares it
 * with verifying in the main thread.
 */
import { Buffer } from 'node:buffer';
import type { GradesFile } from '../verify/context.ts';
import { AttemptTable, GradesTable, transferablesOf, type AttemptTableWire, type GradesTableWire } from '../verify/tables.ts';
import { evidenceTables, evidenceWithTables, type BundleEvidence, type BundleVerification } from '../verify/verify-bundle.ts';
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
  evidence: Omit<BundleEvidence, 'attempts' | 'grades'>;
  /** NOTES.md bytes were a Buffer (a structured clone gives a Uint8Array). */
  notesBuffer: boolean;
  /** The tables, or (for evidence without them) the objects. */
  attempts: AttemptTableWire | null;
  grades: ({ table: GradesTableWire } | { file: GradesFile })[];
  objects: { attempts: BundleEvidence['attempts']; grades: BundleEvidence['grades'] } | null;
  content_digest: string;
  entries: BundleEntry[];
}

/** The posted form of a result, and the buffers to move with it. */
export function toWire(result: DirectoryResult): { wire: DirectoryWire; transfer: ArrayBuffer[] } {
  const { evidence, ...verification } = result.verification;
  const kept = evidenceTables(evidence);
  const { manifest, plan, ledger, grant, notes } = evidence;
  const wire: DirectoryWire = {
    verification,
    evidence: { manifest, plan, ledger, grant, notes },
    notesBuffer: Buffer.isBuffer(notes),
    attempts: kept?.attempts?.toWire() ?? null,
    grades: kept ? kept.grades.map((g) => (g instanceof GradesTable ? { table: g.toWire() } : { file: g })) : [],
    objects: kept ? null : { attempts: evidence.attempts, grades: evidence.grades },
    content_digest: result.content_digest,
    entries: result.entries,
  };
  const transfer = [
    ...new Set([
      ...(wire.attempts ? transferablesOf(wire.attempts.columns).concat(transferablesOf(wire.attempts.strings)) : []),
      ...wire.grades.flatMap((g) => ('table' in g ? transferablesOf(g.table.columns) : [])),
    ]),
  ];
  return { wire, transfer };
}

/** The result a posted form describes. */
export function fromWire(wire: DirectoryWire): DirectoryResult {
  const parts = wire.evidence;
  if (wire.notesBuffer && parts.notes !== null) parts.notes = Buffer.from(parts.notes.buffer, parts.notes.byteOffset, parts.notes.byteLength);
  let evidence: BundleEvidence;
  if (wire.objects !== null) {
    const { manifest, plan, ledger, grant, notes } = parts;
    evidence = { manifest, plan, ledger, attempts: wire.objects.attempts, grades: wire.objects.grades, grant, notes };
  } else {
    const attempts = wire.attempts ? AttemptTable.fromWire(wire.attempts) : null;
    const grades = wire.grades.map((g) => ('table' in g ? GradesTable.fromWire(g.table, attempts!) : g.file));
    evidence = evidenceWithTables(parts, { attempts, grades });
  }
  return { verification: { ...wire.verification, evidence }, content_digest: wire.content_digest, entries: wire.entries };
}
