/**
 * The output stamp (src/site/build/output-stamp.ts): a build of the same inputs
 * into an output that still holds exactly the site it built leaves it as it
 * is (not one file written again); any difference in the output (a changed
 * byte, a file added or removed, a mode, a link) or in the stamp entry is
 * built in full and gives the same site; a change of input changes the key;
 * --no-cache always builds. Run as a user runs `build`. And hashFiles gives
 * the same digests on one thread and on two.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fileTree } from '../helpers/file-tree.ts';
import { hashFiles, hashOne } from '../../src/site/build/hash-files.ts';
import { listOutput, OUTPUT_STAMP_FORMAT, outputKey, readOutputStamp, type OutputInputs } from '../../src/site/build/output-stamp.ts';
import { parseConfig } from '../../src/config/config.ts';
import { sealHeader, testCache } from '../helpers/cache-store.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-stamp-'));
  scratch.push(dir);
  return dir;
}

const build = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, [join(process.cwd(), 'bin', 'ledgerboard.mjs'), 'build', '--bundles', 'content/bundles', ...args], {
    env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1', ...env },
    maxBuffer: 1 << 26,
  });

const tree = fileTree;

const LEFT = /build: the output already holds the site of these inputs \(\d+ files hashed, every one as built\): left as it is/;

describe('the output stamp', () => {
  it('a rebuild with nothing changed leaves the output as it is; any difference in it is built again, to the same site', async () => {
    const dir = await tempDir();
    const cache = join(dir, 'cache');
    const out = join(dir, 'site');
    const first = await build(['--cache', cache, '--out', out]);
    expect(first.stderr).toMatch(/build: rendering pages/);
    expect(first.stderr).not.toMatch(LEFT);
    const stamps = (await readdir(cache)).filter((n) => n.startsWith('site-'));
    expect(stamps).toHaveLength(1);
    expect(stamps[0]).toMatch(/^site-[0-9a-f]{64}\.json$/);
    const site = await tree(out);
    const blob = Object.keys(site).find((p) => p.startsWith('blobs/'))!;
    const page = Object.keys(site).find((p) => p.startsWith('boards/') && p.endsWith('index.html'))!;
    const inode = (await stat(join(out, 'index.html'))).ino;

    // Nothing changed: not one file written (the same inode), the same summary line.
    const second = await build(['--cache', cache, '--out', out]);
    expect(second.stderr).toMatch(LEFT);
    expect(second.stderr).not.toMatch(/rendering pages|writing raw evidence/);
    expect(second.stderr.split('\n').at(-2)).toBe(first.stderr.split('\n').at(-2));
    expect((await stat(join(out, 'index.html'))).ino).toBe(inode);
    expect(await tree(out)).toEqual(site);

    // Each difference in the output: built again, and the site is the one built first.
    const damages: [string, () => Promise<void>][] = [
      ['a flipped byte in a blob', async () => {
        const bytes = await readFile(join(out, blob));
        bytes[0]! ^= 1;
        await writeFile(join(out, blob), bytes);
      }],
      ['a file added', () => writeFile(join(out, 'extra.html'), 'not built')],
      ['an empty directory added', () => mkdir(join(out, 'empty'))],
      ['a page removed', () => unlink(join(out, page))],
      ['a mode changed', () => chmod(join(out, 'index.html'), 0o600)],
      ['a file replaced by a link to the same bytes', async () => {
        await writeFile(join(dir, 'outside.html'), await readFile(join(out, 'index.html')));
        await unlink(join(out, 'index.html'));
        await symlink(join(dir, 'outside.html'), join(out, 'index.html'));
      }],
    ];
    for (const [what, damage] of damages) {
      await damage();
      const again = await build(['--cache', cache, '--out', out]);
      expect(again.stderr, what).not.toMatch(LEFT);
      expect(again.stderr, what).toMatch(/build: pages: the render of the same model and site code, from the cache/);
      expect(await tree(out), what).toEqual(site);
      expect((await lstat(join(out, 'index.html'))).isFile(), what).toBe(true);
    }

    // A stamp entry that does not check (one flipped byte): ignored, built in full, rewritten.
    const entry = join(cache, stamps[0]!);
    const good = await readFile(entry);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 5]! ^= 1;
    await writeFile(entry, flipped);
    const damaged = await build(['--cache', cache, '--out', out]);
    expect(damaged.stderr).not.toMatch(LEFT);
    expect(await tree(out)).toEqual(site);
    expect((await readFile(entry)).equals(good)).toBe(true);
    expect((await build(['--cache', cache, '--out', out])).stderr).toMatch(LEFT);

    // Another input (SOURCE_DATE_EPOCH): another key, so built in full (the demo is dated: the same site).
    const dated = await build(['--cache', cache, '--out', out], { SOURCE_DATE_EPOCH: '1700000000' });
    expect(dated.stderr).not.toMatch(LEFT);
    expect(await tree(out)).toEqual(site);

    // --no-cache: always built in full.
    const plain = await build(['--no-cache', '--out', out]);
    expect(plain.stderr).toMatch(/build: rendering pages/);
    expect(plain.stderr).not.toMatch(LEFT);
    expect(await tree(out)).toEqual(site);
  }, 300_000);

  it('the key follows every input: report, config, bundle entries, the retained and attestations directories, the source date', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'reports'));
    await writeFile(join(dir, 'reports', 'a.json'), '{}');
    const config = parseConfig(Buffer.from('{}'), 'ledgerboard.config.json');
    const base: OutputInputs = {
      report: { report_id: `sha256:${'11'.repeat(32)}` } as OutputInputs['report'],
      bundles: [{ content_digest: `sha256:${'22'.repeat(32)}`, entries: [{ path: 'manifest.json', kind: 'file', sha256: `sha256:${'33'.repeat(32)}`, bytes: 10 }], verification: { status: 'verified' } }],
      config,
      retainedDir: join(dir, 'reports'),
      attestationsDir: join(dir, 'attestations'),
      sourceDate: null,
    };
    const key = await outputKey(base);
    expect(key).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await outputKey({ ...base })).toBe(key);
    const variants: [string, OutputInputs | (() => Promise<void>)][] = [
      ['another report', { ...base, report: { report_id: `sha256:${'12'.repeat(32)}` } as OutputInputs['report'] }],
      ['another config', { ...base, config: parseConfig(Buffer.from('{"title":"Another"}'), 'ledgerboard.config.json') }],
      ['another status', { ...base, bundles: [{ ...base.bundles[0]!, verification: { status: 'invalid' } }] }],
      ['another entry size', { ...base, bundles: [{ ...base.bundles[0]!, entries: [{ ...base.bundles[0]!.entries[0]!, bytes: 11 }] }] }],
      ['another source date', { ...base, sourceDate: '2026-01-01T00:00:00Z' }],
      ['a retained file changed', () => writeFile(join(dir, 'reports', 'a.json'), '{ }')],
      ['a retained file added', () => writeFile(join(dir, 'reports', 'b.json'), '{}')],
      ['an attestations directory made', () => mkdir(join(dir, 'attestations'))],
    ];
    const seen = new Set([key]);
    for (const [what, variant] of variants) {
      const inputs = typeof variant === 'function' ? (await variant(), base) : variant;
      const changed = await outputKey(inputs);
      expect(seen.has(changed), what).toBe(false);
      seen.add(changed);
    }
  });

  it('readOutputStamp takes only a sealed listing with plain paths under its own key; listOutput refuses links and other modes', async () => {
    const cache = await tempDir();
    const key = `sha256:${'ab'.repeat(32)}`;
    const seal = async (value: unknown, as = key) => {
      const body = Buffer.from(JSON.stringify(value), 'utf8');
      const header = sealHeader(OUTPUT_STAMP_FORMAT, as, body);
      await writeFile(join(cache, `site-${key.slice(7)}.json`), Buffer.concat([Buffer.from(header, 'latin1'), body]));
    };
    const good = { dirs: ['a'], files: [['a/index.html', 3, 'cd'.repeat(32)]], pages: 1, count: 0 };
    await seal(good);
    expect(await readOutputStamp(testCache(cache), key)).toEqual(good);
    const refused: [string, unknown, string?][] = [
      ['a path out of the output', { ...good, files: [['../x', 3, 'cd'.repeat(32)]] }],
      ['an absolute directory', { ...good, dirs: ['/etc'] }],
      ['a digest that is not hex', { ...good, files: [['index.html', 3, 'zz']] }],
      ['a negative size', { ...good, files: [['index.html', -1, 'cd'.repeat(32)]] }],
      ['no counts', { dirs: [], files: [] }],
      ['another key in the line', good, `sha256:${'cd'.repeat(32)}`],
    ];
    for (const [what, value, as] of refused) {
      await seal(value, as);
      expect(await readOutputStamp(testCache(cache), key), what).toBeNull();
    }

    const out = await tempDir();
    await chmod(out, 0o755);
    await mkdir(join(out, 'a'), { mode: 0o755 });
    await writeFile(join(out, 'a', 'index.html'), 'abc', { mode: 0o644 });
    await chmod(join(out, 'a'), 0o755);
    await chmod(join(out, 'a', 'index.html'), 0o644);
    const listing = await listOutput(out, { pages: 1, count: 0 });
    expect(listing).toEqual({ dirs: ['a'], files: [['a/index.html', 3, createHash('sha256').update('abc').digest('hex')]], pages: 1, count: 0 });
    expect(await listOutput(out, listing!, listing!)).toEqual(listing);
    await symlink(join(out, 'a', 'index.html'), join(out, 'link.html'));
    expect(await listOutput(out, listing!)).toBeNull();
  });

  it('hashFiles: the same digests on one thread and on two; a link or a missing file is null', async () => {
    const dir = await tempDir();
    const paths: string[] = [];
    for (let i = 0; i < 40; i++) {
      const path = join(dir, `f${i}`);
      await writeFile(path, Buffer.alloc(i * 40_000 + 1, i));
      paths.push(path);
    }
    await symlink(paths[0]!, join(dir, 'link'));
    paths.push(join(dir, 'link'), join(dir, 'missing'));
    const expected = await Promise.all(paths.slice(0, 40).map(async (p) => createHash('sha256').update(await readFile(p)).digest('hex')));
    const buffer = Buffer.alloc(4096);
    expect(paths.map((p) => hashOne(p, buffer))).toEqual([...expected, null, null]);
    expect(await hashFiles(paths, 0)).toEqual([...expected, null, null]);
    // A total over the threshold: a worker thread hashes beside this one.
    expect(await hashFiles(paths, Number.MAX_SAFE_INTEGER)).toEqual([...expected, null, null]);
  });
});
