/**
 * The safe-file primitives' read half (src/files/read.ts): a symbolic link
 * is refused, a FIFO is refused without blocking, a file over the bound is
 * refused, and the streamed SHA-256 is node:crypto's over the same bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashFdSync, hashFileNoFollowSync, hashHandle, openNoFollow, openNoFollowSync, readRegularFile, readRegularFileSync } from '../../src/files/read.ts';

const dir = mkdtempSync(join(tmpdir(), 'lb-files-'));
afterAll(() => execFileSync('rm', ['-rf', dir]));

const bytes = randomBytes(3 * (1 << 20) + 12345); // more than three 1 MiB reads
const file = join(dir, 'data.bin');
writeFileSync(file, bytes);
const link = join(dir, 'link.bin');
symlinkSync(file, link);
const fifo = join(dir, 'pipe');
execFileSync('mkfifo', [fifo]);
const sub = join(dir, 'sub');
mkdirSync(sub);
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** Resolves to 'timeout' when `work` takes more than `ms` (a FIFO open that blocked would). */
async function within<T>(ms: number, work: Promise<T>): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('open without following links', () => {
  it('a symbolic link is refused with ELOOP, sync and async; the file itself opens', async () => {
    await expect(openNoFollow(link)).rejects.toMatchObject({ code: 'ELOOP' });
    expect(() => openNoFollowSync(link)).toThrow(expect.objectContaining({ code: 'ELOOP' }));
    const handle = await openNoFollow(file);
    expect((await handle.stat()).size).toBe(bytes.length);
    await handle.close();
  });

  it('a FIFO with no writer opens at once (no block) and is no regular file: null, well within a second', async () => {
    expect(await within(1000, readRegularFile(fifo, 1 << 20))).toBeNull();
    const started = Date.now();
    expect(readRegularFileSync(fifo, 1 << 20)).toBeNull();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('readRegularFile gives the bytes up to the bound, null past it, for a link, a directory or a missing file', async () => {
    expect((await readRegularFile(file, bytes.length))?.equals(bytes)).toBe(true);
    expect(readRegularFileSync(file, bytes.length)?.equals(bytes)).toBe(true);
    expect(await readRegularFile(file, bytes.length - 1)).toBeNull();
    expect(readRegularFileSync(file, bytes.length - 1)).toBeNull();
    expect(await readRegularFile(link, bytes.length)).toBeNull();
    expect(readRegularFileSync(link, bytes.length)).toBeNull();
    expect(await readRegularFile(sub, bytes.length)).toBeNull();
    expect(await readRegularFile(join(dir, 'missing'), 10)).toBeNull();
  });
});

describe('streamed SHA-256', () => {
  it("equals node:crypto's digest over the bytes, whatever the buffer size", async () => {
    for (const size of [1000, 4096, 1 << 20]) {
      const handle = await openNoFollow(file);
      expect(await hashHandle(handle, Buffer.alloc(size))).toEqual({ hex: sha(bytes), bytes: bytes.length });
      await handle.close();
    }
    const fd = openNoFollowSync(file);
    expect(hashFdSync(fd, Buffer.alloc(7777))).toBe(sha(bytes));
    closeSync(fd);
    expect(hashFileNoFollowSync(file, Buffer.alloc(1 << 20))).toBe(sha(bytes));
    expect(hashFileNoFollowSync(link, Buffer.alloc(1 << 20))).toBeNull();
    expect(hashFileNoFollowSync(sub, Buffer.alloc(1 << 20))).toBeNull();
  });

  it('stops past its bound with null, and shows every chunk at its offset', async () => {
    const handle = await openNoFollow(file);
    expect(await hashHandle(handle, Buffer.alloc(1 << 20), bytes.length - 1)).toBeNull();
    const seen: Buffer[] = [];
    const offsets: number[] = [];
    const each = (chunk: Buffer, offset: number): void => {
      seen.push(Buffer.from(chunk));
      offsets.push(offset);
    };
    expect(await hashHandle(handle, Buffer.alloc(1 << 20), bytes.length, each)).toEqual({ hex: sha(bytes), bytes: bytes.length });
    expect(offsets).toEqual([0, 1 << 20, 2 << 20, 3 << 20]);
    expect(Buffer.concat(seen).equals(bytes)).toBe(true);
    await handle.close();
  });
});
