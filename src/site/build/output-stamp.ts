/**
 * The output stamp: a build is a pure function of its inputs (the report,
 * the bundles' bytes as read, the config, the retained reports and
 * attestations directories, SOURCE_DATE_EPOCH and the site code: the same
 * inputs give the same site byte for byte, test/site/two-builds.test.ts), so
 * after a build the cache keeps what the output then holds, under the digest
 * of those inputs. A later build with the same inputs whose output still
 * holds exactly that (every file and directory, modes, sizes and the SHA-256
 * of every file's bytes, nothing more) leaves the output as it is instead of
 * writing the same site again: at 10^6 attempts that was most of a rebuild
 * with nothing changed (writing 1 GB of pages and blobs, docs/benchmarks.md (j)).
 *
 * - The key is the SHA-256 of the canonical JSON of the format, the site code
 *   identity (render-cache.ts: every file of `src/` and `public/`, the Astro
 *   config, the package and lock files, Node's version), the report id, the
 *   config, every bundle's content digest, entries and status (never its
 *   location), a listing of the retained reports and attestations
 *   directories (every path, kind, size and SHA-256; a link's target, never
 *   followed) and the source date.
 * - An entry is `site-<key-hex>.json` in the build's cache directory: a first
 *   line with the format, the key and the HMAC (cache/sealed.ts) of the rest, then the
 *   output's listing as JSON. It is taken only when the line matches, the
 *   seal checks and every path is plain; and the output is
 *   left as it is only when a fresh look at it (lstat, no link followed; every
 *   file read and hashed) gives that listing exactly. Anything else: the
 *   site is built in full (and the entry rewritten).
 * - Nothing is trusted from the output without hashing it: a changed byte, a
 *   file added or removed, a mode changed, a link put in are all rebuilt.
 *
 * `--no-cache` builds in full; the stamp only saves time.
 */
import { lstat, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { digestCanonical } from '../../json/canonical.ts';
import { readSealed, writeSealed, type CacheStore } from '../../cache/sealed.ts';
import type { Config } from '../../config/config.ts';
import type { Report } from '../../report/schema.ts';
import { plainPath } from './plain-path.ts';
import { siteCodeIdentity } from './render-cache.ts';
import { hashFiles, hashOne } from './hash-files.ts';
import { compareCodeUnits as byCodeUnit } from '../../json/compare.ts';

/** The name of the entry format, on the first line of every output stamp. */
export const OUTPUT_STAMP_FORMAT = 'ledgerboard.site-output.v1';

/** What an output holds: directories and files, `/`-separated paths relative to it, sorted. */
export interface OutputListing {
  /** Every directory under the output (not the output itself). */
  dirs: string[];
  /** Every file: path, size in bytes, SHA-256 (hex) of its bytes. */
  files: [string, number, string][];
  /** The build's page and file counts, for its summary line. */
  pages: number;
  count: number;
}

/** Everything a build's output depends on besides the site code (see the module comment). */
export interface OutputInputs {
  report: Report;
  bundles: readonly { content_digest: string; entries: readonly { path: string; kind: string; sha256: string | null; bytes: number | null; badName?: boolean }[]; verification?: { status: string } }[];
  config: Config;
  retainedDir: string;
  attestationsDir?: string;
  sourceDate: string | null;
  /** The digest of the score card file's bytes (published as they are at /scorecard.json); absent: no card. */
  scorecard?: string;
  /** An offline copy (offline.ts): true; absent: the site as served. */
  offline?: true;
}

/** The key of the output of these inputs. */
export async function outputKey(inputs: OutputInputs): Promise<string> {
  return digestCanonical({
    format: OUTPUT_STAMP_FORMAT,
    site: await siteCodeIdentity(),
    report: inputs.report.report_id,
    config: inputs.config as unknown as Parameters<typeof digestCanonical>[0],
    bundles: inputs.bundles.map((b) => [b.content_digest, b.verification?.status ?? null, b.entries.map((e) => [e.path, e.kind, e.sha256, e.bytes, e.badName === true])]),
    retained: await directoryListing(inputs.retainedDir),
    attestations: inputs.attestationsDir === undefined ? null : await directoryListing(inputs.attestationsDir),
    source_date: inputs.sourceDate,
    ...(inputs.scorecard === undefined ? {} : { scorecard: inputs.scorecard }),
    ...(inputs.offline === true ? { offline: true } : {}),
  });
}

/** The kept listing for a key, or null (none, or one that does not check). */
export async function readOutputStamp(cache: CacheStore, key: string): Promise<OutputListing | null> {
  const body = await readSealed(cache, entryPath(cache.dir, key), OUTPUT_STAMP_FORMAT, key);
  if (body === null) return null;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return isListing(value) ? value : null;
  } catch {
    return null;
  }
}

/** Keeps the listing of a finished output under its key (atomically; a failure is ignored). */
export async function keepOutputStamp(cache: CacheStore, key: string, listing: OutputListing): Promise<void> {
  await writeSealed(cache, entryPath(cache.dir, key), OUTPUT_STAMP_FORMAT, key, JSON.stringify(listing));
}

/**
 * What `dir` holds now, or null when it holds anything but directories
 * (mode 0755) and regular files (mode 0644), or cannot be read. With
 * `expected`, null at the first difference from it: the files are read and
 * hashed only when every path and size agreed.
 */
export async function listOutput(dir: string, counts: { pages: number; count: number }, expected?: OutputListing): Promise<OutputListing | null> {
  const dirs: string[] = [];
  const found: [string, number][] = [];
  const walk = async (absolute: string, relative: string): Promise<boolean> => {
    let names: string[];
    try {
      names = (await readdir(absolute)).sort(byCodeUnit);
    } catch {
      return false;
    }
    for (const name of names) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const stats = await lstat(join(absolute, name)).catch(() => null);
      if (stats === null) return false;
      if (stats.isDirectory()) {
        if ((stats.mode & 0o7777) !== 0o755) return false;
        dirs.push(path);
        if (!(await walk(join(absolute, name), path))) return false;
      } else if (stats.isFile()) {
        if ((stats.mode & 0o7777) !== 0o644) return false;
        found.push([path, stats.size]);
      } else {
        return false;
      }
    }
    return true;
  };
  if (!(await walk(dir, ''))) return null;
  dirs.sort(byCodeUnit);
  found.sort(([a], [b]) => byCodeUnit(a, b));
  if (expected !== undefined) {
    if (!sameStrings(dirs, expected.dirs) || found.length !== expected.files.length) return null;
    if (found.some(([path, size], i) => path !== expected.files[i]![0] || size !== expected.files[i]![1])) return null;
  }
  let digests: (string | null)[];
  try {
    digests = await hashFiles(
      found.map(([path]) => join(dir, ...path.split('/'))),
      found.reduce((n, [, size]) => n + size, 0),
    );
  } catch {
    // The hashing worker could not run: the output is not known to be the site (it is built in full), never an error.
    return null;
  }
  const files: [string, number, string][] = [];
  for (const [i, [path, size]] of found.entries()) {
    const sha256 = digests[i];
    if (sha256 === null || sha256 === undefined || (expected !== undefined && sha256 !== expected.files[i]![2])) return null;
    files.push([path, size, sha256]);
  }
  return { dirs, files, pages: counts.pages, count: counts.count };
}

/**
 * A directory's contents for the key: every entry's path, kind and, for a
 * file, size and SHA-256, for a link its target (never followed); null when
 * it does not exist or is not a directory.
 */
async function directoryListing(dir: string): Promise<[string, string, number | string | null, string | null][] | null> {
  const top = await lstat(dir).catch(() => null);
  if (top === null || !top.isDirectory()) return null;
  const out: [string, string, number | string | null, string | null][] = [];
  const buffer = Buffer.allocUnsafeSlow(1 << 16);
  const walk = async (absolute: string, relative: string) => {
    for (const name of (await readdir(absolute).catch(() => [] as string[])).sort(byCodeUnit)) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const full = join(absolute, name);
      const stats = await lstat(full).catch(() => null);
      if (stats === null) out.push([path, 'gone', null, null]);
      else if (stats.isDirectory()) {
        out.push([path, 'dir', null, null]);
        await walk(full, path);
      } else if (stats.isFile()) out.push([path, 'file', stats.size, hashOne(full, buffer)]);
      else if (stats.isSymbolicLink()) out.push([path, 'link', await readlink(full).catch(() => null), null]);
      else out.push([path, 'other', null, null]);
    }
  };
  await walk(dir, '');
  return out;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function isListing(value: unknown): value is OutputListing {
  if (typeof value !== 'object' || value === null) return false;
  const { dirs, files, pages, count } = value as Record<string, unknown>;
  if (!isCount(pages) || !isCount(count) || !Array.isArray(dirs) || !Array.isArray(files)) return false;
  if (!dirs.every(plainPath)) return false;
  return files.every((f) => Array.isArray(f) && f.length === 3 && plainPath(f[0]) && isCount(f[1]) && typeof f[2] === 'string' && /^[0-9a-f]{64}$/.test(f[2]));
}

function entryPath(cacheDir: string, key: string): string {
  return join(cacheDir, `site-${key.slice('sha256:'.length)}.json`);
}
