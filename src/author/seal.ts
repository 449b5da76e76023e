/**
 * `ledgerboard seal <dir>`: writes manifest.json for a bundle directory a
 * harness has filled: every regular file under it (manifest.json aside),
 * sorted by path in UTF-8 byte order, with its size and SHA-256, the plan's
 * id, and the manifest's own bundle_id (FORMAT.md 2.1).
 *
 * Seal only writes what the verifier would accept as a file list: it walks
 * with lstat semantics (never following a link) and refuses, listing every
 * one, a symbolic link, a FIFO, socket or device, a name that is not UTF-8
 * and a path that breaks the rules of 2.1, instead of sealing them. Files are
 * opened with O_NOFOLLOW | O_NONBLOCK and re-checked with fstat, and hashed
 * by streaming. manifest.json is created, never overwritten.
 *
 * A bundle may hold assessments.json (FORMAT.md 11.2: a red team's levels
 * for score-card indicators), sealed like any file. Every `basis` it names
 * must be a file of the directory, or the manifest could not list it
 * (ASSESSMENT_BASIS_MISSING): seal refuses such a bundle, naming each basis,
 * instead of writing a manifest the verifier would reject. Anything else
 * wrong in the file is the verifier's to report after sealing.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DIGEST_PATTERN } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { ASSESSMENTS_PATH } from '../schema/assessments.ts';
import { hashHandle } from '../evidence/hash-file.ts';
import { unsafePathReason } from '../evidence/paths.ts';
import { manifestBytesOf, type ManifestFile } from '../evidence/seal.ts';
import { exists, TEMP_NAME, writeCreateOnly } from './create-only.ts';
import { AlreadyExistsError, type InputProblem, refuse, refuseIfAny } from './problems.ts';
import { openNoFollow } from '../files/read.ts';

/** What seal wrote. */
export interface SealResult {
  manifestPath: string;
  manifestBytes: Buffer;
  bundleId: string;
  planId: string;
  files: ManifestFile[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Seals a bundle directory; throws AuthorInputError (refused) or AlreadyExistsError (already sealed). */
export async function sealBundle(dir: string): Promise<SealResult> {
  let rootStats;
  try {
    rootStats = await stat(dir);
  } catch (error) {
    refuse({ file: dir, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
  }
  if (!rootStats.isDirectory()) refuse({ file: dir, message: 'is not a directory' });
  const manifestPath = join(dir, 'manifest.json');
  if (await exists(manifestPath)) {
    throw new AlreadyExistsError(manifestPath, `${manifestPath} already exists: the bundle is sealed, and a manifest is never overwritten (verify it with ledgerboard verify)`);
  }

  const problems: InputProblem[] = [];
  const found: { path: string; fsPath: string }[] = [];
  await walk(dir, '', problems, found);
  refuseIfAny(problems);
  if (!found.some((f) => f.path === 'plan.json')) {
    refuse({ file: join(dir, 'plan.json'), message: 'is missing: a bundle holds its frozen plan (write it with ledgerboard freeze) before it is sealed' });
  }

  const files: ManifestFile[] = [];
  let planBytes: Buffer | null = null;
  let assessmentBytes: Buffer | null = null;
  for (const { path, fsPath } of found) {
    const { entry, content } = await hashFile(path, fsPath, problems);
    if (entry) files.push(entry);
    if (path === 'plan.json') planBytes = content;
    if (path === ASSESSMENTS_PATH) assessmentBytes = content;
  }
  refuseIfAny(problems);
  if (assessmentBytes !== null) refuseIfAny(missingBases(assessmentBytes, new Set(found.map((f) => f.path))));
  const planId = planIdOf(planBytes!, join(dir, 'plan.json'));
  const manifestBytes = manifestBytesOf(files, planId);
  await writeCreateOnly(manifestPath, manifestBytes).catch((error: unknown) => {
    if (error instanceof AlreadyExistsError) {
      throw new AlreadyExistsError(manifestPath, `${manifestPath} appeared while sealing: it is never overwritten`);
    }
    throw error;
  });
  const bundleId = (JSON.parse(manifestBytes.toString('utf8')) as { bundle_id: string }).bundle_id;
  return { manifestPath, manifestBytes, bundleId, planId, files };
}

async function walk(fsDir: string, relDir: string, problems: InputProblem[], found: { path: string; fsPath: string }[]): Promise<void> {
  let dirents: Dirent<Buffer>[];
  try {
    dirents = await readdir(Buffer.from(fsDir), { withFileTypes: true, encoding: 'buffer' });
  } catch (error) {
    problems.push({ file: relDir === '' ? fsDir : relDir, message: `the directory cannot be listed (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    return;
  }
  for (const dirent of dirents) {
    let name: string;
    try {
      name = utf8.decode(dirent.name);
    } catch {
      const shown = new TextDecoder('utf-8').decode(dirent.name);
      problems.push({ file: relDir === '' ? shown : `${relDir}/${shown}`, message: 'the name is not valid UTF-8, so no manifest can list it; rename it' });
      continue;
    }
    const path = relDir === '' ? name : `${relDir}/${name}`;
    if (path === 'manifest.json') continue; // Checked before the walk; one appearing meanwhile fails the create-only write.
    const fsPath = join(fsDir, name);
    const kind = await kindOf(dirent, fsPath);
    if (kind === 'directory') {
      await walk(fsPath, path, problems, found);
      continue;
    }
    if (kind === 'file' && TEMP_NAME.test(name) && relDir === '') {
      problems.push({ file: path, message: 'is a temporary file left by an interrupted freeze or seal; remove it' });
      continue;
    }
    if (kind !== 'file') {
      problems.push({ file: path, message: `is a ${kind}: a bundle holds only regular files and directories (NOT_REGULAR_FILE); replace it with the file itself or remove it` });
      continue;
    }
    const unsafe = unsafePathReason(path);
    if (unsafe !== null) {
      problems.push({ file: path, message: `${unsafe}: the path rules of FORMAT.md 2.1 (UNSAFE_PATH); rename it` });
      continue;
    }
    found.push({ path, fsPath });
  }
}

async function kindOf(dirent: Dirent<Buffer>, fsPath: string): Promise<string> {
  if (dirent.isSymbolicLink()) return 'symbolic link';
  if (dirent.isFile()) return 'file';
  if (dirent.isDirectory()) return 'directory';
  if (dirent.isFIFO()) return 'FIFO';
  if (dirent.isSocket()) return 'socket';
  if (dirent.isBlockDevice() || dirent.isCharacterDevice()) return 'device';
  try {
    const stats = await lstat(fsPath); // Never follows a link.
    if (stats.isSymbolicLink()) return 'symbolic link';
    if (stats.isFile()) return 'file';
    if (stats.isDirectory()) return 'directory';
  } catch {
    // Vanished mid-walk.
  }
  return 'non-regular entry';
}

/** Hashes one regular file by streaming (keeping the bytes of plan.json and assessments.json); a file swapped meanwhile is a problem. */
async function hashFile(path: string, fsPath: string, problems: InputProblem[]): Promise<{ entry?: ManifestFile; content: Buffer | null }> {
  let handle;
  try {
    handle = await openNoFollow(fsPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problems.push({ file: path, message: code === 'ELOOP' ? 'became a symbolic link while sealing' : `cannot be read (${code ?? 'error'})` });
    return { content: null };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      problems.push({ file: path, message: 'is no longer a regular file' });
      return { content: null };
    }
    const { sha256, bytes, content } = await hashHandle(handle, path === 'plan.json' || path === ASSESSMENTS_PATH, stats.size);
    return { entry: { path, sha256, bytes }, content };
  } catch (error) {
    problems.push({ file: path, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    return { content: null };
  } finally {
    await handle.close();
  }
}

/** The plan_id the manifest names: plan.json's own, as read (the verifier re-derives it). */
function planIdOf(bytes: Buffer, file: string): string {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) {
    refuse({ file, line: parsed.error.line, column: parsed.error.column, message: `is not valid JSON (${parsed.error.message}), so the manifest cannot name its plan` });
  }
  const value = parsed.value;
  const id = value !== null && typeof value === 'object' && !Array.isArray(value) ? value.plan_id : undefined;
  if (typeof id !== 'string' || !DIGEST_PATTERN.test(id)) {
    refuse({ file, message: 'has no plan_id digest ("sha256:" + 64 hex), so the manifest cannot name its plan (write plan.json with ledgerboard freeze)' });
  }
  return id;
}

/**
 * The bases assessments.json names that are not files of the directory being
 * sealed, one problem each: every `assessments[i].basis` that is a string,
 * whatever else is wrong with the file. A file that is not JSON gives none
 * here: sealing goes on, and the verifier reports it (BAD_JSON,
 * SCHEMA_VIOLATION, UNKNOWN_MEMBER, ...), as it does for every other file.
 */
function missingBases(bytes: Buffer, paths: ReadonlySet<string>): InputProblem[] {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return [];
  const root = parsed.value;
  const list = root !== null && typeof root === 'object' && !Array.isArray(root) ? root.assessments : undefined;
  if (!Array.isArray(list)) return [];
  const problems: InputProblem[] = [];
  list.forEach((entry, i) => {
    const basis = entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? entry.basis : undefined;
    if (typeof basis !== 'string' || paths.has(basis)) return;
    problems.push({
      file: ASSESSMENTS_PATH,
      message: `assessments[${i}].basis ${JSON.stringify(basis)} is not a file of the bundle directory, so the manifest could not list it (ASSESSMENT_BASIS_MISSING): put the basis there (under artifacts/) before sealing, or drop the member`,
    });
  });
  return problems;
}
