/**
 * Merging verification cache directories (`ledgerboard cache merge DIR...
 * --into DIR`): the entries shard jobs kept (shard.ts), each brought back as
 * a CI artifact, into the one directory the build then reads.
 *
 * An artifact is what a job uploaded, and a job is only as trustworthy as
 * whatever it ran: the merge takes a kept verification only when both its
 * entries (verify-cache.ts: the head `<key-hex>.v8` and the tables
 * `tables-<key-hex>.v8`) are regular files (never read through a link)
 * whose seals check under this run's secret and which deserialise as a
 * verification under the key their names give: exactly what a build would
 * take from its own cache. It writes both again, sealed under the same
 * secret, into the target. Everything else is refused with the reason, and
 * the bundle it would have spared is verified in full by the build, as one
 * no shard verified (a shard that failed, a directory that is missing) is.
 * The sources are only read.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import { readSealed } from '../cache/sealed.ts';
import { CACHE_FORMAT, HEAD_NAME, hasCached, readCached, TABLES_FORMAT, TABLES_NAME, writeCached, type VerifyCache } from './verify-cache.ts';
import { installTables, tablesFromWire, type TablesWire } from './wire.ts';

/** A file of a source directory that was not merged, and why. */
export interface Refusal {
  path: string;
  why: string;
}

/** What a merge did. */
export interface MergeResult {
  /** Distinct entries written into the target. */
  merged: number;
  /** Files refused (never written into the target). */
  refused: Refusal[];
  /** Source directories that do not exist (a shard that failed or kept nothing): skipped. */
  missing: string[];
  /** Entries that checked but could not be written into the target. */
  unwritten: string[];
}

/** Why a source is not a directory to merge from (a usage problem), or null. */
export async function sourceProblem(dir: string): Promise<'missing' | string | null> {
  const stats = await lstat(dir).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? 'missing' : `cannot be read (${error.code ?? 'error'})`));
  if (typeof stats === 'string') return stats;
  if (stats.isSymbolicLink()) return 'is a symbolic link (never followed: name the directory itself)';
  if (!stats.isDirectory()) return 'is not a directory';
  return null;
}

/**
 * Merges the verification entries of `sources` into `into` under `secret`
 * (see the module comment). Sources are read in the order given, each
 * directory's names in byte order.
 */
export async function mergeCaches(sources: readonly string[], into: VerifyCache): Promise<MergeResult> {
  const result: MergeResult = { merged: 0, refused: [], missing: [], unwritten: [] };
  const written = new Set<string>();
  for (const dir of sources) {
    const problem = await sourceProblem(dir);
    if (problem === 'missing') {
      result.missing.push(dir);
      continue;
    }
    if (problem !== null) {
      result.refused.push({ path: dir, why: problem });
      continue;
    }
    const source: VerifyCache = { dir, secret: into.secret };
    const names = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const heads = new Set(names.filter((e) => e.isFile() && HEAD_NAME.test(e.name)).map((e) => e.name));
    for (const entry of names) {
      const path = join(dir, entry.name);
      const hex = HEAD_NAME.exec(entry.name)?.[1];
      if (entry.isSymbolicLink()) {
        result.refused.push({ path, why: 'a symbolic link (never followed)' });
        continue;
      }
      if (!entry.isFile()) {
        result.refused.push({ path, why: entry.isDirectory() ? 'a directory (entries are files of the directory itself)' : 'not a regular file' });
        continue;
      }
      if (TABLES_NAME.test(entry.name)) {
        // Taken with its head; alone it is nothing.
        if (!heads.has(`${TABLES_NAME.exec(entry.name)![1]}.v8`)) result.refused.push({ path, why: 'a tables entry without its head entry (<64 hex digits>.v8) beside it' });
        continue;
      }
      if (hex === undefined) {
        result.refused.push({ path, why: 'not a verification entry (<64 hex digits>.v8, with tables-<64 hex digits>.v8): only verification entries are merged' });
        continue;
      }
      const key = `sha256:${hex}`;
      // The same key from another shard (the same bundle bytes twice): the same verification, merged once.
      if (written.has(key)) continue;
      const kept = await readCached(source, key);
      if (kept === null) {
        const sealed = await readSealed(source, path, CACHE_FORMAT, key);
        result.refused.push({
          path,
          why:
            sealed === null
              ? 'its seal does not check under this cache key (sealed under another key, or changed since it was sealed)'
              : 'sealed under this key, but not a verification this ledgerboard reads (another version wrote it?)',
        });
        continue;
      }
      const tables = await readTables(source, hex);
      if (tables === null) {
        result.refused.push({ path, why: `its tables entry tables-${hex}.v8 is missing, is not a regular file, or its seal does not check under this cache key` });
        continue;
      }
      installTables(kept.verification.evidence, tables);
      written.add(key);
      await writeCached(into, key, kept);
      // writeCached skips a write that fails (a cache only saves time); a merge says so.
      if (hasCached(into, key)) result.merged += 1;
      else result.unwritten.push(path);
    }
  }
  return result;
}

/** A kept verification's tables entry, when it checks under the source's secret and deserialises as tables of this key; else null. */
async function readTables(source: VerifyCache, hex: string): Promise<ReturnType<typeof tablesFromWire> | null> {
  const key = `sha256:${hex}`;
  const payload = await readSealed(source, join(source.dir, `tables-${hex}.v8`), TABLES_FORMAT, key);
  if (payload === null) return null;
  try {
    const stored = deserialize(payload) as { key: string; tables: TablesWire };
    return stored.key === key ? tablesFromWire(stored.tables) : null;
  } catch {
    return null;
  }
}
