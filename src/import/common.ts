/**
 * What every importer's mapping shares (FORMAT.md section 9): the attempt
 * ids, the ledger record of an imported task, the origin, cost from a dollar
 * figure, content-addressed artifacts, plural words, and NOTES.md with its
 * "what the source did not have" list and the "no usable grades" section.
 * Pure functions: no clock, no locale, no random.
 */
import { canonicalBytes, digestBytes, digestHex } from '../json/canonical.ts';
import { NAME, VERSION } from '../version.ts';
import type { Attempt, CostState, GradeResult, Grader, LedgerRecord, Plan } from '../schema/index.ts';
import { jsonlBytes, prettyJson } from '../evidence/manifest.ts';
import type { ImportSummary, MappedBundle } from './importer.ts';
import { boundedString, plural } from './text.ts';

export { boundedString, plural };

/**
 * The NOTES.md line of an import without one usable grade (no scorer, every
 * value uninterpretable, every attempt halted by an error): no completed
 * attempt was graded pass or fail and none ran into a model or time limit,
 * so nothing measured a pass rate (docs/importing.md).
 */
export const NO_USABLE_GRADES =
  'no usable grades: no completed sample has a pass or fail verdict from the scorer, so this run measures no pass rate (its 0 resolved is not 0%)';

/** The attempt id of the i-th attempt (0-based) of an imported bundle: a-000001, a-000002, ... */
export function attemptIdOf(i: number): string {
  return `a-${String(i + 1).padStart(6, '0')}`;
}

/** The plan's `origin` of an import: the format, the digest of the first original file, and this tool. */
export function importOrigin(format: string, firstSource: Uint8Array) {
  return { kind: 'imported' as const, format, source: digestBytes(firstSource), tool: { name: NAME, version: VERSION } };
}

/**
 * The ledger record of one imported task: only its id, its prompt's digest
 * and the license are known; every task is its own cluster, a holdout (its
 * labels were never public before the run, as far as the source says), and
 * created when the run started.
 */
export function importedLedgerRecord(taskId: string, promptSha256: string, license: string, createdAt: string): LedgerRecord {
  return {
    task_id: taskId,
    repo: null,
    base_sha: null,
    prompt_sha256: promptSha256,
    failing_tests: null,
    failing_assertion: null,
    oracle_sha256: null,
    license,
    difficulty: null,
    holdout: true,
    cluster_id: taskId,
    created_at: createdAt,
  };
}

/**
 * An attempt's cost from a dollar figure the source records: unknown (absent,
 * null, not a finite non-negative number) is `unavailable`, never zero; 0 is
 * `zero`; anything else `complete`, rounded to whole micro-dollars.
 */
export function costFromUsd(usd: unknown): { state: CostState; micros: number | null } {
  if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) return { state: 'unavailable', micros: null };
  const micros = Math.round(usd * 1e6);
  return micros === 0 ? { state: 'zero', micros: 0 } : { state: 'complete', micros };
}

/**
 * A writer of content-addressed JSON artifacts into a bundle's files:
 * `artifacts/<sha256-hex>.json`, the canonical bytes of the value; returns
 * the digest for a grade result's input, output or receipt.
 */
export function artifactWriter(files: Map<string, Uint8Array>): (value: unknown) => string {
  return (value) => {
    const bytes = canonicalBytes(value ?? null);
    const digest = digestBytes(bytes);
    files.set(`artifacts/${digestHex(digest)}.json`, bytes);
    return digest;
  };
}

/**
 * NOTES.md of an imported bundle: a heading, the format's own paragraph
 * (provenance: which file is the original, how it was imported), the shared
 * statement that it was never frozen, the list of what the source did not
 * have, and, when no attempt was usably graded, a last section saying so.
 * Fixed words and counts only, never source text: it is rendered on the site.
 * "No usable grades" comes last so that a bundle imported before it existed
 * is a byte prefix of the one imported now.
 */
export function importedNotes(parts: {
  /** The heading, e.g. "Imported Inspect AI eval log". */
  heading: string;
  /** The import command's format argument (`ledgerboard import <format>`). */
  format: string;
  /** What the originals are and where the bundle keeps them, e.g. "Inspect AI eval log kept byte for byte as `source/inspect-log.eval`". */
  source: string;
  missing: readonly string[];
  usable: number;
}): string {
  const lines = [
    `# ${parts.heading}`,
    '',
    `This bundle was imported by ${NAME} ${VERSION} (\`ledgerboard import ${parts.format}\`) from the`,
    `${parts.source}; the plan's`,
    '`origin.source` is its SHA-256. It was never frozen before the run: there is no',
    'declared budget and no freeze to check attempts against, and it never ranks',
    'against frozen evidence. docs/importing.md describes every mapped field.',
    '',
    '## What the log did not have',
    '',
    ...(parts.missing.length === 0 ? ['Nothing the mapping uses was missing.'] : parts.missing.map((m) => `- ${m}`)),
    '',
    ...(parts.usable === 0 ? ['## No usable grades', '', `${NO_USABLE_GRADES[0]!.toUpperCase()}${NO_USABLE_GRADES.slice(1)}.`, ''] : []),
  ];
  return lines.join('\n');
}

/**
 * The last step of every mapping: writes plan.json, ledger.jsonl,
 * attempts.jsonl, grades/1.json (one generation by one grader) and NOTES.md
 * into `files` (which already holds the artifacts and the originals under
 * `source/`), and returns the bundle with its summary, "no usable grades"
 * first among what was missing when no attempt was usably graded.
 */
export function finishImport(parts: {
  files: Map<string, Uint8Array>;
  plan: Plan;
  ledgerBytes: Uint8Array;
  attempts: readonly Attempt[];
  grades: { created_at: string; grader: Grader; results: readonly GradeResult[] };
  notes: { heading: string; format: string; source: string };
  missing: string[];
  /** What the input held that was not read or kept: the summary's `unkept`, never in NOTES.md. */
  unkept?: readonly string[];
  usable: number;
  summary: Omit<ImportSummary, 'missing' | 'attempts' | 'unkept'>;
}): MappedBundle {
  const { files, plan, missing, usable } = parts;
  files.set('plan.json', prettyJson(plan));
  files.set('ledger.jsonl', parts.ledgerBytes);
  files.set('attempts.jsonl', jsonlBytes(parts.attempts));
  files.set('grades/1.json', prettyJson({ schema: 'ledgerboard.grades.v1', generation: 1, created_at: parts.grades.created_at, grader: parts.grades.grader, results: parts.grades.results }));
  files.set('NOTES.md', Buffer.from(importedNotes({ ...parts.notes, missing, usable }), 'utf8'));
  return {
    files,
    planId: plan.plan_id,
    summary: {
      ...parts.summary,
      attempts: parts.attempts.length,
      missing: usable === 0 ? [NO_USABLE_GRADES, ...missing] : missing,
      ...(parts.unkept !== undefined && parts.unkept.length > 0 ? { unkept: [...parts.unkept] } : {}),
    },
  };
}
