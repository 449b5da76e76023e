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
 *   limits (an imported bundle's import is re-derived under them), the
 *   digests of the pinned time-stamp roots (an anchor's `pinned` follows
 *   them, FORMAT.md 12), and the code
 *   identity (ledgerboard's version, the digest of the compiled sources or of
 *   the verifier's source files, and V8's version, which fixes the entry's
 *   serialisation).
 * - An entry is two files, each with a first line naming its format, the
 *   key and an HMAC-SHA256 under the cache's secret (cache/sealed.ts,
 *   cache/secret.ts), then a value serialised by V8: the head,
 *   `<key-hex>.v8` (the verification without its evidence, the evidence
 *   without its tables, and the tables' summary, bundle/evidence-summary.ts:
 *   what the report and the report cache's key read), and the tables,
 *   `tables-<key-hex>.v8` (the attempts and every grading generation, in
 *   their posted form, wire.ts, compact). A run reads the heads; a table is
 *   read only where a bundle must be pooled (kept-tables.ts, ahead of the
 *   analysis) or on first use of `attempts` / `grades` (wire.ts fromHead).
 *   A head whose line, seal, key or shape does not check, that is not a
 *   regular file, or that does not deserialise, is ignored (and replaced by
 *   the next write): never trusted. Tables that do not check are never
 *   used: read ahead, the bundle is verified again; on first use from
 *   synchronous code, {@link KeptTablesError} is thrown and the head
 *   removed, so the next run verifies the bundle in full.
 * - Writes are atomic (a temporary file renamed into place); a write that
 *   fails is skipped silently: the cache only saves time.
 *
 * verify.mjs, the in-browser verifier and `ledgerboard verify` never use it;
 * build, report and retain do unless told `--no-cache` (docs/architecture.md,
 * "The verification cache").
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import type { BundleSnapshot } from '../evidence/read-bundle.ts';
import type { Limits } from '../evidence/limits.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../import/limits.ts';
import { digestCanonical } from '../json/canonical.ts';
import { readSealed, readSealedSync, writeSealed, type CacheStore } from '../cache/sealed.ts';
import { isEvidenceSummary } from '../bundle/evidence-summary.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';
import { VERSION } from '../version.ts';
import { rootDigests, type PinnedRoot } from '../anchor/check.ts';
import { fromHead, tablesFromWire, toKept, type HeadWire, type TablesSource, type TablesWire } from './wire.ts';

export { readPendingTables, tablesPending } from './wire.ts';

/** The name of a head entry's format, on its first line. */
export const CACHE_FORMAT = 'ledgerboard.verify-cache.v2';
/** The name of a tables entry's format, on its first line. */
export const TABLES_FORMAT = 'ledgerboard.verify-tables.v1';
/** A head entry's file name: the hex of its key, `.v8` (the name every other reader of the cache, cache merge included, looks for). */
export const HEAD_NAME = /^([0-9a-f]{64})\.v8$/;
/** A tables entry's file name: `tables-`, the hex of its key, `.v8`. */
export const TABLES_NAME = /^tables-([0-9a-f]{64})\.v8$/;

/** Where a run keeps its cache: a directory (created when first written) and the secret its entries are sealed with. */
export type VerifyCache = CacheStore;

/** The value whose digest keys a bundle's entry (see the module comment). */
export function cacheKeyOf(snapshot: BundleSnapshot, limits: Limits, importLimits: ImportLimits = DEFAULT_IMPORT_LIMITS, timestampRoots: readonly PinnedRoot[] = []): unknown {
  return {
    format: CACHE_FORMAT,
    code: codeIdentity(),
    limits,
    // An imported bundle's import is re-derived under them (import/rederive.ts).
    import_limits: importLimits,
    // A kept anchor's `pinned` is true only under the roots it was checked with.
    timestamp_roots: rootDigests(timestampRoots),
    notRead: snapshot.notRead ?? null,
    entries: snapshot.entries.map((e) => [e.path, e.kind, e.sha256 ?? null, e.bytes ?? null, e.unreadable ?? null, e.badName === true, e.limit ?? null]),
  };
}

/** The key of a snapshot: `sha256:<hex>`. */
export function cacheKey(snapshot: BundleSnapshot, limits: Limits, importLimits: ImportLimits = DEFAULT_IMPORT_LIMITS, timestampRoots: readonly PinnedRoot[] = []): string {
  return digestCanonical(cacheKeyOf(snapshot, limits, importLimits, timestampRoots) as Parameters<typeof digestCanonical>[0]);
}

/** Counts of what the cache read, by entry kind: tests and the benchmark look at them (a report cache hit reads no tables). */
export const cacheReads = { heads: 0, tables: 0 };

/**
 * The kept verification for a key, or null (no head entry, or one that does
 * not check: see the module comment). Only the head is read: the evidence's
 * `attempts` and `grades` are read from the tables entry on first use
 * (wire.ts fromHead), or ahead of it by {@link readPendingTables}.
 */
export async function readCached(cache: VerifyCache, key: string): Promise<{ verification: BundleVerification } | null> {
  const payload = await readSealed(cache, entryPath(cache, key), CACHE_FORMAT, key);
  if (payload === null) return null;
  cacheReads.heads++;
  try {
    const stored = deserialize(payload) as { key: string; head: HeadWire };
    if (stored.key !== key || !isHead(stored.head)) return null;
    return { verification: fromHead(stored.head, tablesSource(cache, key)) };
  } catch {
    return null;
  }
}

/** True when a head entry exists for the key (whether it checks is for {@link readCached} to say). */
export function hasCached(cache: VerifyCache, key: string): boolean {
  return existsSync(entryPath(cache, key));
}

/**
 * Keeps a result under its key: the tables entry, then the head (so a head
 * is never written before its tables). Atomically; a failure is ignored (the
 * cache only saves time), and so is evidence whose tables cannot be had.
 */
export async function writeCached(cache: VerifyCache, key: string, result: { verification: BundleVerification }): Promise<void> {
  let head: Buffer;
  let tables: Buffer;
  try {
    const kept = toKept(result.verification);
    tables = serialize({ key, tables: kept.tables });
    head = serialize({ key, head: kept.head });
  } catch {
    // A value V8 cannot serialise, or kept tables that no longer check, is not kept (and never fails the run).
    return;
  }
  await writeSealed(cache, tablesPath(cache, key), TABLES_FORMAT, key, tables);
  await writeSealed(cache, entryPath(cache, key), CACHE_FORMAT, key, head);
}

/** A kept verification's tables that do not check when first used from synchronous code (its head is removed: the next run verifies the bundle again). */
export class KeptTablesError extends LedgerboardError {
  static override readonly code = 'CACHE_TABLES_UNREADABLE';
  // Not a property of the evidence, and the next run recovers: exit 2 (the run cannot go on as asked), not a bug's 3.
  static override readonly exitStatus = EXIT_STATUS.usage;
  constructor(key: string) {
    super(`the verification cache's tables entry for ${key} is missing or does not check; its head entry is removed, so the next run verifies that bundle again (run it again)`);
    this.name = 'KeptTablesError';
  }
}

function tablesSource(cache: VerifyCache, key: string): TablesSource {
  const take = (payload: Buffer | null) => {
    if (payload === null) return null;
    cacheReads.tables++;
    try {
      const stored = deserialize(payload) as { key: string; tables: TablesWire };
      return stored.key === key ? tablesFromWire(stored.tables) : null;
    } catch {
      return null;
    }
  };
  return {
    readSync: () => {
      const tables = take(readSealedSync(cache, tablesPath(cache, key), TABLES_FORMAT, key));
      if (tables !== null) return tables;
      rmSync(entryPath(cache, key), { force: true });
      throw new KeptTablesError(key);
    },
    read: async () => take(await readSealed(cache, tablesPath(cache, key), TABLES_FORMAT, key)),
    forget: () => rm(entryPath(cache, key), { force: true }).catch(() => undefined),
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a deserialised value has a head's shape (the cache's own bytes, but checked as input). */
function isHead(value: unknown): value is HeadWire {
  if (!isObject(value) || !isObject(value.verification) || !isObject(value.evidence) || !isEvidenceSummary(value.summary)) return false;
  const v = value.verification;
  const e = value.evidence;
  const id = (x: unknown) => x === null || typeof x === 'string';
  return id(v.bundle_id) && id(v.plan_id) && typeof v.status === 'string' && Array.isArray(v.findings) && (v.anchor === null || isObject(v.anchor)) && Array.isArray(e.ledger) && Array.isArray(e.assessments);
}

function entryPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `${key.slice('sha256:'.length)}.v8`);
}

function tablesPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `tables-${key.slice('sha256:'.length)}.v8`);
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
    for (const folder of ['json', 'schema', 'evidence', 'bundle', 'cache', 'anchor', 'verify', 'pipeline', 'config', 'import', 'analysis', 'claims', 'report', 'facts', 'run']) walk(folder);
    hash.update('version.ts\0').update(readFileSync(join(root, 'version.ts'))).update('\0');
    code = `sources ${hash.digest('hex')}`;
  }
  identity = `${VERSION} ${code} v8 ${process.versions.v8}`;
  return identity;
}
