/**
 * The CLI contract (FORMAT.md section 6, issue 2): exit codes, the exact
 * --json shape, human output without colour off a TTY, usage errors, and no
 * stack trace unless --debug. Runs main() in-process with captured streams,
 * plus one real process through bin/ledgerboard.mjs.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliRun } from '../helpers/cli.ts';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { VERSION } from '../../src/version.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bundles = join(root, 'content', 'bundles');
const examples = join(root, 'content', 'examples');

const run = (args: string[], isTTY = false): Promise<CliRun> => runCli(args, isTTY);

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

describe('ledgerboard verify', () => {
  it('exits 0 and prints the exact --json shape when every bundle is verified', async () => {
    const { code, stdout } = await run(['verify', '--json', bundles]);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout) as { bundles: Record<string, unknown>[] };
    expect(Object.keys(doc)).toEqual(['bundles']);
    expect(doc.bundles.length).toBeGreaterThanOrEqual(3);
    for (const bundle of doc.bundles) {
      expect(Object.keys(bundle)).toEqual(['path', 'bundle_id', 'plan_id', 'status', 'findings']);
      expect(bundle.status).toBe('verified');
      expect(bundle.bundle_id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(bundle.plan_id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(bundle.findings).toEqual([]);
    }
  });

  it('exits 1 when any bundle is not verified, and reports each example with its status', async () => {
    const { code, stdout } = await run(['verify', '--json', join(examples, 'invalid'), join(examples, 'no_verdict'), bundles]);
    expect(code).toBe(1);
    const doc = JSON.parse(stdout) as { bundles: { path: string; status: string; findings: Record<string, unknown>[] }[] };
    expect(doc.bundles[0]!.status).toBe('invalid');
    expect(doc.bundles[1]!.status).toBe('no_verdict');
    for (const finding of doc.bundles.flatMap((b) => b.findings)) {
      const keys = Object.keys(finding);
      expect(keys).toEqual('line' in finding ? ['code', 'severity', 'file', 'line', 'message'] : ['code', 'severity', 'file', 'message']);
    }
  });

  it('prints one line per bundle, findings grouped by file, and no colour off a TTY', async () => {
    const { code, stdout } = await run(['verify', examples]);
    expect(code).toBe(1);
    expect(stdout).not.toContain('\u001b[');
    const lines = stdout.split('\n');
    expect(lines.filter((l) => /^(verified|invalid|no_verdict) /.test(l))).toHaveLength(2);
    expect(stdout).toMatch(/^invalid +bundle [0-9a-f]{12} +plan [0-9a-f]{12} +.*examples[/\\]invalid$/m);
    expect(stdout).toMatch(/^ {2}plan\.json$/m);
    expect(stdout).toMatch(/^ {4}error +UNKNOWN_MEMBER: /m);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('2 bundles: 0 verified, 1 invalid, 1 no_verdict; 0 warnings');
  });

  it('colours status words on a TTY', async () => {
    vi.stubEnv('NO_COLOR', '');
    vi.stubEnv('FORCE_COLOR', undefined);
    vi.stubEnv('TERM', 'xterm');
    const { stdout } = await run(['verify', join(examples, 'invalid')], true);
    vi.unstubAllEnvs();
    expect(stdout).toContain('\u001b[31minvalid');
  });

  it('treats a directory without any bundle as a bundle missing its manifest (exit 1), never as success', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'lb-empty-'));
    temps.push(empty);
    const { code, stdout } = await run(['verify', '--json', empty]);
    expect(code).toBe(1);
    const doc = JSON.parse(stdout) as { bundles: { status: string; bundle_id: null; findings: { code: string }[] }[] };
    expect(doc.bundles).toHaveLength(1);
    expect(doc.bundles[0]!.status).toBe('no_verdict');
    expect(doc.bundles[0]!.bundle_id).toBeNull();
    expect(doc.bundles[0]!.findings.map((f) => f.code)).toContain('MISSING_FILE');
  });

  it.each([
    [['verify']],
    [['verify', '--nope', bundles]],
    [['verify', join(root, 'no-such-directory')]],
    [['frobnicate']],
  ])('usage errors exit 2 with a message and no stack: %j', async (args) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^ledgerboard: /);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('prints help with exit 0, and the version', async () => {
    expect((await run(['--help'])).code).toBe(0);
    expect((await run(['verify', '--help'])).stdout).toContain('Usage: ledgerboard verify');
    expect((await run(['--version'])).stdout).toBe(`${VERSION}\n`);
  });
});

describe('unexpected errors', () => {
  it('say so with exit 3, and show the stack only under --debug', async () => {
    const pipeline = await import('../../src/pipeline/verify-paths.ts');
    const spy = vi.spyOn(pipeline, 'verifyPaths').mockRejectedValue(new Error('boom'));
    try {
      const plain = await run(['verify', bundles]);
      expect(plain.code).toBe(3);
      expect(plain.stderr).toContain('unexpected error: boom');
      expect(plain.stderr).not.toMatch(/\n\s+at /);
      const debug = await run(['verify', '--debug', bundles]);
      expect(debug.code).toBe(3);
      expect(debug.stderr).toMatch(/\n\s+at /);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('bin/ledgerboard.mjs', () => {
  it('runs as a real process: --help exits 0, a failing bundle exits 1', async () => {
    const bin = join(root, 'bin', 'ledgerboard.mjs');
    const help = await promisify(execFile)(process.execPath, [bin, '--help']);
    expect(help.stdout).toContain('Usage: ledgerboard <command>');
    const failing = await promisify(execFile)(process.execPath, [bin, 'verify', join(examples, 'invalid')]).catch((e: { code: number }) => e);
    expect((failing as { code: number }).code).toBe(1);
  });

  it('package.json version matches the reported generator version', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string; name: string };
    expect(pkg.name).toBe('ledgerboard');
    expect(pkg.version).toBe(VERSION);
  });
});
