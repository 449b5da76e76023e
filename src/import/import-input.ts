/**
 * Imports one input (a file or a directory, read by input.ts) into a new
 * bundle directory with the importer of its format, create-only and
 * atomically: the bundle is written into a temporary directory beside its
 * destination, verified there with the project's own verifier, and renamed
 * into place. An input that cannot be imported leaves nothing behind.
 *
 * Importing again into the same output is not an error when it would write
 * the same bundle: a destination that already holds a bundle with the bundle
 * id this import derives is reported as already imported (and verified
 * again, so a bundle edited since is not passed off as it). A destination
 * holding anything else (another bundle: other flags, another ledgerboard
 * version; a stray file) is refused, naming both ids; nothing is ever
 * overwritten.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { sealManifest, writeBundle } from '../evidence/seal.ts';
import { readBundle } from '../evidence/read-bundle.ts';
import { canonicalBytes } from '../json/canonical.ts';
import { verifyBundle } from '../verify/verify-bundle.ts';
import type { BundleStatus, Finding } from '../verify/findings.ts';
import { ImportError } from './errors.ts';
import type { Importer, ImportRequest, ImportSummary } from './importer.ts';
import { readImportInput, type ImportInput } from './input.ts';
import { mapImportInput } from './map-input.ts';

export { mapImportInput } from './map-input.ts';

/** The result of importing one input. */
export interface ImportResult {
  /** The importer's name (the format). */
  format: string;
  /** Where the bundle was written. */
  dir: string;
  bundleId: string;
  planId: string;
  /** The verifier's status of the written bundle. */
  status: BundleStatus;
  findings: Finding[];
  summary: ImportSummary;
  /** True when the destination already held this very bundle (same bundle id): nothing was written, `status` is that bundle's verification. */
  already?: boolean;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The bundle directory name of an input: a slug of the input's name (a file's
 * without its last extension; lower-case letters, digits and '-', at most 48
 * characters, 'log' when nothing is left) and 12 hex digits of a digest: of a
 * file's bytes, or of a directory's list of [relative path, SHA-256] pairs.
 */
export function bundleDirName(input: ImportInput): string {
  const stem = input.kind === 'file' ? input.name.replace(/\.[A-Za-z0-9]{1,8}$/, '') : input.name;
  const slug =
    stem
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '') || 'log';
  const identity =
    input.kind === 'file' ? [...input.files.values()][0]! : canonicalBytes([...input.files].map(([path, bytes]) => [path, sha256Hex(bytes)]));
  return `${slug}-${sha256Hex(identity).slice(0, 12)}`;
}

/** True when a path exists and is anything but an empty directory. */
async function occupied(path: string): Promise<boolean> {
  try {
    const stat = await lstat(path);
    if (!stat.isDirectory()) return true;
    return (await readdir(path)).length > 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

const CREATE_ONLY = (dir: string) => new ImportError(`the destination ${dir} already exists and is not empty (it holds no bundle manifest): import is create-only`);

/** The bundle id the files of a mapped bundle seal to (the id writeBundle will write). */
function bundleIdOf(files: ReadonlyMap<string, Uint8Array>, planId: string): string {
  return (JSON.parse(sealManifest(files, planId).toString('utf8')) as { bundle_id: string }).bundle_id;
}

/**
 * What an occupied destination means for an import that derives `bundleId`:
 * the same bundle (verified again: its status and findings), or an
 * ImportError naming both ids (another bundle), or the create-only refusal
 * (no bundle there at all).
 */
async function alreadyThere(dir: string, bundleId: string): Promise<{ status: BundleStatus; findings: Finding[] }> {
  let verification;
  try {
    verification = verifyBundle(await readBundle(dir));
  } catch {
    throw CREATE_ONLY(dir);
  }
  const existing = verification.bundle_id;
  if (existing === null) throw CREATE_ONLY(dir);
  if (existing !== bundleId) {
    throw new ImportError(
      `the destination ${dir} already holds another bundle (${existing}); this import gives ${bundleId} (other flags, another license or another ledgerboard version?): nothing is overwritten; import into another -o directory`,
    );
  }
  return { status: verification.status, findings: verification.findings };
}

/**
 * Imports a read input into `<parent>/<bundleDirName>`. Throws ImportError
 * (nothing written) when the input cannot be imported or the destination
 * holds anything but this very bundle; returns `already: true` (nothing
 * written) when it holds this very bundle.
 */
export async function importInput(importer: Importer, input: ImportInput, parent: string, request: ImportRequest): Promise<ImportResult> {
  const mapped = await mapImportInput(importer, input, request);
  const dir = join(parent, bundleDirName(input));
  const bundleId = bundleIdOf(mapped.files, mapped.planId);
  const result = (status: BundleStatus, findings: Finding[], already: boolean): ImportResult => ({
    format: importer.name,
    dir,
    bundleId,
    planId: mapped.planId,
    status,
    findings,
    summary: mapped.summary,
    ...(already ? { already: true } : {}),
  });
  if (await occupied(dir)) {
    const existing = await alreadyThere(dir, bundleId);
    return result(existing.status, existing.findings, true);
  }
  try {
    await mkdir(parent, { recursive: true });
  } catch (error) {
    throw new ImportError(`cannot create the output directory ${parent}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const temp = join(parent, `.${basename(dir)}.importing-${process.pid}`);
  await rm(temp, { recursive: true, force: true });
  try {
    const manifest = JSON.parse((await writeBundle(temp, mapped.files, mapped.planId)).toString('utf8')) as { bundle_id: string };
    if (manifest.bundle_id !== bundleId) throw new Error(`the written manifest's bundle id ${manifest.bundle_id} is not the sealed ${bundleId}`);
    const verification = verifyBundle(await readBundle(temp));
    if (!(await occupied(dir))) {
      // rename() replaces an empty directory and fails on a non-empty one, so a racing writer is never overwritten.
      await rename(temp, dir);
      return result(verification.status, verification.findings, false);
    }
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
  // Another writer got there first (between the checks and the rename): the same bundle is already imported, anything else is refused.
  await rm(temp, { recursive: true, force: true });
  const existing = await alreadyThere(dir, bundleId);
  return result(existing.status, existing.findings, true);
}

/** Reads the input at `path` (input.ts) and imports it. */
export async function importPath(importer: Importer, path: string, parent: string, request: ImportRequest): Promise<ImportResult> {
  return importInput(importer, await readImportInput(path, request.limits), parent, request);
}
