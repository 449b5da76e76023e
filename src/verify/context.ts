/**
 * The state verification steps share: the snapshot, the findings so far, and
 * what earlier steps could read. A step that needs an input an earlier step
 * could not read skips its check (FORMAT.md section 6: skipped, not guessed).
 */
import type { BundleSnapshot, SnapshotEntry } from '../evidence/read-bundle.ts';
import type { JsonObject } from '../json/strict-json.ts';
import type { Grant, LedgerRecord, Manifest, ManifestEntry, Plan } from '../schema/index.ts';
import { finding, type Finding, type FindingCode } from './findings.ts';
import type { AttemptTable, GradesTable } from './tables.ts';
import type { GradesFile } from './lines.ts';

export type { AttemptLine, GradesFile } from './lines.ts';

/** Shared verification state. Fields are filled by the steps in order. */
export interface VerifyContext {
  readonly snapshot: BundleSnapshot;
  /** limits.string_bytes: the longest string a structured file may hold (the strict parser checks it). */
  readonly stringBytes: number;
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
  /** Grading generations that passed their schema, as tables when they fit one (see GradesTable). */
  grades: (GradesFile | GradesTable)[];
  grant?: Grant;
}

/** Adds a finding to the context. */
export function report(ctx: VerifyContext, code: FindingCode, file: string, message: string, line?: number): void {
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

/** Subject keys already made, by model, agent name and agent version; emptied when it grows past its bound. */
const subjectKeys = new Map<string, Map<string, Map<string, string>>>();
let subjectKeysSize = 0;
const SUBJECT_KEYS_MAX = 10_000;
/** The last subject asked for and its key. */
const last = { model: '', name: '', version: '', key: JSON.stringify(['', '', '']) };

/** The subject identity key: model + agent name + agent version (JSON text of the three). */
export function subjectKey(model: string, agent: { name: string; version: string }): string {
  // Every attempt asks, with the few subjects of its plan: remembered, not re-serialized; and attempts
  // come in runs of one subject, so the last answer is checked first (no hashing).
  if (model === last.model && agent.name === last.name && agent.version === last.version) return last.key;
  let byName = subjectKeys.get(model);
  if (byName === undefined) {
    byName = new Map();
    subjectKeys.set(model, byName);
  }
  let byVersion = byName.get(agent.name);
  if (byVersion === undefined) {
    byVersion = new Map();
    byName.set(agent.name, byVersion);
  }
  let key = byVersion.get(agent.version);
  if (key === undefined) {
    key = JSON.stringify([model, agent.name, agent.version]);
    if (subjectKeysSize >= SUBJECT_KEYS_MAX) {
      subjectKeys.clear();
      subjectKeysSize = 0;
    } else {
      byVersion.set(agent.version, key);
      subjectKeysSize++;
    }
  }
  last.model = model;
  last.name = agent.name;
  last.version = agent.version;
  last.key = key;
  return key;
}

/**
 * The copy of `value` already in `strings` (one per distinct value), adding it
 * when new, up to {@link SHARED_STRINGS_MAX} distinct values (past that, new
 * values are returned as they are: unique values gain nothing from sharing).
 */
export function sharedString(strings: Map<string, string>, value: string): string {
  const known = strings.get(value);
  if (known !== undefined) return known;
  if (strings.size < SHARED_STRINGS_MAX) strings.set(value, value);
  return value;
}

/** Most distinct values one {@link sharedString} map keeps. */
export const SHARED_STRINGS_MAX = 1 << 16;
