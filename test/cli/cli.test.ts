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
      // The demo's November 2 plan is anchored after its first attempt: a warning, never a change of status (FORMAT.md 12).
      const anchoredLate = typeof bundle.path === 'string' && bundle.path.endsWith('2026-11-02-widget-bugs');
      expect(bundle.findings).toEqual(anchoredLate ? [expect.objectContaining({ code: 'ANCHOR_AFTER_ATTEMPT', severity: 'warning', file: 'anchors/demo-tsa.tsr' })] : []);
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

  it('says a directory without any bundle holds none (exit 2), never reports success and never invents a broken bundle', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'lb-empty-'));
    temps.push(empty);
    const { code, stdout, stderr } = await run(['verify', '--json', empty]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`ledgerboard: no bundle (no manifest.json) found under ${empty}\nRun 'ledgerboard verify --help' for usage.\n`);
  });

  it('given a manifest.json instead of its bundle, points at the directory', async () => {
    const manifest = join(bundles, '2026-09-14-widget-bugs', 'manifest.json');
    const { code, stderr } = await run(['verify', manifest]);
    expect(code).toBe(2);
    expect(stderr).toContain(`not a directory: ${manifest} (a bundle is the directory that holds manifest.json: try ${join(bundles, '2026-09-14-widget-bugs')})`);
  });

  it.each([
    [['frobnicate'], 'unknown command "frobnicate"; the commands are', "Run 'ledgerboard --help'"],
    [['verfy', bundles], 'unknown command "verfy" (did you mean "verify"?)', "Run 'ledgerboard --help'"],
    [['verify', '--jsn', bundles], 'unknown option "--jsn" (did you mean "--json"?)', "Run 'ledgerboard verify --help'"],
    [['report', '--conifg', 'x.json'], 'unknown option "--conifg" (did you mean "--config"?)', "Run 'ledgerboard report --help'"],
    [['verify', '--json=yes', bundles], 'option --json takes no value', "Run 'ledgerboard verify --help'"],
    [['build', '--out'], 'option --out needs a value (--out VALUE)', "Run 'ledgerboard build --help'"],
    [['verify', '-x', bundles], 'unknown option "-x"', "Run 'ledgerboard verify --help'"],
  ])('argument errors are ours, with a did-you-mean and the command\'s --help: %j', async (args, message, hint) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toContain(`ledgerboard: ${message}`);
    expect(stderr).toContain(hint);
    expect(stderr).not.toMatch(/To specify a positional argument|ERR_PARSE_ARGS/);
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
  it('exits quietly when its reader stops early (EPIPE is not a crash), and JSON output ends with a newline', async () => {
    const bin = join(root, 'bin', 'ledgerboard.mjs');
    const piped = await promisify(execFile)('bash', ['-c', `set -o pipefail; "${process.execPath}" "${bin}" report --json "${bundles}" | head -c 100 >/dev/null`]);
    expect(piped.stderr).toBe('');
    const whole = await promisify(execFile)(process.execPath, [bin, 'verify', '--json', bundles], { maxBuffer: 1 << 26 });
    expect(whole.stdout.endsWith('}\n')).toBe(true);
  });

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
