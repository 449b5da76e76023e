/**
 * The verification cache. verifyBundle is a pure function of a bundle's
 * bytes, so its result can be kept and reused: a run still reads and hashes
 * every file of every bundle (the only way to know the bytes are the ones
 * listed), and where every file's digest, size and kind, the limits in force
 * and the verifier's own code are those of a kept entry, it takes the kept
 * result instead of parsing and checking again.
 *
 * - The key is the SHA-256 of {@link cacheKeyOf}'s canonical JSON: the
 *   snapshot's entries as read (path, kind, digest, size, what could not be
 *   read and why, names that are not UTF-8), the limits and the import
 *   limits (an imported bundle's import is re-derived under them), and the code
 *   identity (ledgerboard's version, the digest of the compiled sources or of
 *   the verifier's source files, and V8's version, which fixes the entry's
 *   serialisation).
 * - An entry is one file, `<key-hex>.v8`: a first line naming the format, the
 *   key and an HMAC-SHA256 under the cache's secret (cache/sealed.ts,
 *   cache/secret.ts), then the result in its posted form (wire.ts, compact)
 *   serialised by V8. An entry whose line, seal or key does not check (one
 *   somebody without the secret wrote or changed), that is not a regular
 *   file, or that does not deserialise, is ignored (and replaced by the next
 *   write): never trusted.
 * - Writes are atomic (a temporary file renamed into place); a write that
 *   fails is skipped silently: the cache only saves time.
 *
 * verify.mjs, the in-browser verifier and `ledgerboard verify` never use it;
 * build, report and retain do unless told `--no-cache` (docs/architecture.md,
 * "The verification cache").
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import type { BundleSnapshot } from '../evidence/read-bundle.ts';
import type { Limits } from '../evidence/limits.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../import/limits.ts';
import { digestCanonical } from '../json/canonical.ts';
import { readSealed, writeSealed, type CacheStore } from '../cache/sealed.ts';
import { VERSION } from '../version.ts';
import { fromWire, toWire, type DirectoryResult, type DirectoryWire } from './wire.ts';

/** The name of the entry format, on the first line of every entry. */
export const CACHE_FORMAT = 'ledgerboard.verify-cache.v1';

/** Where a run keeps its cache: a directory (created when first written) and the secret its entries are sealed with. */
export type VerifyCache = CacheStore;

/** The value whose digest keys a bundle's entry (see the module comment). */
export function cacheKeyOf(snapshot: BundleSnapshot, limits: Limits, importLimits: ImportLimits = DEFAULT_IMPORT_LIMITS): unknown {
  return {
    format: CACHE_FORMAT,
    code: codeIdentity(),
    limits,
    // An imported bundle's import is re-derived under them (import/rederive.ts).
    import_limits: importLimits,
    notRead: snapshot.notRead ?? null,
    entries: snapshot.entries.map((e) => [e.path, e.kind, e.sha256 ?? null, e.bytes ?? null, e.unreadable ?? null, e.badName === true, e.limit ?? null]),
  };
}

/** The key of a snapshot: `sha256:<hex>`. */
export function cacheKey(snapshot: BundleSnapshot, limits: Limits, importLimits: ImportLimits = DEFAULT_IMPORT_LIMITS): string {
  return digestCanonical(cacheKeyOf(snapshot, limits, importLimits) as Parameters<typeof digestCanonical>[0]);
}

/** The kept result for a key, or null (no entry, or one that does not check: see the module comment). */
export async function readCached(cache: VerifyCache, key: string): Promise<DirectoryResult | null> {
  const payload = await readSealed(cache, entryPath(cache, key), CACHE_FORMAT, key);
  if (payload === null) return null;
  try {
    const stored = deserialize(payload) as { key: string; wire: DirectoryWire };
    if (stored.key !== key) return null;
    return fromWire(stored.wire);
  } catch {
    return null;
  }
}

/** True when an entry file exists for the key (whether it checks is for {@link readCached} to say). */
export function hasCached(cache: VerifyCache, key: string): boolean {
  return existsSync(entryPath(cache, key));
}

/** Keeps a result under its key (atomically; a failure is ignored: the cache only saves time). */
export async function writeCached(cache: VerifyCache, key: string, result: DirectoryResult): Promise<void> {
  let payload: Buffer;
  try {
    payload = serialize({ key, wire: toWire(result, true).wire });
  } catch {
    // A value V8 cannot serialise is not kept (and never fails the run).
    return;
  }
  await writeSealed(cache, entryPath(cache, key), CACHE_FORMAT, key, payload);
}

function entryPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `${key.slice('sha256:'.length)}.v8`);
}

let identity: string | undefined;

/**
 * What a kept result depends on besides the bytes, the limits and the
 * config: ledgerboard's version, its code (the digest lib/ was compiled
 * from, or, run from the sources, a digest of the source files verification
 * and analysis go through), and V8's version (the entry's serialisation).
 * Also the code half of the report cache's key (src/run/report-cache.ts).
 */
export function codeIdentity(): string {
  if (identity !== undefined) return identity;
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const stamp = join(root, '.source-digest');
  let code: string;
  if (existsSync(stamp)) {
    code = `compiled ${readFileSync(stamp, 'utf8').trim()}`;
  } else {
    const hash = createHash('sha256');
    // Every file of these folders, their subfolders too (the importers are src/import/<format>/: a verification re-derives imports).
    const walk = (folder: string): void => {
      const dir = join(root, folder);
      for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        if (entry.isDirectory()) walk(`${folder}/${entry.name}`);
        else if (/\.(ts|js|mjs)$/.test(entry.name)) hash.update(`${folder}/${entry.name}\0`).update(readFileSync(join(dir, entry.name))).update('\0');
      }
    };
    for (const folder of ['json', 'schema', 'evidence', 'bundle', 'cache', 'verify', 'pipeline', 'config', 'import', 'analysis', 'claims', 'report', 'run']) walk(folder);
    hash.update('version.ts\0').update(readFileSync(join(root, 'version.ts'))).update('\0');
    code = `sources ${hash.digest('hex')}`;
  }
  identity = `${VERSION} ${code} v8 ${process.versions.v8}`;
  return identity;
}
