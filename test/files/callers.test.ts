/**
 * Callers of the safe-file primitives keep their semantics: a sealed cache
 * entry round-trips (async and sync), a link, a FIFO or an entry over the
 * bound is no entry, a failed write is no error and leaves no temporary
 * file; the prefix digest of a bundle file stops at a link.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readSealed, readSealedSync, writeSealed, type CacheStore } from '../../src/cache/sealed.ts';
import { prefixDigest } from '../../src/history/prefix.ts';
import { hashOne } from '../../src/site/build/hash-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'lb-callers-'));
afterAll(() => execFileSync('rm', ['-rf', dir]));
const store: CacheStore = { dir: join(dir, 'cache'), secret: new Uint8Array(32).fill(7) };
const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

describe('cache/sealed.ts through src/files', () => {
  it('an entry written is read back, async and sync, only under its format and key', async () => {
    const path = join(store.dir, 'entry');
    await writeSealed(store, path, 'fmt.v1', 'sha256:k', 'the body\n');
    expect((await readSealed(store, path, 'fmt.v1', 'sha256:k'))?.toString()).toBe('the body\n');
    expect(readSealedSync(store, path, 'fmt.v1', 'sha256:k')?.toString()).toBe('the body\n');
    expect(await readSealed(store, path, 'fmt.v1', 'sha256:other')).toBeNull();
    expect(await readSealed({ ...store, secret: new Uint8Array(32) }, path, 'fmt.v1', 'sha256:k')).toBeNull();
    expect(readdirSync(store.dir)).toEqual(['entry']);
  });

  it('a link to an entry or a FIFO is no entry, and a write that cannot happen is no error and leaves nothing', async () => {
    const link = join(store.dir, 'link');
    symlinkSync(join(store.dir, 'entry'), link);
    expect(await readSealed(store, link, 'fmt.v1', 'sha256:k')).toBeNull();
    expect(readSealedSync(store, link, 'fmt.v1', 'sha256:k')).toBeNull();
    const fifo = join(store.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await readSealed(store, fifo, 'fmt.v1', 'sha256:k')).toBeNull();
    expect(readSealedSync(store, fifo, 'fmt.v1', 'sha256:k')).toBeNull();
    // A directory where the entry should be: the rename fails, quietly.
    const blocked = join(store.dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'x'), 'x');
    await expect(writeSealed(store, blocked, 'fmt.v1', 'sha256:k', 'body')).resolves.toBeUndefined();
    expect(readdirSync(store.dir).sort()).toEqual(['blocked', 'entry', 'fifo', 'link']);
  });
});

describe('history/prefix.ts and site/hash-files.ts through src/files', () => {
  it('the prefix digest is of the verified file, null for a link or other bytes', async () => {
    const bundle = join(dir, 'bundle');
    mkdirSync(bundle);
    const text = 'line one\nline two\n';
    writeFileSync(join(bundle, 'ledger.jsonl'), text);
    symlinkSync(join(bundle, 'ledger.jsonl'), join(bundle, 'linked.jsonl'));
    const expected = { sha256: `sha256:${sha(text)}`, bytes: text.length };
    expect(await prefixDigest(bundle, 'ledger.jsonl', 9, expected)).toBe(`sha256:${sha('line one\n')}`);
    expect(await prefixDigest(bundle, 'ledger.jsonl', text.length, expected)).toBe(expected.sha256);
    expect(await prefixDigest(bundle, 'linked.jsonl', 9, expected)).toBeNull();
    expect(await prefixDigest(bundle, 'ledger.jsonl', 9, { sha256: expected.sha256, bytes: text.length - 1 })).toBeNull();
    expect(await prefixDigest(bundle, 'ledger.jsonl', 9, { sha256: `sha256:${sha('other')}`, bytes: text.length })).toBeNull();
    expect(hashOne(join(bundle, 'ledger.jsonl'), Buffer.alloc(4))).toBe(sha(text));
    expect(hashOne(join(bundle, 'linked.jsonl'), Buffer.alloc(4))).toBeNull();
  });
});
