/**
 * The render cache (src/site/build/render-cache.ts): a build whose site model and
 * site code are those of a kept render takes the kept pages, and the site is
 * byte for byte the one a fresh render gives; a kept render that does not
 * check (a flipped byte, a path that would leave the output, a duplicate
 * path, not a list of files, another key) is ignored and the pages rendered
 * again; --no-cache keeps no render. Run as a user runs `build`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { fileTree } from '../helpers/file-tree.ts';
import { readKeptRender, RENDER_CACHE_FORMAT } from '../../src/site/build/render-cache.ts';
import { sealHeader, testCache } from '../helpers/cache-store.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-render-'));
  scratch.push(dir);
  return dir;
}

const build = (args: string[]) =>
  promisify(execFile)(process.execPath, [join(process.cwd(), 'bin', 'ledgerboard.mjs'), 'build', '--bundles', 'content/bundles', ...args], {
    env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 1 << 26,
  });

const tree = fileTree;

const renders = async (cache: string) => (await readdir(cache).catch(() => [] as string[])).filter((n) => n.startsWith('render-'));

describe('the render cache', () => {
  it('a second build takes the kept render: the same site byte for byte; a damaged entry is rendered again and rewritten; --no-cache keeps none', async () => {
    const dir = await tempDir();
    const cache = join(dir, 'cache');
    const first = await build(['--cache', cache, '--out', join(dir, 'a')]);
    expect(first.stderr).toMatch(/build: rendering pages/);
    const [entry] = await renders(cache);
    expect(entry).toMatch(/^render-[0-9a-f]{64}\.v8$/);
    const good = await readFile(join(cache, entry!));
    expect(good.subarray(0, good.indexOf(0x0a)).toString('latin1')).toMatch(new RegExp(`^${RENDER_CACHE_FORMAT.replaceAll('.', '\\.')} sha256:[0-9a-f]{64} hmac-sha256:[0-9a-f]{64}$`));

    const second = await build(['--cache', cache, '--out', join(dir, 'b')]);
    expect(second.stderr).toMatch(/build: pages: the render of the same model and site code, from the cache/);
    expect(second.stderr).not.toMatch(/rendering pages/);
    const a = await tree(join(dir, 'a'));
    expect(Object.keys(a).length).toBeGreaterThan(100);
    expect(await tree(join(dir, 'b'))).toEqual(a);

    // One flipped byte: not trusted, rendered again, the same site, the entry rewritten.
    const flipped = Buffer.from(good);
    flipped[flipped.length - 10]! ^= 1;
    await writeFile(join(cache, entry!), flipped);
    const third = await build(['--cache', cache, '--out', join(dir, 'c')]);
    expect(third.stderr).toMatch(/build: rendering pages/);
    expect(await tree(join(dir, 'c'))).toEqual(a);
    expect((await readFile(join(cache, entry!))).equals(good)).toBe(true);

    // --no-cache: rendered, and nothing kept beside the config (where the cache would be by default).
    await writeFile(join(dir, 'ledgerboard.config.json'), '{}\n');
    const plain = await build(['--config', join(dir, 'ledgerboard.config.json'), '--bundles', join(process.cwd(), 'content', 'bundles'), '--no-cache', '--out', join(dir, 'd')]);
    expect(plain.stderr).toMatch(/build: rendering pages/);
    expect(await readdir(dir)).not.toContain('.ledgerboard-cache');
  }, 300_000);

  it('readKeptRender takes only a sealed list of files with plain, distinct relative paths under its own key', async () => {
    const cache = await tempDir();
    const key = `sha256:${'ab'.repeat(32)}`;
    const seal = async (value: unknown, as = key) => {
      const body = serialize(value);
      const header = sealHeader(RENDER_CACHE_FORMAT, as, body);
      await writeFile(join(cache, `render-${key.slice(7)}.v8`), Buffer.concat([Buffer.from(header, 'latin1'), body]));
    };
    const page = { path: 'index.html', bytes: new Uint8Array([60, 112, 62]) };
    await seal([page, { path: 'boards/x/index.html', bytes: new Uint8Array([1]) }]);
    expect((await readKeptRender(testCache(cache), key))?.map((f) => f.path)).toEqual(['index.html', 'boards/x/index.html']);
    const refused: [string, unknown, string?][] = [
      ['a path out of the output', [page, { path: '../escape.html', bytes: new Uint8Array(1) }]],
      ['an absolute path', [{ path: '/etc/passwd', bytes: new Uint8Array(1) }]],
      ['an empty segment', [{ path: 'a//b.html', bytes: new Uint8Array(1) }]],
      ['a backslash', [{ path: 'a\\..\\b', bytes: new Uint8Array(1) }]],
      ['a duplicate path', [page, page]],
      ['bytes that are not bytes', [{ path: 'index.html', bytes: 'text' }]],
      ['not a list', { path: 'index.html' }],
      ['an empty list', []],
      ['another key in the line', [page], `sha256:${'cd'.repeat(32)}`],
    ];
    for (const [what, value, as] of refused) {
      await seal(value, as);
      expect(await readKeptRender(testCache(cache), key), what).toBeNull();
    }
    expect(await readKeptRender(testCache(cache), `sha256:${'ef'.repeat(32)}`)).toBeNull();
  });
});
