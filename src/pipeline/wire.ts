/**
 * A verified directory as posted from a verifying worker thread to the main
 * thread: the evidence in its posted form (src/bundle/evidence.ts: the
 * tables' typed arrays are moved, not copied); ids, findings and entries are
 * structured-cloned. The main thread rebuilds the same verification:
 * test/pipeline/threads.test.ts compares it with verifying in the main thread.
 */
import { Buffer } from 'node:buffer';
import { evidenceFromWire, evidenceToWire, type BundleEvidence, type EvidenceWire } from '../bundle/evidence.ts';
import { evidenceSummary, KEPT_SUMMARY, type EvidenceSummary } from '../bundle/evidence-summary.ts';
import { AttemptTable, GradesTable, type AttemptTableWire, type GradesTableWire } from '../bundle/tables.ts';
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

/**
 * A result as the verification cache keeps it (verify-cache.ts), in two
 * parts: the head, small (the verification without its evidence, the
 * evidence without its tables, the tables' summary and their row counts),
 * which is all a report cache hit reads; and the tables (the attempts and
 * every grading generation, compact), read only where something still needs
 * the rows.
 */
export interface HeadWire {
  verification: Omit<BundleVerification, 'evidence'>;
  evidence: Omit<EvidenceWire, 'attempts' | 'grades'>;
  summary: EvidenceSummary;
}

/** The tables half of a kept result. */
export interface TablesWire {
  attempts: AttemptTableWire;
  grades: GradesTableWire[];
}

/** A verified result's head and tables, as kept. */
export function toKept(verification: BundleVerification): { head: HeadWire; tables: TablesWire } {
  const { evidence, ...rest } = verification;
  const { attempts, grades, ...head } = evidenceToWire(evidence, true).wire;
  return { head: { verification: rest, evidence: head, summary: evidenceSummary(evidence) }, tables: { attempts, grades } };
}

/** The tables a kept tables half describes. */
export function tablesFromWire(wire: TablesWire): { attempts: AttemptTable; grades: GradesTable[] } {
  const attempts = AttemptTable.fromWire(wire.attempts);
  return { attempts, grades: wire.grades.map((g) => GradesTable.fromWire(g, attempts)) };
}

/** Where the tables of evidence rebuilt from a head come from: read once, on first use (see {@link fromHead}). */
export interface TablesSource {
  /** Reads the tables now (from synchronous code: the first use of `attempts` or `grades`); throws when they cannot be had. */
  readSync(): { attempts: AttemptTable; grades: GradesTable[] };
  /** Reads the tables ahead of their use; null when they cannot be had (then {@link forget} the head and verify the bundle again). */
  read(): Promise<{ attempts: AttemptTable; grades: GradesTable[] } | null>;
  /** Removes the head these tables belong with (its tables do not check: the next read of the bundle verifies it again). */
  forget(): Promise<void>;
}

interface TablesSlot {
  tables: { attempts: AttemptTable; grades: GradesTable[] } | null;
  source: TablesSource;
}

const slots = new WeakMap<BundleEvidence, TablesSlot>();

/**
 * The verification a head describes, its evidence's `attempts` and `grades`
 * read from `source` on first use (and kept). Everything else (manifest,
 * plan, ledger, grant, assessments, notes, the summary) is there at once.
 * The evidence is frozen like any other; reading a table member is the
 * only thing that reads the tables.
 */
export function fromHead(head: HeadWire, source: TablesSource): BundleVerification {
  const w = head.evidence;
  const notes = w.notesBuffer && w.notes !== null ? Buffer.from(w.notes.buffer, w.notes.byteOffset, w.notes.byteLength) : w.notes;
  const slot: TablesSlot = { tables: null, source };
  const tables = () => (slot.tables ??= slot.source.readSync());
  const value = (v: unknown) => ({ value: v, enumerable: true });
  // The members in the order evidence() gives them.
  const evidence = Object.defineProperties({} as BundleEvidence, {
    manifest: value(w.manifest),
    plan: value(w.plan),
    ledger: value(w.ledger),
    attempts: { get: () => tables().attempts, enumerable: true },
    grades: { get: () => tables().grades, enumerable: true },
    grant: value(w.grant),
    assessments: value(w.assessments),
    notes: value(notes),
    [KEPT_SUMMARY]: { value: head.summary },
  });
  slots.set(Object.freeze(evidence), slot);
  return { ...head.verification, evidence };
}

/** True when this evidence was rebuilt from a kept head and its tables have not been read yet. */
export function tablesPending(evidence: BundleEvidence): boolean {
  const slot = slots.get(evidence);
  return slot !== undefined && slot.tables === null;
}

/** Gives evidence rebuilt from a head its tables (read ahead, or made by verifying the bundle again); the first given stay. */
export function installTables(evidence: BundleEvidence, tables: { attempts: AttemptTable; grades: readonly GradesTable[] }): void {
  const slot = slots.get(evidence);
  if (slot !== undefined && slot.tables === null) slot.tables = { attempts: tables.attempts, grades: [...tables.grades] };
}

/**
 * Reads the tables of evidence rebuilt from a head ahead of their use: true
 * when they were read (or were there already), false when they cannot be
 * had (the head is then forgotten: see {@link TablesSource.forget}).
 */
export async function readPendingTables(evidence: BundleEvidence): Promise<boolean> {
  const slot = slots.get(evidence);
  if (slot === undefined || slot.tables !== null) return true;
  const tables = await slot.source.read();
  if (tables === null) {
    await slot.source.forget();
    return false;
  }
  slot.tables ??= tables;
  return true;
}
