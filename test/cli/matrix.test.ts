/**
 * Issue 28 item 7, beyond one machine: three `ledgerboard cache fill
 * --shard K/3` processes run side by side, each verifying its share into a
 * directory of its own; `cache merge` takes their entries into one; `build
 * --cache` on it reuses every verification and writes the same site, byte
 * for byte, as one plain build (`--no-cache`) of the same evidence. A
 * tampered entry and a shard sealed under another key are refused by the
 * merge, a missing shard is skipped, and the build verifies those bundles
 * itself: the same site again. `init --matrix 3` writes the workflow that
 * runs exactly these commands.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffoldFiles, WORKFLOW_NODE } from '../../src/author/scaffold.ts';
import { bundleName, parseShard, shardOf } from '../../src/pipeline/shard.ts';
import { runCli } from '../helpers/cli.ts';
import { fileTree } from '../helpers/file-tree.ts';
import { writeManyLedgers } from '../helpers/many-ledgers.ts';

const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true }))));
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-matrix-'));
  scratch.push(dir);
  return dir;
}

const KEY = '3c'.repeat(32);
const OTHER_KEY = 'c3'.repeat(32);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node bin/ledgerboard.mjs <args>` as a child process (not awaited here: callers run several side by side). */
function ledgerboard(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  return promisify(execFile)(process.execPath, [join(process.cwd(), 'bin', 'ledgerboard.mjs'), ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1', SOURCE_DATE_EPOCH: '1700000000', ...env },
    timeout: 170_000,
    maxBuffer: 1 << 26,
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: Run) => e,
  );
}

/** The share the formula of docs/cli.md gives, computed here independently of src/pipeline/shard.ts. */
function expectedShard(name: string, n: number): number {
  const digest = createHash('sha256').update(name, 'utf8').digest();
  return 1 + Number(BigInt(`0x${digest.subarray(0, 6).toString('hex')}`) % BigInt(n));
}

/** The bundle names a `cache fill` printed (its lines `  <status> <name>`), with their statuses. */
function filled(stdout: string): [string, string][] {
  return [...stdout.matchAll(/^ {2}(\S+) +(\S+)$/gm)].map((m) => [m[2]!, m[1]!]);
}

/** The head entries of a cache directory (each kept verification is a head `<hex>.v8` and its tables `tables-<hex>.v8`). */
async function entries(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => /^[0-9a-f]{64}\.v8$/.test(n)).sort();
}

describe('shards: which bundle each of N jobs verifies', () => {
  it('parses K/N and refuses everything else with the reason', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(parseShard('1/1')).toEqual({ index: 1, count: 1 });
    expect(parseShard('256/256')).toEqual({ index: 256, count: 256 });
    for (const [text, why] of [
      ['0/3', 'K must be a whole number from 1 to N (3); shards count from 1'],
      ['4/3', 'K must be a whole number from 1 to N (3)'],
      ['1/0', 'N must be a whole number from 1 to 256'],
      ['1/257', 'N must be a whole number from 1 to 256'],
      ['a/b', 'is not K/N'],
      ['2', 'is not K/N'],
      ['1/3/', 'is not K/N'],
      ['-1/3', 'is not K/N'],
      [' 1/3', 'is not K/N'],
    ] as const) {
      const parsed = parseShard(text);
      expect('problem' in parsed ? parsed.problem : 'parsed').toContain(why);
    }
  });

  it('assigns by the SHA-256 of the path below the bundles directory: fixed values, independent of where the checkout is', () => {
    for (const name of ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', '2026-09/widget-bugs', 'é/ü']) {
      for (const n of [1, 2, 3, 7, 256]) expect(shardOf(name, n)).toBe(expectedShard(name, n));
    }
    expect(['b0', 'b1', 'b2', 'b3', 'b4', 'b5'].map((n) => shardOf(n, 3))).toEqual([2, 2, 1, 1, 2, 3]);
    expect(bundleName('/x/evidence', '/x/evidence/2026/run')).toBe('2026/run');
    expect(bundleName('/a/b/checkout/evidence', '/a/b/checkout/evidence/2026/run')).toBe('2026/run');
    // A bundle given as the directory itself goes by its own name.
    expect(bundleName('/x/evidence/run', '/x/evidence/run')).toBe('run');
  });

  it('cache fill and cache merge refuse a bad K/N, a missing --into, an unknown action, with exit 2', async () => {
    const dir = await tempDir();
    for (const [args, message] of [
      [['cache', 'fill', '--shard', '0/3', dir], '--shard 0/3: K must be a whole number from 1 to N (3)'],
      [['cache', 'fill', '--shard', '3/2', dir], '--shard 3/2: K must be a whole number from 1 to N (2)'],
      [['cache', 'fill', '--shard', 'x', dir], '--shard "x" is not K/N'],
      [['cache', 'fill', '--into', dir], '--into is not an option of cache fill'],
      [['cache', 'merge', dir], 'cache merge needs --into DIR'],
      [['cache', 'merge', '--into', dir], 'cache merge needs the directories to merge'],
      [['cache', 'merge', dir, '--into', dir, '--shard', '1/2'], '--shard is not an option of cache merge'],
      [['cache', 'sweep'], 'unknown cache action "sweep": the actions are fill and merge'],
      [['cache'], 'cache needs an action: fill or merge'],
    ] as const) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain("Run 'ledgerboard cache --help' for usage.");
    }
    const help = await runCli(['cache', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--shard K/N', '--cache DIR', '--into DIR', '--strict', 'LEDGERBOARD_CACHE_KEY']) expect(help.stdout).toContain(flag);
  });
});

describe('three shards side by side, one merge, one build: the site of one plain build', () => {
  it('gives the same site byte for byte; a tampered entry, a shard under another key and a missing shard are refused or skipped, and verified by the build', { timeout: 600_000 }, async () => {
    const board = await tempDir();
    const home = await tempDir();
    await writeManyLedgers(join(board, 'evidence'), 6);
    await writeFile(join(board, 'ledgerboard.config.json'), JSON.stringify({ title: 'sharded', bundles_dir: 'evidence' }));
    const env = { XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config'), LEDGERBOARD_CACHE_KEY: KEY };
    const names = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5'];

    // Three shard processes at once (and the plain build beside them).
    const [plain, ...shards] = await Promise.all([
      ledgerboard(['build', '--no-cache', '--out', join(home, 'plain')], board, env),
      ...[1, 2, 3].map((k) => ledgerboard(['cache', 'fill', '--shard', `${k}/3`, '--cache', join(home, `shard-${k}`)], board, env)),
    ]);
    expect(plain.code, plain.stderr).toBe(0);
    const shares: string[][] = [];
    for (const [i, shard] of shards.entries()) {
      expect(shard.code, shard.stderr).toBe(0);
      const got = filled(shard.stdout);
      shares.push(got.map(([name]) => name));
      expect(got.every(([, status]) => status === 'verified')).toBe(true);
      expect(shard.stdout).toContain(`shard ${i + 1}/3: ${got.length} of 6 bundles; ${got.length} verified, 0 not`);
      // Each shard verified its share only, and kept one entry per bundle of it.
      expect(await entries(join(home, `shard-${i + 1}`))).toHaveLength(got.length);
    }
    expect(shares).toEqual([
      names.filter((n) => expectedShard(n, 3) === 1),
      names.filter((n) => expectedShard(n, 3) === 2),
      names.filter((n) => expectedShard(n, 3) === 3),
    ]);
    expect(shares.flat().sort()).toEqual(names);

    const merged = join(home, 'merged');
    const merge = await ledgerboard(['cache', 'merge', ...[1, 2, 3].map((k) => join(home, `shard-${k}`)), '--into', merged, '--strict'], board, env);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toBe(`merged 6 entries from 3 of 3 directories into ${merged}; 0 refused\n`);
    expect(merge.stderr).toBe('');

    const built = await ledgerboard(['build', '--cache', merged, '--out', join(home, 'sharded')], board, env);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).toContain(`verification cache ${merged}: 6 of 6 bundles reused, 0 verified in full`);
    const reference = await fileTree(join(home, 'plain'));
    expect(Object.keys(reference).length).toBeGreaterThan(20);
    expect(await fileTree(join(home, 'sharded'))).toEqual(reference);

    // Now: shard 2 has one head entry tampered with (one byte of its body), shard 1 one tables entry, shard 3 was
    // sealed under another key, shard 4 never uploaded (a job that failed).
    const flip = async (file: string) => {
      const bytes = await readFile(file);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0x01, bytes.length - 1);
      await writeFile(file, bytes);
    };
    const [tampered] = await entries(join(home, 'shard-2'));
    const path = join(home, 'shard-2', tampered!);
    await flip(path);
    const [tamperedTables] = await entries(join(home, 'shard-1'));
    await flip(join(home, 'shard-1', `tables-${tamperedTables!}`));
    const shard3 = await entries(join(home, 'shard-3'));
    await rm(join(home, 'shard-3'), { recursive: true });
    const wrong = await ledgerboard(['cache', 'fill', '--shard', '3/3', '--cache', join(home, 'shard-3')], board, { ...env, LEDGERBOARD_CACHE_KEY: OTHER_KEY });
    expect(wrong.code, wrong.stderr).toBe(0);
    const [foreign] = await entries(join(home, 'shard-3'));
    const merged2 = join(home, 'merged-2');
    const sources = [1, 2, 3, 4].map((k) => join(home, `shard-${k}`));
    const refused = await ledgerboard(['cache', 'merge', ...sources, '--into', merged2], board, env);
    expect(refused.code, refused.stderr).toBe(0);
    const sealLine = 'its seal does not check under this cache key (sealed under another key, or changed since it was sealed)';
    expect(refused.stderr.split('\n')).toEqual([
      `ledgerboard: cache merge: ${sources[3]} does not exist (a shard that failed or uploaded nothing): the build verifies its bundles itself`,
      `ledgerboard: cache merge: refused ${join(home, 'shard-1', tamperedTables!)}: its tables entry tables-${tamperedTables!} is missing, is not a regular file, or its seal does not check under this cache key`,
      `ledgerboard: cache merge: refused ${path}: ${sealLine}`,
      `ledgerboard: cache merge: refused ${join(home, 'shard-3', foreign!)}: ${sealLine}`,
      '',
    ]);
    expect(refused.stdout).toBe(
      `merged 3 entries from 3 of 4 directories into ${merged2}; 3 refused (every job must seal with the same LEDGERBOARD_CACHE_KEY; the bundles of refused entries are verified in full by the build)\n`,
    );
    // Nothing refused reached the merged directory.
    expect(await entries(merged2)).toEqual((await entries(merged)).filter((n) => n !== tampered && n !== tamperedTables && !shard3.includes(n)));
    // --strict: the same merge, exit 1.
    expect((await ledgerboard(['cache', 'merge', ...sources, '--into', join(home, 'merged-3'), '--strict'], board, env)).code).toBe(1);

    const rebuilt = await ledgerboard(['build', '--cache', merged2, '--out', join(home, 'sharded-2')], board, env);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain(`verification cache ${merged2}: 3 of 6 bundles reused, 3 verified in full`);
    expect(await fileTree(join(home, 'sharded-2'))).toEqual(reference);
  });

  it('a merge without the key the shards used takes nothing: every entry refused (a link and a stray file too); no key at all is exit 2', async () => {
    const board = await tempDir();
    const home = await tempDir();
    await writeManyLedgers(join(board, 'evidence'), 2);
    const env = { XDG_CACHE_HOME: join(home, 'cache'), XDG_CONFIG_HOME: join(home, 'config'), LEDGERBOARD_CACHE_KEY: KEY };
    await writeFile(join(board, 'ledgerboard.config.json'), JSON.stringify({ bundles_dir: 'evidence' }));
    const fill = await ledgerboard(['cache', 'fill', '--cache', join(home, 'all')], board, env);
    expect(fill.code, fill.stderr).toBe(0);
    expect(fill.stdout).toContain('shard 1/1: 2 of 2 bundles; 2 verified, 0 not');
    // Something that is no entry beside them: refused by name; a link: refused, never followed.
    await cp(join(board, 'ledgerboard.config.json'), join(home, 'all', 'notes.txt'));
    await symlink('/dev/zero', join(home, 'all', `${'ab'.repeat(32)}.v8`));
    const merge = await ledgerboard(['cache', 'merge', join(home, 'all'), '--into', join(home, 'into'), '--strict'], board, { ...env, LEDGERBOARD_CACHE_KEY: OTHER_KEY });
    expect(merge.code).toBe(1);
    expect(merge.stdout).toContain('merged 0 entries from 1 of 1 directories');
    expect(merge.stdout).toContain('4 refused (every job must seal with the same LEDGERBOARD_CACHE_KEY');
    expect(merge.stderr).toContain(`refused ${join(home, 'all', 'notes.txt')}: not a verification entry (<64 hex digits>.v8, with tables-<64 hex digits>.v8): only verification entries are merged`);
    // The tables entries beside refused heads are not reported again.
    expect(merge.stderr.split('\n').filter((l) => /tables-[0-9a-f]{64}/.test(l))).toEqual([]);
    expect(merge.stderr).toContain(`refused ${join(home, 'all', `${'ab'.repeat(32)}.v8`)}: a symbolic link (never followed)`);
    expect(merge.stderr.match(/its seal does not check under this cache key/g)).toHaveLength(2);
    // No key at all (an empty secret and no key file allowed): a usage error, nothing merged.
    const noKey = await ledgerboard(['cache', 'merge', join(home, 'all'), '--into', join(home, 'into-2')], board, { ...env, LEDGERBOARD_CACHE_KEY: 'not hex' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('verification cache off: LEDGERBOARD_CACHE_KEY is not 64 hex digits');
    expect(noKey.stderr).toContain('cache merge checks every entry');
  });
});

describe('init --matrix N', () => {
  interface Step {
    uses?: string;
    run?: string;
    if?: string;
    with?: Record<string, unknown>;
    'continue-on-error'?: boolean;
  }
  interface Workflow {
    env: Record<string, string>;
    permissions: Record<string, string>;
    jobs: Record<string, { needs?: string; if?: string; strategy?: { 'fail-fast': boolean; matrix: { shard: number[] } }; steps: Step[] }>;
  }

  it('writes N verify jobs (a matrix), a build job that merges their caches and builds, and the deploy job', async () => {
    const dir = await tempDir();
    const run = await runCli(['init', dir, '--matrix', '3']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('repository secret LEDGERBOARD_CACHE_KEY');
    const workflow = parse(await readFile(join(dir, '.github', 'workflows', 'leaderboard.yml'), 'utf8')) as Workflow;
    expect(Object.keys(workflow.jobs)).toEqual(['verify', 'build', 'deploy']);
    expect(workflow.env).toEqual({ LEDGERBOARD_CACHE_KEY: '${{ secrets.LEDGERBOARD_CACHE_KEY }}' });
    expect(workflow.permissions).toEqual({ contents: 'read', pages: 'write', 'id-token': 'write', attestations: 'write' });
    const { verify, build, deploy } = workflow.jobs;
    expect(verify!.strategy).toEqual({ 'fail-fast': false, matrix: { shard: [1, 2, 3] } });
    expect(verify!.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version']).toBe(WORKFLOW_NODE);
    expect(verify!.steps.map((s) => s.run).filter(Boolean)).toEqual(['npm ci', 'npx ledgerboard cache fill --shard ${{ matrix.shard }}/3 --cache ledgerboard-cache']);
    expect(verify!.steps.at(-1)).toEqual({
      uses: 'actions/upload-artifact@v4',
      with: { name: 'ledgerboard-cache-${{ matrix.shard }}', path: 'ledgerboard-cache', 'if-no-files-found': 'ignore', 'retention-days': 1 },
    });
    // The build job runs when a verify job failed too, downloads what there is, merges, builds.
    expect(build!.needs).toBe('verify');
    expect(build!.if).toBe('${{ !cancelled() }}');
    expect(build!.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'))).toEqual({
      uses: 'actions/download-artifact@v4',
      'continue-on-error': true,
      with: { pattern: 'ledgerboard-cache-*', path: 'ledgerboard-shards' },
    });
    expect(build!.steps.map((s) => s.run).filter(Boolean)).toEqual([
      'npm ci',
      'npx ledgerboard cache merge ledgerboard-shards/ledgerboard-cache-1 ledgerboard-shards/ledgerboard-cache-2 ledgerboard-shards/ledgerboard-cache-3 --into ledgerboard-cache',
      'npx ledgerboard build --strict --cache ledgerboard-cache',
    ]);
    expect(build!.steps.map((s) => s.uses ?? s.run)).toEqual([
      'actions/checkout@v4',
      'actions/setup-node@v4',
      'npm ci',
      'actions/download-artifact@v4',
      expect.stringContaining('cache merge'),
      expect.stringContaining('build --strict'),
      'actions/attest-build-provenance@v2',
      'actions/upload-pages-artifact@v3',
    ]);
    expect(deploy!.needs).toBe('build');
    expect(deploy!.if).toBe("${{ !cancelled() && needs.build.result == 'success' }}");
    expect(deploy!.steps.map((s) => s.uses)).toEqual(['actions/deploy-pages@v4']);
  });

  it('without --matrix the workflow is the one-job workflow; a bad N is a usage error', async () => {
    const base = { title: 't', siteUrl: 'http://localhost:4321/', name: 't', ledgerboard: '1.0.0' };
    const plain = scaffoldFiles(base).find((f) => f.path.endsWith('leaderboard.yml'))!.text;
    expect(Object.keys((parse(plain) as Workflow).jobs)).toEqual(['build', 'deploy']);
    expect(plain).not.toContain('ledgerboard cache');
    expect(plain).not.toContain('LEDGERBOARD_CACHE_KEY');
    const five = parse(scaffoldFiles({ ...base, matrix: 5 }).find((f) => f.path.endsWith('leaderboard.yml'))!.text) as Workflow;
    expect(five.jobs.verify!.strategy!.matrix.shard).toEqual([1, 2, 3, 4, 5]);
    expect(five.jobs.verify!.steps.map((s) => s.run).filter(Boolean)[1]).toBe('npx ledgerboard cache fill --shard ${{ matrix.shard }}/5 --cache ledgerboard-cache');
    for (const bad of ['1', '0', '257', 'three', '2.5', '-3']) {
      const run = await runCli(['init', await tempDir(), `--matrix=${bad}`]);
      expect(run.code, bad).toBe(2);
      expect(run.stderr).toContain(`--matrix "${bad}": the number of verify jobs, a whole number from 2 to 256`);
    }
  });
});
