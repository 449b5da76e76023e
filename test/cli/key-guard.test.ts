/**
 * `keygen` and `sign` keep a private key out of every directory that is
 * published or kept as history (issue 25, Medium): decided by the real path
 * and the device and inode of each ancestor, not by the path's spelling. A
 * link (to a directory, to the file itself, a dangling one mkdir -p would
 * follow) or a bind mount into the evidence, the retained reports, the
 * attestations, the output beside the config or in the working directory, or
 * sign's --bundles, is refused with exit 2 and nothing is written there.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'ledgerboard.mjs');

let dir: string;
let config: string;
let key: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-key-guard-'));
  // Two evidence directories (a list in the config), the history, the attestations and dist/ beside the config, all existing.
  await cp(join(root, 'content/bundles'), join(dir, 'evidence'), { recursive: true });
  for (const sub of ['imported', 'content/reports', 'content/attestations', 'dist', 'elsewhere']) await mkdir(join(dir, sub), { recursive: true });
  config = join(dir, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ bundles_dir: ['evidence', 'imported'] }));
  const made = await runCli(['keygen', '-o', join(dir, 'keys'), '--config', config]);
  expect(made.code, made.stderr).toBe(0);
  key = /^private key (.+) \(mode 0600/m.exec(made.stdout)![1]!;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Every private key file anywhere under `under` (links not followed). */
async function keysUnder(under: string): Promise<string[]> {
  return (await readdir(under, { recursive: true })).filter((name) => name.endsWith('.key'));
}

const GUARDED = [
  ['evidence', 'the evidence directory'],
  ['evidence/2026-09-14-widget-bugs', 'the evidence directory'],
  ['imported', 'the evidence directory'],
  ['content/reports', 'the retained reports directory'],
  ['content/attestations', 'the attestations directory'],
  ['dist', 'the default output directory'],
] as const;

describe('keygen -o through a link or a mount', () => {
  it.each(GUARDED)('a link to %s (and a path below the link) is refused: exit 2, naming %s and the real path; no key there', async (target, what) => {
    const link = join(dir, 'elsewhere', `to-${target.replaceAll('/', '-')}`);
    await symlink(join(dir, target), link);
    for (const out of [link, join(link, 'keys')]) {
      const run = await runCli(['keygen', '-o', out, '--config', config]);
      expect(run.code, `${out}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`lies inside ${what}`);
      expect(run.stderr).toContain(`(really ${join(dir, target)}`);
    }
    expect(await keysUnder(join(dir, target))).toEqual([]);
  });

  it('a dangling link whose target mkdir -p would create inside the evidence, and a link to the directory above it, are refused', async () => {
    const dangling = join(dir, 'elsewhere', 'dangling');
    await symlink(join(dir, 'evidence', 'not-yet', 'deeper'), dangling);
    const above = join(dir, 'elsewhere', 'above');
    await symlink(dir, above);
    for (const out of [dangling, join(dangling, 'keys'), join(above, 'evidence', 'new'), join(above, 'content', 'reports')]) {
      const run = await runCli(['keygen', '-o', out, '--config', config]);
      expect(run.code, `${out}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(/lies inside the (evidence|retained reports) directory/);
    }
    expect(await readdir(join(dir, 'evidence'))).not.toContain('not-yet');
    expect(await keysUnder(join(dir, 'evidence'))).toEqual([]);
  });

  it('dist/ in the working directory (where build writes by default) is guarded too, also through a link', async () => {
    const work = await mkdtemp(join(tmpdir(), 'lb-key-guard-cwd-'));
    try {
      await mkdir(join(work, 'dist'));
      await symlink(join(work, 'dist'), join(work, 'out-link'));
      const run = await promisify(execFile)(process.execPath, [bin, 'keygen', '-o', 'out-link/keys', '--config', config], { cwd: work }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      );
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain('lies inside the default output directory dist');
      expect(await keysUnder(join(work, 'dist'))).toEqual([]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('a bind mount of the evidence elsewhere (the same directory under another path, no link on the way) is refused', { timeout: 60_000 }, async () => {
    const mount = join(dir, 'elsewhere', 'mounted');
    await mkdir(mount);
    const unshare = process.getuid?.() === 0 ? ['-m'] : ['-rm'];
    const script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"';
    const run = await promisify(execFile)('unshare', [...unshare, 'sh', '-c', script, 'sh', join(dir, 'evidence'), mount, process.execPath, bin, 'keygen', '-o', join(mount, 'keys'), '--config', config]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    // A bind mount needs root or a user namespace: when this machine allows neither, the test fails here, with unshare's reason.
    expect(run.stderr).not.toMatch(/^unshare:|mount: /m);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('lies inside the evidence directory');
    expect(await keysUnder(join(dir, 'evidence'))).toEqual([]);
  });

  it('a directory outside every guarded one is still fine, also through a link', async () => {
    await symlink(join(dir, 'elsewhere'), join(dir, 'safe-link'));
    const run = await runCli(['keygen', '-o', join(dir, 'safe-link', 'more-keys'), '--config', config]);
    expect(run.code, run.stderr).toBe(0);
    expect(await keysUnder(join(dir, 'elsewhere', 'more-keys'))).toHaveLength(1);
  });
});

describe('sign --key through a link', () => {
  it.each(GUARDED)('a key in %s reached through a linked directory, or through a link to the file, is refused before anything is signed (exit 2, %s)', async (target, what) => {
    const inside = join(dir, target, 'planted.key');
    await writeFile(inside, await readFile(key));
    const dirLink = join(dir, 'elsewhere', `sign-${target.replaceAll('/', '-')}`);
    await symlink(join(dir, target), dirLink);
    const fileLink = join(dir, 'elsewhere', `sign-${target.replaceAll('/', '-')}.key`);
    await symlink(inside, fileLink);
    try {
      for (const path of [join(dirLink, 'planted.key'), fileLink]) {
        const run = await runCli(['sign', '--key', path, '--config', config, '--no-cache']);
        expect(run.code, `${path}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toContain(`lies inside ${what}`);
        expect(run.stderr).toContain(`(really ${inside})`);
        expect(run.stdout).toBe('');
      }
      expect((await readdir(join(dir, 'content', 'attestations'))).filter((n) => /^[0-9a-f]{64}$/.test(n))).toEqual([]);
    } finally {
      await rm(inside);
    }
  });

  it('a key inside the --bundles directory given on the command line (not the config\'s) is refused', async () => {
    const other = join(dir, 'elsewhere', 'other-bundles');
    await cp(join(root, 'content/bundles'), other, { recursive: true });
    await writeFile(join(other, 'planted.key'), await readFile(key));
    await symlink(join(other, 'planted.key'), join(dir, 'elsewhere', 'via-bundles.key'));
    const run = await runCli(['sign', '--key', join(dir, 'elsewhere', 'via-bundles.key'), '--bundles', other, '--config', config, '--no-cache']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`lies inside the evidence directory ${other}`);
  });
});
