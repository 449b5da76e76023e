/**
 * The safe-file primitives' write half (src/files/atomic.ts): the target
 * holds the old bytes or the new ones, never half; a failed write leaves no
 * temporary file and throws; the mode is the one asked for.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ATOMIC_TEMP_NAME, temporaryBeside, writeFileAtomic } from '../../src/files/atomic.ts';

const dir = mkdtempSync(join(tmpdir(), 'lb-atomic-'));
afterAll(() => execFileSync('rm', ['-rf', dir]));

const SETPRIV = '/usr/bin/setpriv';
/**
 * Permissions do not stop root, and CI runs as root: there the write runs in
 * a child process without the two capabilities that let root ignore
 * permission bits (util-linux's setpriv drops CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH, as test/evidence/discover.test.ts does). The child runs
 * the compiled module (lib/files/atomic.js, which imports only node:), copied
 * into this test's own directory so that it is reachable wherever the
 * checkout sits. Root without setpriv cannot be stopped, and skips the check.
 */
const asRoot = process.getuid?.() === 0;
const dropCapabilities = asRoot && existsSync(SETPRIV);

/** writeFileAtomic(path, bytes) as a process that permissions apply to: rejects with the error's code, as writeFileAtomic does. */
async function writeAsUnprivileged(path: string, bytes: string): Promise<void> {
  if (!dropCapabilities) return writeFileAtomic(path, Buffer.from(bytes));
  const module = join(dir, 'atomic.js');
  if (!existsSync(module)) copyFileSync(fileURLToPath(new URL('../../lib/files/atomic.js', import.meta.url)), module);
  const script = `const { writeFileAtomic } = await import(process.argv[1]);
    await writeFileAtomic(process.argv[2], Buffer.from(process.argv[3])).catch((e) => { process.stdout.write(String(e.code)); process.exitCode = 1; });`;
  const argv = ['--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-all', '--', process.execPath, '--input-type=module', '-e', script, '--', pathToFileURL(module).href, path, bytes];
  const failed = await promisify(execFile)(SETPRIV, argv).then(
    () => null,
    (e: { stdout: string; stderr: string }) => e,
  );
  if (failed) throw Object.assign(new Error(`the unprivileged write failed: ${failed.stdout} ${failed.stderr}`), { code: failed.stdout });
}

describe('writeFileAtomic', () => {
  it('writes the bytes whole, replaces an existing file, with the mode asked for, and leaves no temporary file', async () => {
    const sub = join(dir, 'ok');
    mkdirSync(sub);
    const path = join(sub, 'a.json');
    writeFileSync(path, 'old bytes');
    await writeFileAtomic(path, [Buffer.from('new '), Buffer.from('bytes\n')], { mode: 0o600, fsync: true });
    expect(readFileSync(path, 'utf8')).toBe('new bytes\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(sub)).toEqual(['a.json']);
  });

  it('a write that fails at the rename throws, leaves what was there, and removes its temporary file', async () => {
    const sub = join(dir, 'fails');
    mkdirSync(sub);
    const path = join(sub, 'target');
    // The target is a non-empty directory: the rename over it fails after the temporary file was written.
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), 'x');
    await expect(writeFileAtomic(path, Buffer.from('x'.repeat(100_000)))).rejects.toMatchObject({ code: expect.stringMatching(/^(EISDIR|ENOTEMPTY|EEXIST)$/) });
    expect(readdirSync(sub)).toEqual(['target']);
    expect(readFileSync(join(path, 'inside'), 'utf8')).toBe('x');
  });

  it('a write into a directory it cannot write throws EACCES and leaves the old file', async () => {
    if (asRoot && !dropCapabilities) return; // root with every capability writes anywhere (see writeAsUnprivileged)
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    writeFileSync(join(locked, 'f'), 'before');
    chmodSync(locked, 0o500);
    try {
      await expect(writeAsUnprivileged(join(locked, 'f'), 'after')).rejects.toMatchObject({ code: 'EACCES' });
      expect(readdirSync(locked)).toEqual(['f']);
      expect(readFileSync(join(locked, 'f'), 'utf8')).toBe('before');
    } finally {
      chmodSync(locked, 0o700);
    }
  });

  it('a reader racing the writes sees the old bytes or the new ones, never a part', async () => {
    const sub = join(dir, 'race');
    mkdirSync(sub);
    const path = join(sub, 'file');
    const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(256 * 1024, 65 + i));
    writeFileSync(path, versions[0]!);
    const torn: string[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const got = readFileSync(path);
        if (got.length !== 256 * 1024 || !got.every((b) => b === got[0])) torn.push(`${got.length} bytes`);
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let round = 0; round < 5; round++) for (const v of versions) await writeFileAtomic(path, v);
    reading = false;
    await reader;
    expect(torn).toEqual([]);
    expect(readFileSync(path).equals(versions[7]!)).toBe(true);
    expect(readdirSync(sub)).toEqual(['file']);
  });

  it('the temporary name is beside the target: <path>.<pid>.<12 hex>.tmp', () => {
    const name = temporaryBeside('/x/y/report.json');
    expect(name.startsWith(`/x/y/report.json.${process.pid}.`)).toBe(true);
    expect(name).toMatch(ATOMIC_TEMP_NAME);
  });
});
