/**
 * Fuzzing cache entries (issue 25): a real verification-cache entry, then a
 * generated change to it (bytes flipped, cut, appended; its line's format,
 * key or seal rewritten; resealed with a secret the run does not hold; a
 * payload resealed with the run's own secret but not a result; the file
 * replaced by a link, a FIFO, a directory or a sparse file past the bound).
 * The property: reading it never throws, finishes within a bound, and gives
 * the kept result only for the bytes written by the run itself; anything a
 * stranger wrote is null (and a payload the run's own key sealed that is
 * not a result is null too). Fixed seed, 300 runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_FORMAT, readCached } from '../../src/pipeline/verify-cache.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { sealHeader, STRANGER_SECRET, testCache } from '../helpers/cache-store.ts';

let dir = '';
let good: Buffer;
let key = '';
let name = '';
const cache = () => testCache(join(dir, 'cache'));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-cache-fuzz-'));
  await verifyPaths(['content/bundles/2026-09-14-widget-bugs'], undefined, { workers: 0, cache: cache() });
  name = (await readdir(cache().dir)).filter((n) => n.endsWith('.v8'))[0]!;
  good = await readFile(join(cache().dir, name!));
  key = `sha256:${name!.slice(0, 64)}`;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Change =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'cut'; at: number }
  | { kind: 'append'; bytes: Uint8Array }
  | { kind: 'line'; part: 0 | 1 | 2; text: string }
  | { kind: 'stranger'; flip: number | null }
  | { kind: 'own-seal'; value: unknown }
  | { kind: 'file'; what: 'link-zero' | 'link-good' | 'fifo' | 'directory' | 'sparse' };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }) }),
  fc.record({
    kind: fc.constant('line' as const),
    part: fc.constantFrom(0 as const, 1 as const, 2 as const),
    text: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('', 'sha256:', `hmac-sha256:${'0'.repeat(64)}`, 'ledgerboard.verify-cache.v0', `sha256:${'f'.repeat(64)}`, '\u0000', 'x'.repeat(600))),
  }),
  fc.record({ kind: fc.constant('stranger' as const), flip: fc.option(fc.nat(), { nil: null }) }),
  fc.record({ kind: fc.constant('own-seal' as const), value: fc.oneof(fc.jsonValue(), fc.record({ key: fc.constant('KEY'), wire: fc.jsonValue() }), fc.constant({ key: 'KEY', wire: { verification: 1 } })) }),
  fc.record({ kind: fc.constant('file' as const), what: fc.constantFrom('link-zero' as const, 'link-good' as const, 'fifo' as const, 'directory' as const, 'sparse' as const) }),
);

/** Makes the entry file as the change says; true when the bytes are exactly the run's own entry. */
async function apply(c: Change, path: string): Promise<boolean> {
  await rm(path, { recursive: true, force: true });
  const newline = good.indexOf(0x0a);
  const body = good.subarray(newline + 1);
  switch (c.kind) {
    case 'flip': {
      const bytes = Buffer.from(good);
      bytes[c.at % bytes.length]! ^= 1 << c.bit;
      await writeFile(path, bytes);
      return false;
    }
    case 'cut':
      await writeFile(path, good.subarray(0, c.at % good.length));
      return false;
    case 'append':
      await writeFile(path, Buffer.concat([good, c.bytes]));
      return false;
    case 'line': {
      const parts = good.subarray(0, newline).toString('latin1').split(' ');
      if (parts[c.part] === c.text) return apply({ kind: 'cut', at: 0 }, path);
      parts[c.part] = c.text;
      await writeFile(path, Buffer.concat([Buffer.from(`${parts.join(' ')}\n`, 'utf8'), body]));
      return false;
    }
    case 'stranger': {
      const payload = Buffer.from(body);
      if (c.flip !== null) payload[c.flip % payload.length]! ^= 1;
      await writeFile(path, Buffer.concat([Buffer.from(sealHeader(CACHE_FORMAT, key, payload, STRANGER_SECRET), 'latin1'), payload]));
      return false;
    }
    case 'own-seal': {
      const value = JSON.parse(JSON.stringify(c.value).replaceAll('"KEY"', JSON.stringify(key))) as unknown;
      const payload = serialize(value);
      await writeFile(path, Buffer.concat([Buffer.from(sealHeader(CACHE_FORMAT, key, payload), 'latin1'), payload]));
      return false;
    }
    case 'file':
      if (c.what === 'link-zero') await symlink('/dev/zero', path);
      else if (c.what === 'link-good') {
        // Even a link to the run's own entry is not followed.
        await writeFile(join(dir, 'elsewhere.v8'), good);
        await symlink(join(dir, 'elsewhere.v8'), path);
      } else if (c.what === 'fifo') execFileSync('mkfifo', [path]);
      else if (c.what === 'directory') await mkdir(path);
      else {
        await writeFile(path, good);
        await truncate(path, 2 ** 31 + 10);
      }
      return false;
  }
}

describe('cache entries, fuzzed', () => {
  it('never throw, finish within a bound, and give the kept result only for the run\'s own bytes', async () => {
    const path = join(cache().dir, name);
    const kept = await readCached(cache(), key);
    expect(kept).not.toBeNull();
    await fc.assert(
      fc.asyncProperty(change, async (c) => {
        const own = await apply(c, path);
        const started = performance.now();
        const read = await readCached(cache(), key);
        expect(performance.now() - started).toBeLessThan(5_000);
        if (own) expect(read).not.toBeNull();
        else expect(read).toBeNull();
      }),
      { seed: 25, numRuns: 300 },
    );
    // Every kind was tried.
    await writeFile(path, good);
    expect(await readCached(cache(), key)).not.toBeNull();
  }, 120_000);
});
