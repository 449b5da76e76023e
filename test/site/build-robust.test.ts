/**
 * The build in hostile surroundings (issue 10, item 13 and the low items):
 * it runs from a read-only checkout (Astro renders beside the output, never
 * inside the project); a read-only output, a full disk and evidence changed
 * during the build are one line naming the path and what to do (exit 2), not
 * "unexpected error"; two builds into one output do not both "succeed" (the
 * second is refused while the first holds the lock); and what a killed build
 * leaves beside the output is removed by the next build.
 *
 * Read-only and full file systems are real: a read-only bind mount and a
 * small tmpfs in a private mount namespace (`unshare -m`, or `unshare -rm`
 * when not run as root), so nothing is mounted outside the test's process.
 */
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { buildEnvironmentError, EvidenceChangedError } from '../../src/site/build/build-errors.ts';
import { lockPath, takeBuildLock } from '../../src/site/build/build-lock.ts';
import { buildSiteOf } from '../helpers/site-build.ts';
import { removeStaleRenders, RENDER_MARKER } from '../../src/site/build/render.ts';
import { runCli } from '../helpers/cli.ts';
import { removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'ledgerboard.mjs');
const unshare = process.getuid?.() === 0 ? ['-m'] : ['-rm'];

const work: string[] = [];
afterAll(async () => {
  for (const dir of work) await rm(dir, { recursive: true, force: true });
  await removeTempDirs();
});

/** A scratch directory with one valid bundle under evidence/ (plus `extra` files) and an empty config. */
async function scratch(extra: Record<string, Uint8Array> = {}): Promise<{ dir: string; evidence: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-robust-'));
  work.push(dir);
  const model = validBundle();
  for (const [path, bytes] of Object.entries(extra)) model.extra.set(path, bytes);
  const evidence = join(dir, 'evidence');
  await cp(await writeModel(model), join(evidence, 'a'), { recursive: true });
  const config = join(dir, 'ledgerboard.config.json');
  await writeFile(config, '{}');
  return { dir, evidence, config };
}

/** Runs `sh -c script` in a private mount namespace; `$1`... are `args`. */
async function inMountNamespace(script: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)('unshare', [...unshare, 'sh', '-c', script, 'sh', ...args], {
    env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 1 << 26,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** The last line ledgerboard printed on stderr (Astro or esbuild may print their own lines before it). */
const lastLine = (stderr: string) => stderr.trimEnd().split('\n').at(-1)!;

describe('a read-only checkout (item 13)', () => {
  it('builds: Astro renders beside the output, nothing is written inside the project, nothing is left beside the output', { timeout: 120_000 }, async () => {
    const { dir, evidence, config } = await scratch();
    const out = join(dir, 'site');
    const ro = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
    const result = await inMountNamespace(ro, [root, process.execPath, bin, 'build', '--config', config, '--bundles', evidence, '--out', out]);
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.code, result.stderr).toBe(0);
    expect((await stat(join(out, 'index.html'))).isFile()).toBe(true);
    // Beside the config: nothing but the output (the verification cache lives in the user's cache directory, docs/architecture.md).
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'ledgerboard.config.json', 'site']);
  });
});

describe('the surroundings of a build (item 13)', () => {
  it('an output on a read-only file system: exit 2, one line naming the directory (EROFS), never "unexpected error"', { timeout: 120_000 }, async () => {
    const { dir, evidence, config } = await scratch();
    const parent = join(dir, 'published');
    await mkdir(parent);
    const ro = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"';
    const result = await inMountNamespace(ro, [parent, process.execPath, bin, 'build', '--config', config, '--bundles', evidence, '--out', join(parent, 'site')]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(lastLine(result.stderr)).toContain(parent);
    expect(lastLine(result.stderr)).toContain('EROFS');
  });

  it.each([
    ['256k', 'while Astro renders', {}],
    ['2m', 'while the evidence is copied', { 'artifacts/big.bin': new Uint8Array(3 << 20).fill(7) }],
  ])('a full disk (a %s tmpfs, full %s): exit 2, one line naming the output (ENOSPC), nothing left there', { timeout: 120_000 }, async (size, _when, extra) => {
    const { dir, evidence, config } = await scratch(extra);
    const small = join(dir, 'small');
    await mkdir(small);
    const full = `mount -t tmpfs -o size=${size} tmpfs "$1" && shift && "$@"; code=$?; ls -A "${small}" >&2; exit $code`;
    const result = await inMountNamespace(full, [small, process.execPath, bin, 'build', '--config', config, '--bundles', evidence, '--out', join(small, 'site')]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).not.toContain('unexpected error');
    expect(lastLine(result.stderr)).toContain(join(small, 'site'));
    expect(lastLine(result.stderr)).toContain('ENOSPC');
    // `ls -A` of the tmpfs after the build (printed after ledgerboard's line) lists nothing: no lock, staging or render directory left.
    expect(result.stderr).not.toMatch(/^site\.(lock|staging|render-)/m);
  });

  it('evidence changed between verification and publication: the build refuses, and the CLI says which file (exit 2)', { timeout: 120_000 }, async () => {
    const { dir, evidence } = await scratch();
    const results = await verifyPaths([evidence], undefined, { workers: 0 });
    expect(results[0]!.verification.status).toBe('verified');
    await writeFile(join(evidence, 'a', 'NOTES.md'), 'rewritten after verification\n');
    const out = join(dir, 'site');
    const error = await buildSiteOf(buildReport(results, Config.parse({})), results, Config.parse({}), { retainedDir: join(dir, 'none'), outDir: out, log: () => undefined }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EvidenceChangedError);
    expect((error as EvidenceChangedError).path).toBe(join(evidence, 'a', 'NOTES.md'));
    const mapped = buildEnvironmentError(error, out);
    expect(mapped?.message).toContain(join(evidence, 'a', 'NOTES.md'));
    await expect(stat(out)).rejects.toThrow();
    const { main } = await import('../../src/cli/main.ts');
    const { PassThrough } = await import('node:stream');
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (c: Buffer) => (text += c.toString()));
    const { vi } = await import('vitest');
    const command = await import('../../src/cli/build-command.ts');
    // The build command throws what buildEnvironmentError made of it (the full-disk cases above run that path for real).
    const spy = vi.spyOn(command.buildCommand, 'run').mockRejectedValue(mapped);
    try {
      expect(await main(['build'], { stdout: new PassThrough() as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream })).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(text).toContain(join(evidence, 'a', 'NOTES.md'));
    expect(text).not.toContain('unexpected error');
    expect(text.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('builds into one output (low items)', () => {
  it('a second build while the first runs is refused (exit 2, naming the first build); the first finishes', { timeout: 120_000 }, async () => {
    const { dir, evidence, config } = await scratch();
    const out = join(dir, 'site');
    const first = spawn(process.execPath, [bin, 'build', '--config', config, '--bundles', evidence, '--out', out], { env: { ...process.env, NO_COLOR: '1' }, stdio: 'ignore' });
    const firstExit = new Promise<number | null>((done) => first.on('exit', done));
    await until(async () => (await readdir(dir)).includes('site.lock'), 60_000);
    const second = await runCli(['build', '--config', config, '--bundles', evidence, '--out', out]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`pid ${first.pid}`);
    expect(second.stderr).toContain(lockPath(out));
    expect(await firstExit).toBe(0);
    // Beside the config: nothing but the output (the verification cache lives in the user's cache directory, docs/architecture.md).
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'ledgerboard.config.json', 'site']);
  });

  it('a build killed with SIGKILL while rendering: the next build takes over its lock and removes its render directory', { timeout: 120_000 }, async () => {
    const { dir, evidence, config } = await scratch();
    const out = join(dir, 'site');
    const projectRenders = join(root, '.ledgerboard-render');
    const before = new Set(await readdir(projectRenders).catch(() => [] as string[]));
    /** Render directories of this build: beside the output (or, before issue 10, inside the project). */
    const renders = async () => [
      ...(await readdir(dir)).filter((n) => n.startsWith('site.render-')).map((n) => join(dir, n)),
      ...(await readdir(projectRenders).catch(() => [] as string[])).filter((n) => !before.has(n)).map((n) => join(projectRenders, n)),
    ];
    // Its own process group, killed whole below as a shell kills a job: the build and the helper processes it started
    // (esbuild's service), which could otherwise go on writing into the render directory after the build is gone.
    const child = spawn(process.execPath, [bin, 'build', '--config', config, '--bundles', evidence, '--out', out], { env: { ...process.env, NO_COLOR: '1' }, stdio: 'ignore', detached: true });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    // Astro is at work: its render directory holds more than the marker and the package links.
    await until(async () => {
      for (const render of await renders()) if ((await readdir(render).catch(() => [] as string[])).length > 2) return true;
      return false;
    }, 60_000);
    process.kill(-child.pid!, 'SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const left = await renders();
    expect(left.length).toBeGreaterThan(0);
    const next = await runCli(['build', '--config', config, '--bundles', evidence, '--out', out]);
    expect(next.code, next.stderr).toBe(0);
    // Gone; if not, the message lists what is left in it.
    for (const render of left) expect(await readdir(render, { recursive: true }).catch(() => null), render).toBeNull();
    // Beside the config: nothing but the output (the verification cache lives in the user's cache directory, docs/architecture.md).
    expect((await readdir(dir)).sort()).toEqual(['evidence', 'ledgerboard.config.json', 'site']);
    for (const render of left) await rm(render, { recursive: true, force: true });
  });
});

describe('the build lock', () => {
  it('is refused while its holder lives, taken over when the holder is dead, never taken from another machine, and released only by its holder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-lock-'));
    work.push(dir);
    const out = join(dir, 'site');
    const held = await takeBuildLock(out);
    await expect(takeBuildLock(out)).rejects.toThrow(`pid ${process.pid}`);
    await held.release();
    await expect(stat(lockPath(out))).rejects.toThrow();

    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((done) => dead.on('exit', done));
    await writeFile(lockPath(out), `${JSON.stringify({ pid: dead.pid, host: (await import('node:os')).hostname(), token: 'x' })}\n`);
    const taken = await takeBuildLock(out);
    expect(JSON.parse(await readFile(lockPath(out), 'utf8')).pid).toBe(process.pid);
    await taken.release();

    await writeFile(lockPath(out), `${JSON.stringify({ pid: dead.pid, host: 'another-machine', token: 'x' })}\n`);
    await expect(takeBuildLock(out)).rejects.toThrow('another-machine');
    expect(JSON.parse(await readFile(lockPath(out), 'utf8')).host).toBe('another-machine');
    expect((await readdir(dir)).map((n) => basename(n))).toEqual(['site.lock']);
  });
});

describe('removeStaleRenders', () => {
  it('removes only render directories of dead builds (or empty ones) beside that output: never a live build\'s, a link, or anything not provably its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lb-renders-'));
    work.push(dir);
    const out = join(dir, 'site');
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((done) => dead.on('exit', done));
    const make = async (name: string, marker: string | null, extra = true) => {
      await mkdir(join(dir, name));
      if (marker !== null) await writeFile(join(dir, name, RENDER_MARKER), marker);
      if (extra) await writeFile(join(dir, name, 'page.html'), 'x');
    };
    await make('site.render-dead01', `${dead.pid}\n`);
    await make('site.render-cut001', '');
    await make('site.render-empty1', null, false);
    await make('site.render-live01', `${process.pid}\n`);
    await make('site.render-nomark', null);
    await make('site.render-toolong1', `${dead.pid}\n`);
    await make('other.render-dead01', `${dead.pid}\n`);
    const { symlink } = await import('node:fs/promises');
    await mkdir(join(dir, 'target'));
    await writeFile(join(dir, 'target', RENDER_MARKER), `${dead.pid}\n`);
    await symlink(join(dir, 'target'), join(dir, 'site.render-link01'));
    const removed = await removeStaleRenders(out);
    expect(removed.map((p) => basename(p)).sort()).toEqual(['site.render-cut001', 'site.render-dead01', 'site.render-empty1']);
    expect((await readdir(dir)).sort()).toEqual(['other.render-dead01', 'site.render-link01', 'site.render-live01', 'site.render-nomark', 'site.render-toolong1', 'target']);
    expect(await readdir(join(dir, 'target'))).toEqual([RENDER_MARKER]);
  });
});

async function until(condition: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('timed out waiting');
}
