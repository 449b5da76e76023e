/**
 * hashHandle (and its descriptor twins hashFd and hashFdSync, one loop
 * driven three ways) keeps a structured file's bytes in one buffer sized from fstat
 * (or in memory the caller lends, from a ContentArena), and still reads a
 * file to its end when it is longer than fstat said.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ContentArena } from '../../src/evidence/arena.ts';
import { HASH_CHUNK_BYTES, hashFd, hashFdSync, hashHandle, type HashResult } from '../../src/evidence/hash-file.ts';

const file = join(tmpdir(), `ledgerboard-hash-file-${process.pid}.bin`);
afterAll(() => rm(file, { force: true }));

type Driver = 'handle' | 'fd' | 'fd-sync';
const DRIVERS: Driver[] = ['handle', 'fd', 'fd-sync'];

async function hashWith(driver: Driver, bytes: Buffer, keep: boolean, expected: number, into?: Buffer): Promise<HashResult> {
  await writeFile(file, bytes);
  if (driver === 'handle') {
    const handle = await open(file, 'r');
    try {
      return await hashHandle(handle, keep, expected, into);
    } finally {
      await handle.close();
    }
  }
  const fd = openSync(file, 'r');
  try {
    return driver === 'fd' ? await hashFd(fd, keep, expected, into) : hashFdSync(fd, keep, expected, into);
  } finally {
    closeSync(fd);
  }
}

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe.each(DRIVERS)('hashing through %s', (driver) => {
  const hashOf = (bytes: Buffer, keep: boolean, expected: number, into?: Buffer) => hashWith(driver, bytes, keep, expected, into);
  const sizes = [0, 1, 4095, 4096, 65537, HASH_CHUNK_BYTES, HASH_CHUNK_BYTES + 3, 3 * HASH_CHUNK_BYTES + 17];
  for (const size of sizes) {
    it(`${size} bytes: digest, size and kept bytes, with fstat's size, a smaller one, or lent memory`, async () => {
      const bytes = Buffer.alloc(size, 0);
      for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 0xff;
      for (const expected of [size, 0, Math.floor(size / 3)]) {
        const kept = await hashOf(bytes, true, expected);
        expect(kept.sha256).toBe(sha(bytes));
        expect(kept.bytes).toBe(size);
        expect(Buffer.compare(kept.content!, bytes)).toBe(0);
      }
      const streamed = await hashOf(bytes, false, size);
      expect(streamed).toEqual({ sha256: sha(bytes), bytes: size, content: null });
      const arena = new ContentArena();
      const lent = await hashOf(bytes, true, size, arena.take('attempts.jsonl', size));
      expect(lent.sha256).toBe(sha(bytes));
      expect(Buffer.compare(lent.content!, bytes)).toBe(0);
    });
  }
});

describe('ContentArena', () => {
  it('lends the same memory for the same path when it fits, and new memory when it does not', () => {
    const arena = new ContentArena();
    const a = arena.take('attempts.jsonl', 1000);
    expect(a.length).toBe(1000);
    const b = arena.take('attempts.jsonl', 1100);
    expect(b.buffer).toBe(a.buffer);
    const c = arena.take('attempts.jsonl', 5000);
    expect(c.length).toBe(5000);
    expect(c.buffer).not.toBe(a.buffer);
    expect(arena.take('ledger.jsonl', 10).buffer).not.toBe(c.buffer);
    expect(arena.take('empty', 0).length).toBe(1);
  });
});
