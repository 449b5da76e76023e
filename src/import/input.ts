/**
 * Reading what an import is given: one file, or one directory walked
 * recursively. Every importer sees its input only as this value (relative
 * path -> bytes), so a mapping is a pure function of the input's relative
 * paths and bytes, never of where it sits on disk: a stranger who fetches the
 * originals from a site into any directory re-imports the same bundle.
 *
 * Symlinks are never followed (a symlink in a directory is refused with its
 * path, never read), special files are refused, hidden entries (a name
 * starting with '.') are skipped and listed, a file whose relative path is
 * not plain is read under its plain path (plainPathOf: every character a
 * plain name cannot hold made '_'; two files meeting at one plain path are
 * refused) and listed (docs/importing.md, "Inputs"), and the sizes are
 * bounded by ImportLimits.
 */
import { lstat, open, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { compareUtf8 } from '../json/compare.ts';
import { ImportError, ImportLimitError } from './errors.ts';
import type { ImportLimits } from './limits.ts';
import { plainPathOf, type ImportInput } from './input-shape.ts';

export { isPlainPath, PLAIN_PATH, type ImportInput } from './input-shape.ts';

function errno(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
}

/** Reads one regular file, refusing it over maxFileBytes (checked on the open handle, so a file that grows is caught). */
async function readBounded(path: string, what: string, limits: ImportLimits): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new ImportError(`cannot read ${what}: ${errno(error)}`);
  }
  try {
    const size = (await handle.stat()).size;
    if (size > limits.maxFileBytes) {
      throw new ImportLimitError(`${what} is ${size} bytes, more than the ${limits.maxFileBytes} an import reads (import_limits.maxFileBytes)`, 'maxFileBytes');
    }
    const bytes = await handle.readFile();
    if (bytes.length > limits.maxFileBytes) throw new ImportError(`${what} grew past ${limits.maxFileBytes} bytes while it was read`);
    return bytes;
  } catch (error) {
    if (error instanceof ImportError) throw error;
    throw new ImportError(`cannot read ${what}: ${errno(error)}`);
  } finally {
    await handle.close();
  }
}

/**
 * Reads an input path: a regular file (never through a symlink) or a
 * directory walked recursively. Throws ImportError with the reason when it
 * cannot be read or breaks a limit.
 */
export async function readImportInput(path: string, limits: ImportLimits): Promise<ImportInput> {
  let stat;
  try {
    stat = await lstat(path);
  } catch (error) {
    throw new ImportError(`cannot read the input: ${errno(error)}`);
  }
  const name = basename(path.replace(/\/+$/, '')) || 'input';
  if (stat.isSymbolicLink()) throw new ImportError('the input is a symlink: an import never follows one; give the path it points to');
  if (stat.isFile()) {
    const bytes = await readBounded(path, 'the input file', limits);
    return { name, kind: 'file', files: new Map([[name, bytes]]), skipped: [] };
  }
  if (!stat.isDirectory()) throw new ImportError('the input is neither a regular file nor a directory');
  const files = new Map<string, Uint8Array>();
  const skipped: string[] = [];
  const renamed: { from: string; to: string }[] = [];
  /** The path on disk each kept path was read from (differs for a renamed file). */
  const readFrom = new Map<string, string>();
  let total = 0;
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      throw new ImportError(`cannot read the directory ${prefix === '' ? '.' : prefix}: ${errno(error)}`);
    }
    entries.sort((a, b) => compareUtf8(a.name, b.name));
    for (const entry of entries) {
      const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      const shown = JSON.stringify(rel.slice(0, 200));
      if (entry.name.startsWith('.')) {
        skipped.push(rel);
        continue;
      }
      if (entry.isSymbolicLink()) throw new ImportError(`the input holds a symlink (${shown}): an import never follows one`);
      const kept = plainPathOf(rel);
      if (kept === null) throw new ImportError(`the input holds a file or directory whose relative path ${shown} is not plain (letters, digits, "._@+=,-", "/" between names) and has no plain form (an empty, "." or ".." name, or past 255 bytes)`);
      if (entry.isDirectory()) {
        await walk(join(dir, entry.name), rel);
        continue;
      }
      if (!entry.isFile()) throw new ImportError(`the input holds ${shown}, which is neither a regular file nor a directory`);
      if (files.size >= limits.maxFiles) throw new ImportLimitError(`the input holds more than ${limits.maxFiles} files (import_limits.maxFiles)`, 'maxFiles');
      const bytes = await readBounded(join(dir, entry.name), `the file ${shown}`, limits);
      total += bytes.length;
      if (total > limits.maxInputBytes) throw new ImportLimitError(`the input's files hold more than ${limits.maxInputBytes} bytes together (import_limits.maxInputBytes)`, 'maxInputBytes');
      const other = readFrom.get(kept);
      if (other !== undefined) {
        throw new ImportError(`the input holds ${JSON.stringify(other.slice(0, 200))} and ${shown}, which are read under one plain path ${JSON.stringify(kept.slice(0, 200))} (every character a plain name cannot hold made "_"): rename one`);
      }
      readFrom.set(kept, rel);
      if (kept !== rel) renamed.push({ from: rel, to: kept });
      files.set(kept, bytes);
    }
  };
  await walk(path, '');
  if (files.size === 0) throw new ImportError('the input directory holds no files');
  const input = { name, kind: 'directory' as const, files: new Map([...files].sort(([a], [b]) => compareUtf8(a, b))), skipped };
  return renamed.length === 0 ? input : { ...input, renamed };
}
