/**
 * Sealed cache files, the one shape every cache of a run writes (the
 * verification cache, the report and its sections, bundle poolings, renders,
 * output stamps): a first line `<format> <key> hmac-sha256:<hex>` naming the
 * entry's format, its key and the HMAC-SHA256, under the cache's secret key,
 * of that format and key and the rest, then the rest.
 *
 * A cache is only as trustworthy as whoever could write it. Its directory
 * may be shared (a CI cache, a directory a contributor can reach), and every
 * entry's key is computable from public bytes, so a plain digest would let
 * anyone plant an entry that makes a tampered bundle count. The secret
 * (cache/secret.ts) is kept outside every repository; an entry nobody
 * holding it wrote does not check and is not read as an entry (the caller
 * rebuilds it, and the next write replaces it).
 *
 * Reading is bounded: an entry is opened without following a link, as a
 * regular file only (a FIFO, a device or a link to `/dev/zero` is no entry),
 * and never read past {@link MAX_ENTRY_BYTES}. Writes are atomic (a temporary
 * file beside it, renamed into place), and a write that fails leaves nothing
 * and is not an error: a cache only saves time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { readRegularFile, readRegularFileSync } from '../files/read.ts';
import { writeFileAtomic } from '../files/atomic.ts';

/** A cache directory and the secret its entries are sealed with (cache/secret.ts). */
export interface CacheStore {
  dir: string;
  /** 32 bytes, never written into the cache directory. */
  secret: Uint8Array;
}

/** The longest first line read (a format name, a key and an HMAC). */
const MAX_LINE = 512;

/**
 * The largest entry read (2 GiB - 1, the most one read of Node gives): a
 * larger file is no entry (and none is written).
 */
export const MAX_ENTRY_BYTES = 2 ** 31 - 1;

/** At most `bound` bytes of a regular file, or null (src/files/read.ts: no link followed, no FIFO waited on, bounded). */
export { readRegularFile };

/** The rest of a sealed file whose line names this format and key and whose seal checks under this store's secret; else null (none, or one that does not check). */
export async function readSealed(store: CacheStore, path: string, format: string, key: string): Promise<Buffer | null> {
  const bytes = await readRegularFile(path, MAX_ENTRY_BYTES);
  return bytes === null ? null : unsealed(store, bytes, format, key);
}

/**
 * {@link readSealed} without waiting, for a value read on first use from
 * synchronous code (a kept verification's tables, pipeline/verify-cache.ts):
 * the same open (no link followed, regular files only, bounded) and check.
 */
export function readSealedSync(store: CacheStore, path: string, format: string, key: string): Buffer | null {
  const bytes = readRegularFileSync(path, MAX_ENTRY_BYTES);
  return bytes === null ? null : unsealed(store, bytes, format, key);
}

/** The rest of a sealed file's bytes when its line names this format and key and its seal checks; else null. */
function unsealed(store: CacheStore, bytes: Buffer, format: string, key: string): Buffer | null {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > MAX_LINE) return null;
  const body = bytes.subarray(newline + 1);
  const expected = Buffer.from(sealLine(store, format, key, body), 'latin1');
  const line = bytes.subarray(0, newline);
  return line.length === expected.length && timingSafeEqual(line, expected) ? body : null;
}

/** Writes `body` sealed under this format and key with this store's secret (atomically; a failure is ignored). */
export async function writeSealed(store: CacheStore, path: string, format: string, key: string, body: Uint8Array | string): Promise<void> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (bytes.length + MAX_LINE > MAX_ENTRY_BYTES) return;
  await keepAtomically(path, [Buffer.from(`${sealLine(store, format, key, bytes)}\n`, 'latin1'), bytes]);
}

function sealLine(store: CacheStore, format: string, key: string, body: Uint8Array): string {
  const mac = createHmac('sha256', store.secret).update(`${format} ${key}\n`, 'latin1').update(body).digest('hex');
  return `${format} ${key} hmac-sha256:${mac}`;
}

/**
 * Writes a cache file whole or not at all: a temporary file beside it,
 * renamed into place. Any failure (a read-only or full disk, a file where
 * the directory should be) leaves nothing behind and is not an error.
 */
export async function keepAtomically(path: string, parts: readonly (string | Uint8Array)[]): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)), { mode: 0o600 });
  } catch {
    // A cache only saves time: the write left nothing (writeFileAtomic removed its temporary file).
  }
}
