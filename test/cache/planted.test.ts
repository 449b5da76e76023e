/**
 * Issue 25, critical: a cache entry planted by somebody without the cache's
 * secret never makes a tampered bundle count. The plant is a real entry (the
 * verified result of the bundle before it was tampered with) filed under the
 * tampered bundle's key, the way a contributor can compute it from public
 * bytes; it is put where a contributor can write (the old default
 * `.ledgerboard-cache/` inside the board's repository, a directory given with
 * `--cache` inside the repository, the shared CI cache restored without the
 * key). Sealed with the run's own secret the same plant is taken: the control
 * that shows the plant would work if the seal did not stop it.
 *
 * Also High 6: an entry that is a link to /dev/zero, a FIFO or a file past
 * the size bound is no entry (the run neither hangs nor reads it).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { CACHE_FORMAT, HEAD_NAME, TABLES_FORMAT } from '../../src/pipeline/verify-cache.ts';
import { sealHeader, STRANGER_SECRET } from '../helpers/cache-store.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-planted-'));
  scratch.push(dir);
  return dir;
}

const BUNDLE = '2026-09-14-widget-bugs';
const RUN_KEY = 'ab'.repeat(32);
const OTHER_KEY = 'cd'.repeat(32);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], cwd: string, env: Record<string, string>, timeout = 120_000): Promise<Run> {
  return promisify(execFile)(process.execPath, [join(process.cwd(), 'bin', 'ledgerboard.mjs'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, timeout, maxBuffer: 1 << 26 }).then(
    (r) => ({ code: 0, ...r }),
    (e: Run) => e,
  );
}

interface Report {
  bundles: { content_digest: string; status: string; counted: boolean; findings: { code: string }[] }[];
}

/** A board holding one bundle, tampered with after sealing; the name of its cache entry; and a plant: the untampered bundle's verified result filed under that name. */
async function tamperedBoard(): Promise<{ dir: string; home: string; env: Record<string, string>; name: string; payload: Buffer; tablesPayload: Buffer; tamperedDigest: string }> {
  const dir = await tempDir();
  const home = await tempDir();
  const env = { XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config'), LEDGERBOARD_CACHE_KEY: RUN_KEY };
  await cp(join('content/bundles', BUNDLE), join(dir, 'evidence', BUNDLE), { recursive: true });
  await writeFile(join(dir, 'ledgerboard.config.json'), JSON.stringify({ bundles_dir: 'evidence' }));
  const work = join(home, 'work');
  // The bundle as sealed: verified, its entry kept.
  const before = await run(['report', '--json', '--cache', work], dir, env);
  expect(before.code).toBe(0);
  const [good] = await readdir(work).then((n) => n.filter((x) => HEAD_NAME.test(x)));
  const goodBytes = await readFile(join(work, good!));
  const stored = deserialize(goodBytes.subarray(goodBytes.indexOf(0x0a) + 1)) as { key: string; head: unknown };
  // A kept verification is a head and its tables (pipeline/verify-cache.ts): the control plants both.
  const tablesBytes = await readFile(join(work, `tables-${good!}`));
  const storedTables = deserialize(tablesBytes.subarray(tablesBytes.indexOf(0x0a) + 1)) as { key: string; tables: unknown };
  // Tampered with: a line added to NOTES.md after sealing.
  const notes = join(dir, 'evidence', BUNDLE, 'NOTES.md');
  await writeFile(notes, `${await readFile(notes, 'utf8')}\nAll results above were checked by hand.\n`);
  const after = await run(['report', '--json', '--cache', work], dir, env);
  const report = JSON.parse(after.stdout) as Report;
  expect(report.bundles[0]!.status).toBe('invalid');
  expect(report.bundles[0]!.findings.map((f) => f.code)).toContain('FILE_DIGEST_MISMATCH');
  const name = (await readdir(work)).find((n) => HEAD_NAME.test(n) && n !== good)!;
  expect(name).toMatch(/^[0-9a-f]{64}\.v8$/);
  const key = `sha256:${name.slice(0, 64)}`;
  const payload = serialize({ key, head: stored.head });
  const tablesPayload = serialize({ key, tables: storedTables.tables });
  await rm(work, { recursive: true });
  return { dir, home, env, name, payload, tablesPayload, tamperedDigest: report.bundles[0]!.content_digest };
}

/** The entry as this project used to seal it (a plain SHA-256: anybody can make it). */
function plainSealed(key: string, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${CACHE_FORMAT} ${key} sha256:${createHash('sha256').update(payload).digest('hex')}\n`, 'latin1'), payload]);
}

function hmacSealed(key: string, payload: Buffer, secret: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(sealHeader(CACHE_FORMAT, key, payload, secret), 'latin1'), payload]);
}

async function plant(dir: string, name: string, bytes: Buffer): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, name), bytes);
}

const defaultDir = async (home: string): Promise<string> => {
  const boards = join(home, 'cache', 'ledgerboard', 'boards');
  const [id] = await readdir(boards);
  return join(boards, id!);
};

describe('a planted cache entry (issue 25, critical)', () => {
  it('the control: the same plant sealed with the run\'s own secret is taken, so only the seal stops it', async () => {
    const { dir, env, name, payload, tablesPayload } = await tamperedBoard();
    const kept = join(dir, 'kept');
    await plant(kept, name, hmacSealed(`sha256:${name.slice(0, 64)}`, payload, Buffer.from(RUN_KEY, 'hex')));
    const tablesHeader = sealHeader(TABLES_FORMAT, `sha256:${name.slice(0, 64)}`, tablesPayload, Buffer.from(RUN_KEY, 'hex'));
    await plant(kept, `tables-${name}`, Buffer.concat([Buffer.from(tablesHeader, 'latin1'), tablesPayload]));
    const taken = await run(['report', '--json', '--cache', 'kept'], dir, env);
    expect(taken.stderr).toMatch(/1 of 1 bundles reused/);
    expect((JSON.parse(taken.stdout) as Report).bundles[0]!.status).toBe('verified');
  }, 180_000);

  it('inside the repository, in the shared CI cache without the key, under --cache: ignored everywhere, and build --strict exits 1', async () => {
    const { dir, home, env, name, payload } = await tamperedBoard();
    const key = `sha256:${name.slice(0, 64)}`;
    // Every way a contributor could seal it: the old plain digest, a secret of their own.
    const plants = [plainSealed(key, payload), hmacSealed(key, payload, STRANGER_SECRET), hmacSealed(key, payload, Buffer.from(OTHER_KEY, 'hex'))];
    for (const [i, bytes] of plants.entries()) {
      // The old default, beside the config, in the repository: no longer read at all.
      await plant(join(dir, '.ledgerboard-cache'), name, bytes);
      // A directory in the repository named with --cache.
      await plant(join(dir, 'ci-cache'), name, bytes);
      const given = await run(['report', '--json', '--cache', 'ci-cache'], dir, env);
      expect(given.stderr, `plant ${i}`).toMatch(/0 of 1 bundles reused, 1 verified in full/);
      expect((JSON.parse(given.stdout) as Report).bundles[0]!.status, `plant ${i}`).toBe('invalid');
      // The shared CI cache (the default directory) restored on a runner whose key is its own.
      const seeded = await run(['report', '--json'], dir, env);
      expect((JSON.parse(seeded.stdout) as Report).bundles[0]!.status).toBe('invalid');
      await plant(await defaultDir(home), name, bytes);
      const shared = await run(['report', '--json'], dir, env);
      expect((JSON.parse(shared.stdout) as Report).bundles[0]!.status, `plant ${i}`).toBe('invalid');
      // A runner with no key at all: it makes its own, and the plant still does not check.
      const fresh = await run(['report', '--json'], dir, { ...env, LEDGERBOARD_CACHE_KEY: '' });
      expect((JSON.parse(fresh.stdout) as Report).bundles[0]!.status, `plant ${i}`).toBe('invalid');
    }
    // The gate init's workflow runs on every pull request.
    const strict = await run(['build', '--strict', '--out', join(home, 'site')], dir, env, 300_000);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/invalid/);
    expect(strict.stdout).toMatch(/FILE_DIGEST_MISMATCH/);
  }, 600_000);

  it('an entry that is a link to /dev/zero, a FIFO, a directory or a sparse file past the bound is no entry: the run neither hangs nor reads it', async () => {
    const { dir, env, name } = await tamperedBoard();
    const kept = join(dir, 'kept');
    await mkdir(kept, { recursive: true });
    const entry = join(kept, name);
    const kinds: [string, () => Promise<void>][] = [
      ['a link to /dev/zero', () => symlink('/dev/zero', entry)],
      ['a FIFO', () => promisify(execFile)('mkfifo', [entry]).then(() => undefined)],
      ['a directory', () => mkdir(entry)],
      ['a sparse file of 3 GiB', async () => {
        await writeFile(entry, '');
        await truncate(entry, 3 * 2 ** 30);
      }],
      ['a file nobody may read', async () => {
        await writeFile(entry, 'x');
        await chmod(entry, 0);
      }],
    ];
    for (const [what, make] of kinds) {
      await rm(entry, { recursive: true, force: true });
      await make();
      const started = performance.now();
      const result = await run(['report', '--json', '--cache', 'kept'], dir, env, 60_000);
      expect(result.code, what).toBe(0);
      expect(performance.now() - started, what).toBeLessThan(60_000);
      expect(result.stderr, what).toMatch(/0 of 1 bundles reused, 1 verified in full/);
      expect((JSON.parse(result.stdout) as Report).bundles[0]!.status, what).toBe('invalid');
    }
  }, 600_000);

  it('a key that is not safe turns the cache off for the run, said in one line: a link, readable by others, not hex, inside the board', async () => {
    const dir = await tempDir();
    const home = await tempDir();
    await cp(join('content/bundles', BUNDLE), join(dir, 'evidence', BUNDLE), { recursive: true });
    await writeFile(join(dir, 'ledgerboard.config.json'), JSON.stringify({ bundles_dir: 'evidence' }));
    const config = join(home, 'config');
    const keyFile = join(config, 'ledgerboard', 'cache-key');
    const env = { XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: config };
    const made = await run(['report', '--json', '--cache', 'kept'], dir, env);
    expect(made.stderr).toMatch(/0 of 1 bundles reused/);
    const good = await readFile(keyFile, 'latin1');
    expect(good).toMatch(/^[0-9a-f]{64}\n$/);
    const cases: [string, () => Promise<void>, RegExp, Record<string, string>?][] = [
      ['readable by others', async () => {
        await writeFile(keyFile, good, { mode: 0o600 });
        await chmod(keyFile, 0o644);
      }, /can be read or written by others \(mode 644\)/],
      ['a link', async () => {
        await writeFile(join(home, 'elsewhere'), good, { mode: 0o600 });
        await symlink(join(home, 'elsewhere'), keyFile);
      }, /is a symbolic link/],
      ['not hex', () => writeFile(keyFile, 'not a key\n', { mode: 0o600 }), /does not hold 64 hex digits/],
      ['a directory', () => mkdir(keyFile), /is not a regular file/],
      ['given in the environment, but not a key', async () => undefined, /LEDGERBOARD_CACHE_KEY is not 64 hex digits/, { LEDGERBOARD_CACHE_KEY: 'xyz' }],
      ['inside the board', async () => undefined, /lies inside the board directory/, { XDG_CONFIG_HOME: join(dir, '.config') }],
    ];
    for (const [what, make, said, extra] of cases) {
      await rm(keyFile, { recursive: true, force: true });
      await writeFile(keyFile, good, { mode: 0o600 });
      if (extra === undefined) {
        await rm(keyFile);
        await make();
      }
      const result = await run(['report', '--json', '--cache', 'kept'], dir, { ...env, ...extra });
      expect(result.code, what).toBe(0);
      expect(result.stderr, what).toMatch(/verification cache off: /);
      expect(result.stderr, what).toMatch(said);
      expect(result.stderr, what).toMatch(/every bundle verified in full/);
      expect(result.stderr, what).not.toMatch(/bundles reused/);
    }
    // Nothing was made inside the board.
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'kept', 'ledgerboard.config.json']);
  }, 300_000);
});
