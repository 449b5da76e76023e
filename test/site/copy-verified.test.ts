/**
 * copyVerified (src/site/build/publish.ts) publishes one evidence file: the copy
 * is the bytes verification saw, whatever the size (through its one reused
 * buffer, across chunk boundaries), and anything else is refused with
 * EvidenceChangedError: other bytes, a link, a FIFO, a vanished file.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvidenceChangedError } from '../../src/site/build/build-errors.ts';
import { copyVerified } from '../../src/site/build/publish.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-copy-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sha = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('copyVerified', () => {
  it.each([0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 17])('copies %i bytes exactly', async (size) => {
    const bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = (i * 131 + 7) & 0xff;
    const source = join(dir, `source-${size}`);
    const copy = join(dir, `copy-${size}`);
    await writeFile(source, bytes);
    await copyVerified(source, copy, sha(bytes));
    expect(Buffer.compare(await readFile(copy), bytes)).toBe(0);
  });

  it('refuses other bytes, a link, a FIFO and a file that is gone, naming the file', async () => {
    const source = join(dir, 'changed');
    await writeFile(source, 'now\n');
    await expect(copyVerified(source, join(dir, 'c1'), sha(Buffer.from('then\n')))).rejects.toThrow(EvidenceChangedError);
    await expect(copyVerified(source, join(dir, 'c1'), sha(Buffer.from('then\n')))).rejects.toThrow(/now hashes to sha256:/);
    const link = join(dir, 'link');
    await symlink(source, link);
    await expect(copyVerified(link, join(dir, 'c2'), sha(Buffer.from('now\n')))).rejects.toThrow(/can no longer be opened \(ELOOP\)/);
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    await expect(copyVerified(fifo, join(dir, 'c3'), sha(Buffer.alloc(0)))).rejects.toThrow(/no longer a regular file/);
    await expect(copyVerified(join(dir, 'gone'), join(dir, 'c4'), sha(Buffer.alloc(0)))).rejects.toThrow(/can no longer be opened \(ENOENT\)/);
  });
});
