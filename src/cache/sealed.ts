/**
 * Sealed cache files, the one shape every cache of a run writes (the
 * verification cache, the report's sections, bundle poolings, renders): a
 * first line `<format> <key> sha256:<hex>` naming the entry's format, its key
 * and the SHA-256 of the rest, then the rest. A file whose line does not
 * name the format and key asked for, or whose rest does not hash to the
 * digest it names, is not read as an entry (the caller rebuilds it). Writes
 * are atomic (a temporary file beside it, renamed into place), and a write
 * that fails leaves nothing and is not an error: a cache only saves time.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The longest first line read (a format name, a key and a digest). */
const MAX_LINE = 512;

/** The rest of a sealed file whose line names this format and key and whose rest hashes to its digest; else null (none, or one that does not check). */
export async function readSealed(path: string, format: string, key: string): Promise<Buffer | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return null;
  }
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > MAX_LINE) return null;
  const body = bytes.subarray(newline + 1);
  return bytes.subarray(0, newline).toString('latin1') === sealLine(format, key, body) ? body : null;
}

/** Writes `body` sealed under this format and key (atomically; a failure is ignored). */
export async function writeSealed(path: string, format: string, key: string, body: Uint8Array | string): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  await keepAtomically(path, [Buffer.from(`${sealLine(format, key, bytes)}\n`, 'latin1'), bytes]);
}

function sealLine(format: string, key: string, body: Uint8Array): string {
  return `${format} ${key} sha256:${createHash('sha256').update(body).digest('hex')}`;
}

/**
 * Writes a cache file whole or not at all: a temporary file beside it,
 * renamed into place. Any failure (a read-only or full disk, a file where
 * the directory should be) leaves nothing behind and is not an error.
 */
export async function keepAtomically(path: string, parts: readonly (string | Uint8Array)[]): Promise<void> {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temporary, Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))), { flag: 'wx' });
    await rename(temporary, path);
  } catch {
    await rm(temporary, { force: true }).catch(() => undefined);
  }
}
