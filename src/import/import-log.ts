/**
 * Imports one Inspect log file into a new bundle directory, create-only and
 * atomically: the bundle is written into a temporary directory beside its
 * destination, verified there with the project's own verifier, and renamed
 * into place. A log that cannot be read, or a destination that already
 * exists, leaves nothing behind.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeBundle } from '../evidence/seal.ts';
import { readBundle } from '../evidence/read-bundle.ts';
import { verifyBundle } from '../verify/verify-bundle.ts';
import type { BundleStatus, Finding } from '../verify/findings.ts';
import { ImportError } from './errors.ts';
import { mapInspectLog, type ImportOptions, type ImportSummary } from './inspect/map.ts';
import { readInspectLog } from './inspect/read-log.ts';
import { MAX_LOG_FILE_BYTES, type ZipLimits } from './inspect/zip.ts';

/** The result of importing one log. */
export interface ImportResult {
  /** Where the bundle was written. */
  dir: string;
  bundleId: string;
  planId: string;
  /** The verifier's status of the written bundle. */
  status: BundleStatus;
  findings: Finding[];
  summary: ImportSummary;
}

/**
 * The bundle directory name for a log file: a slug of the file's name
 * (lower-case letters, digits and '-', at most 48 characters, 'log' when
 * nothing is left) and the first 12 hex digits of the log's SHA-256.
 */
export function bundleDirName(logPath: string, logBytes: Uint8Array): string {
  const stem = basename(logPath).replace(/\.(eval|json)$/i, '');
  const slug =
    stem
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48)
      .replace(/-+$/, '') || 'log';
  return `${slug}-${createHash('sha256').update(logBytes).digest('hex').slice(0, 12)}`;
}

/** Maps a log's bytes to bundle files without touching the disk (the pure part of an import). */
export async function buildImportedBundle(logBytes: Uint8Array, options: ImportOptions, limits?: ZipLimits) {
  const log = await readInspectLog(logBytes, limits);
  return mapInspectLog(log, logBytes, options);
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

/**
 * Imports the log at `logPath` into `<parent>/<bundleDirName>`. Throws
 * ImportError (nothing written) when the log cannot be imported or the
 * destination already holds anything.
 */
export async function importLogFile(logPath: string, parent: string, options: ImportOptions, limits?: ZipLimits): Promise<ImportResult> {
  let logBytes: Buffer;
  try {
    const size = (await stat(logPath)).size;
    if (size > MAX_LOG_FILE_BYTES) {
      throw new ImportError(`the log is ${size} bytes, more than the ${MAX_LOG_FILE_BYTES} this importer reads (parsed JSON takes about 13 times its size in memory); split the run, or convert a .json log to .eval with \`inspect log convert\``);
    }
    logBytes = await readFile(logPath);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(`cannot read the log file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const mapped = await buildImportedBundle(logBytes, options, limits);
  const dir = join(parent, bundleDirName(logPath, logBytes));
  if (await occupied(dir)) throw new ImportError(`the destination ${dir} already exists and is not empty: import is create-only`);
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
    if (await occupied(dir)) throw new ImportError(`the destination ${dir} already exists and is not empty: import is create-only`);
    // rename() replaces an empty directory and fails on a non-empty one, so a racing writer is never overwritten.
    await rename(temp, dir);
    return { dir, bundleId: manifest.bundle_id, planId: mapped.planId, status: verification.status, findings: verification.findings, summary: mapped.summary };
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    if ((error as NodeJS.ErrnoException).code === 'ENOTEMPTY' || (error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ImportError(`the destination ${dir} already exists and is not empty: import is create-only`);
    }
    throw error;
  }
}
