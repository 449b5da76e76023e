/**
 * Re-deriving an import (FORMAT.md section 9, docs/importing.md "Re-derived
 * on every verification"): a verifier that has the importer of a bundle's
 * `origin.format` at its `origin.tool.version` re-runs it on the bundle's
 * kept originals and compares the bundle it makes with the one it was given.
 * A difference is IMPORT_MISMATCH (the grades do not follow from the
 * source); a format or version this verifier does not have, or originals
 * over the import limits, is IMPORT_NOT_REPRODUCED (a warning).
 *
 * Pure: the originals are read through a {@link BundleFileReader}, so the
 * same code runs on a bundle directory (the pipeline), on a site's published
 * blobs (the site's re-derivation) and in a browser worker. It never touches
 * the disk. The same bundle bytes always give the same findings.
 */
import type { GradesTable } from '../bundle/tables.ts';
import { buildManifest } from '../evidence/manifest.ts';
import { compareUtf8 } from '../json/compare.ts';
import type { Manifest } from '../schema/index.ts';
import { finding, statusOf, type Finding } from '../verify/findings.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';
import { NAME, VERSION } from '../version.ts';
import { ImportError, ImportLimitError } from './errors.ts';
import type { Importer } from './importer.ts';
import type { ImportInput } from './input-shape.ts';
import type { ImportLimits } from './limits.ts';
import { mapImportInput } from './map-input.ts';
import { originalsOverLimit } from './original-limits.ts';
import { importerOfOrigin } from './registry.ts';

/**
 * Reads one file of the bundle being verified by its bundle path: its bytes,
 * or null when they are not available (e.g. withheld on a site). The caller
 * checks size/digest against the manifest.
 */
export type BundleFileReader = (path: string) => Promise<Uint8Array | null>;

/**
 * What a re-derivation found: `not_imported` (not an imported bundle, or not
 * verified: nothing to re-derive), `matched` (the same bundle id),
 * `mismatch` (IMPORT_MISMATCH), `not_reproduced` (IMPORT_NOT_REPRODUCED),
 * `unavailable` (an original could not be read: no finding, the caller
 * decides what to say).
 */
export type ImportOutcome = 'not_imported' | 'matched' | 'mismatch' | 'not_reproduced' | 'unavailable';

/** A re-derivation's outcome and its findings (at most one). */
export interface ImportRederivation {
  outcome: ImportOutcome;
  findings: Finding[];
}

/** Where a bundle keeps its originals. */
const SOURCE = 'source/';

/** A digest shown in a message: its first 12 hex digits. */
function short(digest: string): string {
  return `${digest.slice(0, 'sha256:'.length + 12)}…`;
}

/** A name from the bundle, shown quoted and bounded. */
function shown(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * Re-runs the import a verified, imported bundle claims and compares bundle
 * ids (see the module comment). An ImportError of the importer on the kept
 * originals is IMPORT_MISMATCH (over an import limit: IMPORT_NOT_REPRODUCED);
 * any other throw is a bug and propagates.
 */
export async function rederiveImport(verification: BundleVerification, read: BundleFileReader, limits: ImportLimits): Promise<ImportRederivation> {
  const { plan, manifest, ledger } = verification.evidence;
  if (verification.status !== 'verified' || plan === null || manifest === null || plan.origin?.kind !== 'imported') return { outcome: 'not_imported', findings: [] };
  const origin = plan.origin;
  const claimed = `the bundle says it was made by ${shown(origin.tool.name)} ${shown(origin.tool.version)}`;
  const notReproduced = (file: string, message: string): ImportRederivation => ({ outcome: 'not_reproduced', findings: [finding('IMPORT_NOT_REPRODUCED', file, message)] });
  const importer = importerOfOrigin(origin.format);
  if (importer === undefined) return notReproduced('plan.json', `${claimed} from a ${shown(origin.format)} source; this verifier has no importer for format ${shown(origin.format)}: the import was not re-derived`);
  if (origin.tool.name !== NAME || origin.tool.version !== VERSION) {
    return notReproduced('plan.json', `${claimed}; this verifier has the importer of ${NAME} ${VERSION} only: the import was not re-derived`);
  }

  const originals = manifest.files.filter((f) => f.path.startsWith(SOURCE));
  const over = overLimit(originals, importer, limits);
  if (over !== null) return notReproduced(over.file, `${over.message}: the import was not re-derived`);
  const files = new Map<string, Uint8Array>();
  for (const { path } of originals) {
    const bytes = await read(path);
    if (bytes === null) return { outcome: 'unavailable', findings: [] };
    files.set(path, bytes);
  }
  if (originals.length === 0) {
    // The verifier requires the original (MISSING_ARTIFACT otherwise); without one there is nothing to import.
    return mismatch('manifest.json', 'the bundle keeps no original under source/ to re-import');
  }
  const input = inputOf(importer, files);
  const flags = flagsOf(importer, plan);
  // The importers give every ledger record the one --license: the first record's is the request's.
  const license = ledger[0]?.license ?? '';
  let mapped;
  try {
    importer.checkFlags?.(flags);
    mapped = await mapImportInput(importer, input, { license, flags, limits });
  } catch (error) {
    if (error instanceof ImportLimitError) return notReproduced(originals[0]!.path, `the importer stops at a limit on the kept originals (import_limits.${error.limit}): ${error.message}; the import was not re-derived`);
    if (error instanceof ImportError) return mismatch(originals[0]!.path, `the importer refuses the kept originals: ${error.message}`);
    throw error;
  }
  const remade = buildManifest(mapped.files, mapped.planId) as unknown as Manifest;
  if (remade.bundle_id === verification.bundle_id) return { outcome: 'matched', findings: [] };
  const { file, message } = firstDifference(manifest, verification.evidence.grades, remade, mapped.files);
  return mismatch(file, `${message}; re-imported bundle ${remade.bundle_id}, this bundle ${verification.bundle_id ?? 'without an id'}: the grades do not follow from the kept originals`);
}

function mismatch(file: string, message: string): ImportRederivation {
  return { outcome: 'mismatch', findings: [finding('IMPORT_MISMATCH', file, message)] };
}

/** The first import limit the kept originals break, read from their manifest sizes (before any is read; original-limits.ts), or null. */
function overLimit(originals: Manifest['files'], importer: Importer, limits: ImportLimits): { file: string; message: string } | null {
  const over = originalsOverLimit(originals, importer.input, limits);
  if (over === null) return null;
  if (over.field === 'maxFiles') return { file: over.file, message: `the bundle keeps ${over.actual} originals, more than the ${over.value} files an import reads (import_limits.maxFiles)` };
  if (over.field === 'maxFileBytes') return { file: over.file, message: `${over.file} is ${over.actual} bytes, more than the ${over.value} an import reads (import_limits.maxFileBytes)` };
  return { file: over.file, message: `the kept originals hold more than ${over.value} bytes together (import_limits.maxInputBytes)` };
}

/**
 * The import's input rebuilt from the kept originals: a `file` importer gets
 * the first original (the one `origin.source` names) as a file named by its
 * last path component; a `directory` importer every `source/<rel>` as `<rel>`.
 * Nothing hidden was skipped: the bundle never keeps such a list.
 */
function inputOf(importer: Importer, files: ReadonlyMap<string, Uint8Array>): ImportInput {
  const sorted = [...files].sort(([a], [b]) => compareUtf8(a, b));
  if (importer.input === 'file') {
    const [path, bytes] = sorted[0]!;
    const name = path.slice(path.lastIndexOf('/') + 1);
    return { name, kind: 'file', files: new Map([[name, bytes]]), skipped: [] };
  }
  return { name: 'source', kind: 'directory', files: new Map(sorted.map(([path, bytes]) => [path.slice(SOURCE.length), bytes])), skipped: [] };
}

/** The format flags that re-run the import, read back from the plan (the importer's rerunFlags) as the flags record a command line gives. */
function flagsOf(importer: Importer, plan: NonNullable<BundleVerification['evidence']['plan']>): Record<string, string | boolean> {
  const flags: Record<string, string | boolean> = {};
  for (const [flag, value] of importer.rerunFlags?.(plan) ?? []) {
    const name = flag!.replace(/^--/, '');
    flags[name] = importer.flags[name]?.type === 'boolean' ? true : (value ?? '');
  }
  return flags;
}

/**
 * The first file, in byte order of paths, whose digest differs between the
 * bundle and its re-import (or that only one of them lists), said in one
 * sentence; for a grades file, how many verdicts differ.
 */
function firstDifference(given: Manifest, grades: readonly GradesTable[], remade: Manifest, remadeFiles: ReadonlyMap<string, Uint8Array>): { file: string; message: string } {
  const theirs = new Map(remade.files.map((f) => [f.path, f.sha256]));
  const ours = new Map(given.files.map((f) => [f.path, f.sha256]));
  const paths = [...new Set([...ours.keys(), ...theirs.keys()])].sort(compareUtf8);
  for (const path of paths) {
    const a = ours.get(path);
    const b = theirs.get(path);
    if (a === b) continue;
    if (b === undefined) return { file: path, message: `${path} is in the bundle but not in its re-import` };
    if (a === undefined) return { file: 'manifest.json', message: `the re-import has ${path}, which the bundle does not list` };
    return { file: path, message: `${path} differs${verdictsNote(path, grades, remadeFiles)} (bundle ${short(a)}, re-import ${short(b)})` };
  }
  // Same files: the plan id the manifest names differs.
  return { file: 'manifest.json', message: `the manifest names plan ${given.plan_id}, the re-import plan ${remade.plan_id}` };
}

/**
 * For a grades file: ": K of N verdicts re-derive differently" (N the
 * re-import's results, K those whose attempt the bundle's generation grades
 * otherwise or not at all); empty when either side does not parse.
 */
function verdictsNote(path: string, given: readonly GradesTable[], remadeFiles: ReadonlyMap<string, Uint8Array>): string {
  if (!/^grades\/[0-9]+\.json$/.test(path)) return '';
  const table = given.find((g) => g.path === path);
  const bytes = remadeFiles.get(path);
  if (table === undefined || bytes === undefined) return '';
  let results: unknown;
  try {
    results = (JSON.parse(new TextDecoder().decode(bytes)) as { results?: unknown }).results;
  } catch {
    return '';
  }
  if (!Array.isArray(results)) return '';
  const verdicts = new Map<string, string>();
  for (let i = 0; i < table.count; i++) {
    const r = table.result(i);
    verdicts.set(r.attempt_id, r.verdict);
  }
  const differ = (results as { attempt_id?: unknown; verdict?: unknown }[]).filter((r) => verdicts.get(String(r.attempt_id)) !== r.verdict).length;
  return `: ${differ} of ${results.length} verdict${results.length === 1 ? '' : 's'} re-derive${results.length === 1 && differ === 1 ? 's' : ''} differently`;
}

/** The verification with the re-derivation's findings appended and its status recomputed (FORMAT.md 6). */
export function withImportFindings(verification: BundleVerification, findings: readonly Finding[]): BundleVerification {
  if (findings.length === 0) return verification;
  const all = [...verification.findings, ...findings];
  return { ...verification, findings: all, status: statusOf(all) };
}
