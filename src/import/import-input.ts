/**
 * Imports one input (a file or a directory, read by input.ts) into a new
 * bundle directory with the importer of its format, create-only and
 * atomically: the bundle is written into a temporary directory beside its
 * destination, verified there with the project's own verifier, and renamed
 * into place. An input that cannot be imported, or a destination that
 * already exists, leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeBundle } from '../evidence/seal.ts';
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

const CREATE_ONLY = (dir: string) => new ImportError(`the destination ${dir} already exists and is not empty: import is create-only`);

/**
 * Imports a read input into `<parent>/<bundleDirName>`. Throws ImportError
 * (nothing written) when the input cannot be imported or the destination
 * already holds anything.
 */
export async function importInput(importer: Importer, input: ImportInput, parent: string, request: ImportRequest): Promise<ImportResult> {
  const mapped = await mapImportInput(importer, input, request);
  const dir = join(parent, bundleDirName(input));
  if (await occupied(dir)) throw CREATE_ONLY(dir);
  try {
    await mkdir(parent, { recursive: true });
  } catch (error) {
    throw new ImportError(`cannot create the output directory ${parent}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const temp = join(parent, `.${basename(dir)}.importing-${process.pid}`);
  await rm(temp, { recursive: true, force: true });
  try {
    const manifest = JSON.parse((await writeBundle(temp, mapped.files, mapped.planId)).toString('utf8')) as { bundle_id: string };
    const verification = verifyBundle(await readBundle(temp));
    if (await occupied(dir)) throw CREATE_ONLY(dir);
    // rename() replaces an empty directory and fails on a non-empty one, so a racing writer is never overwritten.
    await rename(temp, dir);
    return {
      format: importer.name,
      dir,
      bundleId: manifest.bundle_id,
      planId: mapped.planId,
      status: verification.status,
      findings: verification.findings,
      summary: mapped.summary,
    };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') throw CREATE_ONLY(dir);
    throw error;
  }
}

/** Reads the input at `path` (input.ts) and imports it. */
export async function importPath(importer: Importer, path: string, parent: string, request: ImportRequest): Promise<ImportResult> {
  return importInput(importer, await readImportInput(path, request.limits), parent, request);
}
