/**
 * The verified evidence of one bundle: what later stages may use of it, only
 * what parsed and passed its schema. One explicit shape, the same wherever it
 * is read: the attempts and the grading generations are column tables
 * (tables.ts), never rebuilt into objects behind the reader's back, and the
 * object is frozen. It is what the verifier returns, what a worker thread
 * posts ({@link evidenceToWire}) and what analysis reads.
 */
import { Buffer } from 'node:buffer';
import type { Grant, LedgerRecord, Manifest, Plan } from '../schema/index.ts';
import type { Assessment } from '../schema/assessments.ts';
import type { AttemptLine, GradesFile } from './lines.ts';
import { AttemptTable, GradesTable, transferablesOf, type AttemptTableWire, type GradesTableWire } from './tables.ts';

/** A bundle's verified evidence (see the module comment). */
export interface BundleEvidence {
  readonly manifest: Manifest | null;
  readonly plan: Plan | null;
  /** Valid ledger records in ledger order. */
  readonly ledger: readonly LedgerRecord[];
  /** The attempts that passed their schema, one row each, in line order (empty when none could be read). */
  readonly attempts: AttemptTable;
  /** The grading generations that passed their schema, in the order checked; their rows index `attempts`. */
  readonly grades: readonly GradesTable[];
  readonly grant: Grant | null;
  /** assessments.json's assessments in file order (FORMAT.md 11.2); empty when the bundle has none (or they could not be read). */
  readonly assessments: Assessment[];
  /** NOTES.md as read (its bytes are rendered, never parsed as evidence). */
  readonly notes: Uint8Array | null;
}

/** The parts of a bundle's evidence, each optional (absent: null or empty). */
export interface EvidenceParts {
  manifest?: Manifest | null;
  plan?: Plan | null;
  ledger?: readonly LedgerRecord[];
  attempts?: AttemptTable;
  grades?: readonly GradesTable[];
  grant?: Grant | null;
  assessments?: Assessment[];
  notes?: Uint8Array | null;
}

/** Evidence from its parts, frozen. */
export function evidence(parts: EvidenceParts): BundleEvidence {
  return Object.freeze({
    manifest: parts.manifest ?? null,
    plan: parts.plan ?? null,
    ledger: parts.ledger ?? [],
    attempts: parts.attempts ?? new AttemptTable(0),
    grades: parts.grades ?? [],
    grant: parts.grant ?? null,
    assessments: parts.assessments ?? [],
    notes: parts.notes ?? null,
  });
}

/**
 * Evidence from attempt and generation objects, in the tables the verifier
 * builds: for a test's own evidence, or anything else not read from disk.
 * Duplicate attempt ids are marked as the verifier marks them
 * (`duplicateIds`); a result names the first row of its attempt id.
 */
export function evidenceFromObjects(parts: Omit<EvidenceParts, 'attempts' | 'grades'> & { attempts?: readonly AttemptLine[]; grades?: readonly GradesFile[] }): BundleEvidence {
  const lines = parts.attempts ?? [];
  const attempts = new AttemptTable(lines.length);
  const firstRow = new Map<string, number>();
  for (const { line, attempt } of lines) {
    const row = attempts.add(line, attempt);
    if (firstRow.has(attempt.attempt_id)) attempts.duplicateIds = true;
    else firstRow.set(attempt.attempt_id, row);
  }
  const grades = (parts.grades ?? []).map(({ path, grades: g }) => GradesTable.of(path, g, attempts, Int32Array.from(g.results, (r) => firstRow.get(r.attempt_id) ?? -1)));
  return evidence({ ...parts, attempts, grades });
}

/** {@link BundleEvidence} as posted between threads: the tables as typed arrays (moved, not copied), the rest structured-cloned. */
export interface EvidenceWire {
  manifest: Manifest | null;
  plan: Plan | null;
  ledger: readonly LedgerRecord[];
  grant: Grant | null;
  assessments: Assessment[];
  notes: Uint8Array | null;
  /** NOTES.md bytes were a Buffer (a structured clone gives a Uint8Array). */
  notesBuffer: boolean;
  attempts: AttemptTableWire;
  grades: GradesTableWire[];
}

/**
 * The posted form of evidence, and the buffers to move with it. With
 * `compact`, the tables' columns are copies of the rows in use only (to
 * store: no spare room, nothing past the end).
 */
export function evidenceToWire(e: BundleEvidence, compact = false): { wire: EvidenceWire; transfer: ArrayBuffer[] } {
  const { manifest, plan, ledger, grant, assessments, notes } = e;
  const wire: EvidenceWire = {
    manifest,
    plan,
    ledger,
    grant,
    assessments,
    notes,
    notesBuffer: Buffer.isBuffer(notes),
    attempts: e.attempts.toWire(compact),
    grades: e.grades.map((g) => g.toWire(compact)),
  };
  const transfer = [
    ...new Set([
      ...transferablesOf(wire.attempts.columns),
      ...transferablesOf(wire.attempts.strings),
      ...wire.grades.flatMap((g) => transferablesOf(g.columns)),
    ]),
  ];
  return { wire, transfer };
}

/** The evidence a posted form describes. */
export function evidenceFromWire(wire: EvidenceWire): BundleEvidence {
  const notes = wire.notesBuffer && wire.notes !== null ? Buffer.from(wire.notes.buffer, wire.notes.byteOffset, wire.notes.byteLength) : wire.notes;
  const attempts = AttemptTable.fromWire(wire.attempts);
  const grades = wire.grades.map((g) => GradesTable.fromWire(g, attempts));
  return evidence({ manifest: wire.manifest, plan: wire.plan, ledger: wire.ledger, grant: wire.grant, assessments: wire.assessments, notes, attempts, grades });
}
