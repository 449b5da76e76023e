/**
 * `retain` in hostile surroundings (issue 25, Medium): a retained reports
 * directory on a read-only file system, or on a full disk, is one line naming
 * the directory and what to do (exit 2; EROFS named as such, not ENOENT),
 * never "unexpected error"; no temporary file is left, no report is written
 * (it is the commit point), every manifest that is there is whole, and
 * running retain again once there is room finishes the job.
 *
 * The file systems are real, as in test/site/build-robust.test.ts: a
 * read-only bind mount and a small tmpfs in a private mount namespace
 * (`unshare -m`, or `unshare -rm` when not root). Where neither is allowed the
 * tests fail with unshare's own message: they are never skipped.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'ledgerboard.mjs');
const unshare = process.getuid?.() === 0 ? ['-m'] : ['-rm'];
const PAGE = 4096;

let dir: string;
/** What a retain with room writes: each file's path under the retained directory, and its bytes. */
let reference: Map<string, Buffer>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-retain-env-'));
  await cp(join(root, 'content/bundles'), join(dir, 'evidence'), { recursive: true });
  await writeFile(join(dir, 'reference.json'), JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: 'reference' }));
  const run = await runCli(['retain', '--config', join(dir, 'reference.json'), '--no-cache']);
  expect(run.code, run.stderr).toBe(0);
  reference = new Map();
  for (const name of await readdir(join(dir, 'reference'), { recursive: true })) {
    const bytes = await readFile(join(dir, 'reference', name)).catch(() => null);
    if (bytes) reference.set(name, bytes);
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A config whose retained reports directory is `<dir>/<place>/reports`. */
async function configFor(place: string): Promise<string> {
  await mkdir(join(dir, place));
  const config = join(dir, `${place}.json`);
  await writeFile(config, JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: `${place}/reports` }));
  return config;
}

/** Runs `sh -c script` in a private mount namespace; `$1`... are `args`. */
async function inMountNamespace(script: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const result = await promisify(execFile)('unshare', [...unshare, 'sh', '-c', script, 'sh', ...args], { env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 1 << 24 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  // No mount namespace or no mount here (not root and no user namespaces): fail, saying so.
  expect(result.stderr, 'a private mount namespace with a bind or tmpfs mount is needed (root, or unshare -rm)').not.toMatch(/^(unshare|mount): /m);
  return result;
}

const retain = (config: string) => [process.execPath, bin, 'retain', '--config', config, '--no-cache'];

describe('retain on a read-only file system', () => {
  it('a retained reports directory still to be created under a read-only directory: exit 2, one line naming it with EROFS (not ENOENT), nothing written', { timeout: 60_000 }, async () => {
    const config = await configFor('ro-new');
    const ro = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
    const result = await inMountNamespace(ro, [join(dir, 'ro-new'), ...retain(config)]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.stderr).not.toContain('ENOENT');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      `ledgerboard: ${join(dir, 'ro-new', 'reports')} is on a read-only file system (EROFS); no report retained: make it writable (or set retained_reports_dir in the config to a directory that is), then run retain again (manifests already written are kept, and it finishes the job)`,
    ]);
    expect(await readdir(join(dir, 'ro-new'))).toEqual([]);
  });

  it('an existing retained reports directory that is read-only: exit 2, one line with EROFS, nothing written', { timeout: 60_000 }, async () => {
    const config = await configFor('ro-old');
    await mkdir(join(dir, 'ro-old', 'reports'));
    const ro = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
    const result = await inMountNamespace(ro, [join(dir, 'ro-old', 'reports'), ...retain(config)]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`ledgerboard: ${join(dir, 'ro-old', 'reports')}`);
    expect(result.stderr).toContain('(EROFS)');
    expect(await readdir(join(dir, 'ro-old', 'reports'))).toEqual([]);
  });
});

describe('retain on a full disk', () => {
  /** The pages tmpfs charges for the reference files whose names satisfy `which`. */
  const pages = (which: (name: string) => boolean) => [...reference].filter(([name]) => which(name)).reduce((sum, [, bytes]) => sum + Math.ceil(bytes.length / PAGE) * PAGE, 0);
  const isManifest = (name: string) => name.startsWith('manifests/');
  const firstManifests = (n: number) => pages((name) => [...reference.keys()].filter(isManifest).sort().slice(0, n).includes(name));

  it.each([
    ['while the manifests are written', () => firstManifests(2) + PAGE],
    ['while the report (the commit point) is written', () => pages((name) => !/^[0-9a-f]{64}\.json$/.test(name)) + 4 * PAGE],
  ])('full %s: exit 2, one line naming the directory (ENOSPC), no temporary file, no report, every manifest there whole; retain again with room finishes', { timeout: 60_000 }, async (_when, size) => {
    const place = `full-${size()}`;
    const config = await configFor(place);
    const mountpoint = join(dir, place);
    const reports = join(mountpoint, 'reports');
    // Retain on a small tmpfs, list what it left (with sizes), then give the tmpfs room and retain again.
    const script =
      `mount -t tmpfs -o size=${size()} tmpfs "$1" && shift && "$@"; echo "==exit $?"; echo "==left"; (cd "${reports}" && find . -type f | sort); ` +
      `echo "==sums"; (cd "${reports}" && find . -type f -name '*.json' -exec sha256sum {} +); ` +
      `echo "==again"; mount -o remount,size=4m "${mountpoint}" && "$@"; echo "==again $?"; ls "${reports}"`;
    const result = await inMountNamespace(script, [mountpoint, ...retain(config)]);
    const [first, rest] = [result.stderr.trimEnd().split('\n'), result.stdout];
    const section = (name: string) => rest.slice(rest.indexOf(`==${name}\n`) + name.length + 3).split('\n==')[0]!.split('\n').filter((line) => line !== '');
    expect(rest).toContain('==exit 2\n');
    expect(first[0]).toBe(
      `ledgerboard: ${reports} cannot be written: the disk is full (ENOSPC); no report retained: free space there (or set retained_reports_dir in the config to a directory that is), then run retain again (manifests already written are kept, and it finishes the job)`,
    );
    expect(result.stderr).not.toContain('unexpected error');
    const files = section('left').map((line) => line.replace(/^\.\//, ''));
    // No temporary file (.<name>.<pid>.<hex>.tmp), no report.
    expect(files.filter((name) => name.endsWith('.tmp') || /^[0-9a-f]{64}\.json$/.test(name))).toEqual([]);
    expect(files.filter(isManifest).length).toBeGreaterThan(0);
    // Each file there has exactly the bytes a retain with room writes: nothing half-written.
    const sums = section('sums');
    expect(sums).toHaveLength(files.length);
    for (const line of sums) {
      const [digest, name] = line.split(/\s+/);
      const want = reference.get(name!.replace(/^\.\//, ''));
      expect(want, name).toBeDefined();
      expect(digest, name).toBe(createHash('sha256').update(want!).digest('hex'));
    }
    // Then, with room: retained, the report among the files.
    expect(rest).toContain('==again 0\n');
    const report = [...reference.keys()].find((name) => /^[0-9a-f]{64}\.json$/.test(name))!;
    expect(rest.slice(rest.indexOf('==again 0'))).toContain(report);
  });
});
