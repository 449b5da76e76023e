/**
 * The state verification steps share: the snapshot, the findings so far, and
 * what earlier steps could read. A step that needs an input an earlier step
 * could not read skips its check (FORMAT.md section 6: skipped, not guessed).
 */
import type { BundleSnapshot, SnapshotEntry } from '../evidence/read-bundle.ts';
import type { JsonObject } from '../json/strict-json.ts';
import type { Grant, LedgerRecord, Manifest, ManifestEntry, Plan } from '../schema/index.ts';
import type { Assessment } from '../schema/assessments.ts';
import { finding, type Finding, type FindingCode } from './findings.ts';
import type { AttemptTable, GradesTable } from '../bundle/tables.ts';
import type { PinnedRoot } from '../anchor/check.ts';
import type { BundleAnchor } from '../anchor/times.ts';

export type { AttemptLine, GradesFile } from '../bundle/lines.ts';

/** Shared verification state. Fields are filled by the steps in order. */
export interface VerifyContext {
  readonly snapshot: BundleSnapshot;
  /** limits.string_bytes: the longest string a structured file may hold (the strict parser checks it). */
  readonly stringBytes: number;
  /** The reader's pinned time-stamp roots (FORMAT.md 12): anchors chaining to one are `pinned`. */
  readonly timestampRoots: readonly PinnedRoot[];
  /** Entries by bundle-relative path. */
  readonly disk: ReadonlyMap<string, SnapshotEntry>;
  readonly findings: Finding[];
  /** The parsed manifest, when it parsed and passed its schema. */
  manifest?: Manifest;
  /** Raw bundle_id as read (for the report), when it is a string. */
  bundleIdRead?: string;
  /** Listed entries by path (safe paths only). */
  listed: Map<string, ManifestEntry>;
  /** Listed paths that broke the path rules (reported; never used). */
  unsafeListed: Set<string>;
  /** Digests of listed files present on disk: artifacts that exist (their bytes are checked by FILE_DIGEST_MISMATCH). */
  presentDigests: Set<string>;
  plan?: Plan;
  planRaw?: JsonObject;
  planIdRead?: string;
  /** True when the plan's money fields are broken (ZERO_SHARE / CEILING_ARITHMETIC): OVER_CEILING is not evaluated. */
  ceilingBroken: boolean;
  /** Valid ledger records in ledger order; `ledgerComplete` is false when a line failed. */
  ledger?: LedgerRecord[];
  ledgerComplete: boolean;
  /** The attempts that passed their schema, one row each, in line order. */
  attempts?: AttemptTable;
  /** The row of each attempt id's first attempt. */
  attemptRows?: Map<string, number>;
  attemptsComplete: boolean;
  /** Grading generations that passed their schema, in the order checked. */
  grades: GradesTable[];
  grant?: Grant;
  /** assessments.json's assessments, in file order, when the manifest lists it and it passed its schema. */
  assessments?: Assessment[];
  /** The bundle's anchor (FORMAT.md 12) once the anchors step ran: null when no token checks. */
  anchor?: BundleAnchor | null;
}

/** Adds a finding to the context. */
export function addFinding(ctx: VerifyContext, code: FindingCode, file: string, message: string, line?: number): void {
  ctx.findings.push(finding(code, file, message, line));
}

/** Bytes of a structured file when it is a readable regular file on disk, else undefined. */
export function contentOf(ctx: VerifyContext, path: string): Uint8Array | undefined {
  const entry = ctx.disk.get(path);
  if (!entry || entry.kind !== 'file' || entry.unreadable !== undefined) return undefined;
  return entry.content;
}

/** True when the plan says the evidence was imported (section 9), not frozen. */
export function isImported(plan: Plan | undefined): boolean {
  return plan?.origin?.kind === 'imported';
}

