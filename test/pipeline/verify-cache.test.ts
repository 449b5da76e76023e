/**
 * The verification cache (src/pipeline/verify-cache.ts): a kept result is
 * reused only for the same bytes, limits and verifier code, gives exactly
 * what verifying in full gives, and an entry that does not check (flipped
 * byte, truncated, another key's, another format) is ignored and rebuilt,
 * never trusted. The CLI's --cache / --no-cache are tried as a user would.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { LIMIT_DEFAULTS } from '../../src/evidence/limits.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { CACHE_FORMAT, HEAD_NAME, TABLES_NAME, type VerifyCache } from '../../src/pipeline/verify-cache.ts';
import type { BundleResult } from '../../src/pipeline/verify-directory.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { resultValue } from '../helpers/evidence-value.ts';
import { testCache } from '../helpers/cache-store.ts';

const PATHS = ['content/bundles', 'content/examples'];
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-cache-'));
  scratch.push(dir);
  return dir;
}

/** A result without the cache's mark, as plain values. */
const plain = (r: BundleResult) => {
  const { cached: _cached, ...rest } = r;
  return resultValue(rest);
};

/** The head entries (one per bundle; each with its tables entry beside it). */
async function entries(cache: VerifyCache): Promise<string[]> {
  return (await readdir(cache.dir)).filter((n) => HEAD_NAME.test(n)).sort();
}

describe('the verification cache', () => {
  it('a second run reuses every bundle and gives exactly what a full verification gives, report bytes included', async () => {
    const cache = testCache(join(await tempDir(), 'cache'));
    const full = await verifyPaths(PATHS, undefined, { workers: 0 });
    const first = await verifyPaths(PATHS, undefined, { workers: 0, cache });
    expect(first.every((r) => r.cached === undefined)).toBe(true);
    expect(await entries(cache)).toHaveLength(full.length);
    const second = await verifyPaths(PATHS, undefined, { workers: 0, cache });
    expect(second.every((r) => r.cached === true)).toBe(true);
    expect(second.map((r) => r.verification.status)).toEqual(full.map((r) => r.verification.status));
    expect(full.some((r) => r.verification.status !== 'verified')).toBe(true);
    for (let i = 0; i < full.length; i++) expect(isDeepStrictEqual(plain(second[i]!), plain(full[i]!)), full[i]!.path).toBe(true);
    const config = Config.parse({});
    expect(canonicalJson(buildReport(second, config))).toBe(canonicalJson(buildReport(full, config)));
    // Worker threads read the same entries.
    const threaded = await verifyPaths(PATHS, undefined, { workers: 2, cache });
    expect(threaded.every((r) => r.cached === true)).toBe(true);
    for (let i = 0; i < full.length; i++) expect(isDeepStrictEqual(plain(threaded[i]!), plain(full[i]!))).toBe(true);
  }, 60_000);

  it('an entry that does not check is ignored and rebuilt: a flipped byte, a truncation, another key, another format', async () => {
    const cache = testCache(join(await tempDir(), 'cache'));
    const path = 'content/bundles/2026-09-14-widget-bugs';
    await verifyPaths([path], undefined, { workers: 0, cache });
    const [name] = await entries(cache);
    const file = join(cache.dir, name!);
    const good = await readFile(file);
    const newline = good.indexOf(0x0a);
    const other = Buffer.from(good);
    // The header's key replaced by another valid-looking key: an entry filed under a name that is not its own.
    other.write(`sha256:${'0'.repeat(64)}`, CACHE_FORMAT.length + 1, 'latin1');
    const flipped = Buffer.from(good);
    flipped[newline + 1 + Math.floor((good.length - newline) / 2)]! ^= 0x01;
    const corruptions: [string, Buffer][] = [
      ['a flipped byte in the payload', flipped],
      ['truncated', good.subarray(0, good.length - 100)],
      ['another key in its header', other],
      ['another format', Buffer.concat([Buffer.from('ledgerboard.verify-cache.v0'), good.subarray(CACHE_FORMAT.length)])],
      ['not an entry at all', Buffer.from('{}')],
    ];
    for (const [what, bytes] of corruptions) {
      await writeFile(file, bytes);
      const [result] = await verifyPaths([path], undefined, { workers: 0, cache });
      expect(result!.cached, what).toBeUndefined();
      expect(result!.verification.status, what).toBe('verified');
      // Rebuilt: the file is a good entry again, and the next run reuses it.
      expect(Buffer.compare(await readFile(file), good), what).toBe(0);
      const [again] = await verifyPaths([path], undefined, { workers: 0, cache });
      expect(again!.cached, what).toBe(true);
    }
  }, 60_000);

  it('on worker threads too: an entry a worker finds but that does not check is verified in full, never trusted', async () => {
    const cache = testCache(join(await tempDir(), 'cache'));
    const full = await verifyPaths(['content/bundles'], undefined, { workers: 0, cache });
    for (const name of await entries(cache)) {
      const file = join(cache.dir, name);
      const bytes = await readFile(file);
      bytes[bytes.length - 10]! ^= 0x01;
      await writeFile(file, bytes);
    }
    const threaded = await verifyPaths(['content/bundles'], undefined, { workers: 2, cache });
    expect(threaded.map((r) => r.cached)).toEqual(full.map(() => undefined));
    for (let i = 0; i < full.length; i++) expect(isDeepStrictEqual(plain(threaded[i]!), plain(full[i]!))).toBe(true);
  }, 60_000);

  it('a cache that cannot be written is skipped: the run verifies in full and gives the same results', async () => {
    const blocked = join(await tempDir(), 'a-file');
    await writeFile(blocked, 'not a directory');
    const cache = testCache(join(blocked, 'cache'));
    const full = await verifyPaths(['content/bundles'], undefined, { workers: 0 });
    const results = await verifyPaths(['content/bundles'], undefined, { workers: 0, cache });
    expect(results.every((r) => r.cached === undefined)).toBe(true);
    for (let i = 0; i < full.length; i++) expect(isDeepStrictEqual(plain(results[i]!), plain(full[i]!))).toBe(true);
  }, 60_000);

  it('other bytes, or other limits, are another key: a changed file is verified in full and its finding is reported', async () => {
    const cache = testCache(join(await tempDir(), 'cache'));
    const bundle = join(await tempDir(), 'bundle');
    await cp('content/bundles/2026-09-14-widget-bugs', bundle, { recursive: true });
    await verifyPaths([bundle], undefined, { workers: 0, cache });
    const notes = join(bundle, 'NOTES.md');
    await writeFile(notes, `${await readFile(notes, 'utf8')}\nedited after sealing\n`);
    const [changed] = await verifyPaths([bundle], undefined, { workers: 0, cache });
    expect(changed!.cached).toBeUndefined();
    expect(changed!.verification.status).toBe('invalid');
    expect(changed!.verification.findings.map((f) => f.code)).toContain('FILE_DIGEST_MISMATCH');
    const [reused] = await verifyPaths([bundle], undefined, { workers: 0, cache });
    expect(reused!.cached).toBe(true);
    const [otherLimits] = await verifyPaths([bundle], undefined, { workers: 0, cache, limits: { ...LIMIT_DEFAULTS, string_bytes: LIMIT_DEFAULTS.string_bytes - 1 } });
    expect(otherLimits!.cached).toBeUndefined();
    expect(await entries(cache)).toHaveLength(3);
  }, 60_000);

  it('an entry holds no memory past the tables\' rows: two runs write the same bytes', async () => {
    const one = testCache(join(await tempDir(), 'one'));
    const two = testCache(join(await tempDir(), 'two'));
    await verifyPaths(['content/bundles'], undefined, { workers: 0, cache: one });
    await verifyPaths(['content/bundles'], undefined, { workers: 2, cache: two });
    const all = async (cache: VerifyCache) => (await readdir(cache.dir)).filter((n) => HEAD_NAME.test(n) || TABLES_NAME.test(n)).sort();
    const names = await all(one);
    expect(names.filter((n) => TABLES_NAME.test(n))).toHaveLength((await entries(one)).length);
    expect(await all(two)).toEqual(names);
    for (const name of names) expect(Buffer.compare(await readFile(join(one.dir, name)), await readFile(join(two.dir, name))), name).toBe(0);
  }, 60_000);
});

describe('--cache and --no-cache', () => {
  const run = (args: string[], cwd: string, env: Record<string, string> = {}) =>
    promisify(execFile)(process.execPath, [join(process.cwd(), 'bin', 'ledgerboard.mjs'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env } }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it('report uses the user\'s cache directory by default (quietly; nothing beside the config), says what it reused when given --cache, and --no-cache keeps nothing', async () => {
    const dir = await tempDir();
    const home = await tempDir();
    const env = { XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config') };
    await cp('content/bundles', join(dir, 'evidence'), { recursive: true });
    await writeFile(join(dir, 'ledgerboard.config.json'), JSON.stringify({ bundles_dir: 'evidence' }));
    const off = await run(['report', '--json', '--no-cache'], dir, env);
    expect(off.code).toBe(0);
    expect(await readdir(home)).toEqual([]);
    const quiet = await run(['report', '--json'], dir, env);
    expect(quiet.stderr).toBe('');
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'ledgerboard.config.json']);
    const [board] = await readdir(join(home, 'cache', 'ledgerboard', 'boards'));
    expect(board).toMatch(/^[0-9a-f]{16}$/);
    // 4 bundles (a head and a tables entry each), each bundle's pooling in both layers (the demo has a regrade), the report and its one ledger's section.
    expect((await readdir(join(home, 'cache', 'ledgerboard', 'boards', board!))).sort().map((n) => n.replace(/^(report|section|pooling|tables)-.*/, '$1').replace(/^[0-9a-f]{64}\.v8$/, 'bundle'))).toEqual([
      ...Array<string>(4).fill('bundle'),
      ...Array<string>(8).fill('pooling'),
      'report',
      'section',
      ...Array<string>(4).fill('tables'),
    ]);
    // The key: made on first use, 0600 in a 0700 directory.
    expect((await stat(join(home, 'config', 'ledgerboard', 'cache-key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'config', 'ledgerboard'))).mode & 0o777).toBe(0o700);
    const first = await run(['report', '--json', '--cache', 'kept'], dir, env);
    expect(first.stderr).toMatch(/verification cache kept: 0 of 4 bundles reused, 4 verified in full; the report analysed afresh/);
    const second = await run(['report', '--json', '--cache', 'kept'], dir, env);
    expect(second.stderr).toMatch(/verification cache kept: 4 of 4 bundles reused, 0 verified in full; the report reused/);
    // Without the kept report, its ledger's section.
    for (const name of await readdir(join(dir, 'kept'))) if (name.startsWith('report-')) await rm(join(dir, 'kept', name));
    const third = await run(['report', '--json', '--cache', 'kept'], dir, env);
    expect(third.stderr).toMatch(/4 of 4 bundles reused, 0 verified in full; the report assembled: 1 of 1 ledgers reused, 0 analysed/);
    expect(third.stdout).toBe(off.stdout);
    // Without the report and the section, every bundle's kept pooling.
    for (const name of await readdir(join(dir, 'kept'))) if (/^(report|section)-/.test(name)) await rm(join(dir, 'kept', name));
    const fourth = await run(['report', '--json', '--cache', 'kept'], dir, env);
    expect(fourth.stderr).toMatch(/4 of 4 bundles reused, 0 verified in full; the report assembled: 0 of 1 ledgers reused, 1 analysed \(4 of 4 of their bundles pooled before\)/);
    expect(fourth.stdout).toBe(off.stdout);
    expect(quiet.stdout).toBe(off.stdout);
    expect(second.stdout).toBe(off.stdout);
    expect(first.stdout).toBe(off.stdout);
    const both = await run(['report', '--cache', 'x', '--no-cache'], dir, env);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--cache and --no-cache cannot be given together/);
    // A cache inside the evidence would become evidence: refused before anything is read or written.
    const inside = await run(['report', '--cache', 'evidence/cache'], dir, env);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/the verification cache evidence\/cache lies inside the evidence directory evidence/);
    expect(await readdir(join(dir, 'evidence'))).not.toContain('cache');
  }, 60_000);
});
