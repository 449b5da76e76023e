/**
 * Discovery meets hostile directories (issue 10, items 7 and 10): a directory
 * that cannot be listed, inside a bundle or as a bundle, is a finding on its
 * own bundle and the other bundles are verified as usual; a symbolic link
 * beside the bundles is never followed and never dropped: it is a rejected
 * bundle of its own, in the report and on /rejected/.
 *
 * Permissions do not stop root, and tests and CI run as root: the CLI then
 * runs as root without the two capabilities that let root ignore permission
 * bits (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH; util-linux's setpriv drops
 * them), so a directory the test makes mode 000 stops it as it stops anyone,
 * while the checkout stays reachable wherever the clone sits (a root shell's
 * home, or any mkdtemp, is 0700, which the user 65534 could not traverse).
 * Where setpriv is missing, the CLI runs as the user 65534 (nobody) and the
 * test first checks that this user can reach the checkout, failing with what
 * to change if not. Run as another user, the test removes the permissions for
 * itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverBundles } from '../../src/evidence/discover.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { Config } from '../../src/config/config.ts';
import { removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'ledgerboard.mjs');
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const SETPRIV = '/usr/bin/setpriv';
/** Root drops the capabilities that bypass permission bits (see the top of the file). */
const dropCapabilities = asRoot && existsSync(SETPRIV);
/** Root without setpriv runs the CLI as the user 65534. */
const asNobody = asRoot && !dropCapabilities;

/** When the CLI runs as the user 65534: every directory above the checkout must let others traverse it. */
function checkNobodyReachesCheckout(): void {
  for (let dir = root; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(
        `this test runs the CLI as the user ${NOBODY} (setpriv, from util-linux, was not found at ${SETPRIV}), ` +
          `and that user cannot traverse ${dir} (mode ${(statSync(dir).mode & 0o777).toString(8)}) to reach ${bin}: ` +
          `install util-linux, or run \`chmod o+x ${dir}\`, or clone somewhere every user can reach`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}

const work: string[] = [];
afterAll(async () => {
  for (const dir of work) {
    await restoreModes(dir);
    await rm(dir, { recursive: true, force: true });
  }
  await removeTempDirs();
});

/** A fresh directory every user can read and traverse (mkdtemp gives 0700). */
async function openTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await chmod(dir, 0o755);
  work.push(dir);
  return dir;
}

/** Gives back every permission the test took, so the directory can be removed by its owner. */
async function restoreModes(dir: string): Promise<void> {
  const { execFile } = await import('node:child_process');
  await new Promise((done) => execFile('chmod', ['-R', 'u+rwx', dir], done));
}

/** A copy of a freshly sealed valid bundle at `to` (modes as written: readable by everyone). */
async function copyOfValidBundle(to: string): Promise<void> {
  await cp(await writeModel(validBundle()), to, { recursive: true });
}

/** Runs the CLI as a user that permissions apply to; its exit code and output. */
async function runUnprivileged(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (asNobody) checkNobodyReachesCheckout();
  const argv = [bin, ...args];
  const child = spawn(dropCapabilities ? SETPRIV : process.execPath, dropCapabilities ? ['--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-all', '--', process.execPath, ...argv] : argv, {
    cwd,
    env: { ...process.env, NO_COLOR: '1', HOME: cwd },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asNobody ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { code, stdout, stderr };
}

interface JsonBundle {
  path: string;
  status: string;
  findings: { code: string; file: string }[];
}

describe('a directory that cannot be listed (item 7)', () => {
  it('inside a bundle, as a bundle, or beside the bundles: a finding on its own bundle (no_verdict); the others are verified; exit 1, not 3', { timeout: 60_000 }, async () => {
    const dir = await openTempDir('lb-unreadable-');
    const evidence = join(dir, 'evidence');
    await mkdir(evidence);
    await chmod(evidence, 0o755);
    await copyOfValidBundle(join(evidence, 'a-good'));
    await copyOfValidBundle(join(evidence, 'b-private-dir'));
    await mkdir(join(evidence, 'b-private-dir', 'private'));
    await writeFile(join(evidence, 'b-private-dir', 'private', 'x.txt'), 'hidden');
    await copyOfValidBundle(join(evidence, 'c-locked-bundle'));
    await mkdir(join(evidence, 'd-locked-junk'));
    await copyOfValidBundle(join(evidence, 'e-good'));
    for (const path of ['b-private-dir/private', 'c-locked-bundle', 'd-locked-junk']) await chmod(join(evidence, path), 0o000);

    const { code, stdout, stderr } = await runUnprivileged(['verify', '--json', evidence], dir);
    expect(stderr).not.toContain('unexpected error');
    expect(code).toBe(1);
    const bundles = (JSON.parse(stdout) as { bundles: JsonBundle[] }).bundles;
    const by = new Map(bundles.map((b) => [b.path.slice(evidence.length + 1), b]));
    expect([...by.keys()]).toEqual(['a-good', 'b-private-dir', 'c-locked-bundle', 'd-locked-junk', 'e-good']);
    expect(by.get('a-good')!.status).toBe('verified');
    expect(by.get('e-good')!.status).toBe('verified');
    expect(by.get('b-private-dir')!.status).toBe('no_verdict');
    expect(by.get('b-private-dir')!.findings.map((f) => [f.code, f.file])).toEqual([['MISSING_FILE', 'private']]);
    for (const locked of ['c-locked-bundle', 'd-locked-junk']) {
      expect(by.get(locked)!.status, locked).toBe('no_verdict');
      expect(by.get(locked)!.findings.map((f) => [f.code, f.file]), locked).toEqual([['MISSING_FILE', 'manifest.json']]);
    }

    // build too: the site is built (from this read-only checkout, for that user) with those bundles on it, not exit 3.
    const site = join(dir, 'published');
    await mkdir(site);
    if (asNobody) await chown(site, NOBODY, NOBODY);
    await writeFile(join(dir, 'ledgerboard.config.json'), '{}');
    const built = await runUnprivileged(['build', '--config', join(dir, 'ledgerboard.config.json'), '--bundles', evidence, '--out', join(site, 'out')], dir);
    expect(built.stderr).not.toContain('unexpected error');
    expect(built.code, built.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(site, 'out', 'report.json'), 'utf8')) as { bundles: { status: string; findings: { code: string; file: string }[] }[] };
    expect(report.bundles.filter((b) => b.status === 'verified')).toHaveLength(1); // a-good and e-good are one bundle (same content)
    expect(report.bundles.filter((b) => b.status === 'no_verdict').flatMap((b) => b.findings.map((f) => [f.code, f.file])).sort()).toEqual(
      // c-locked-bundle and d-locked-junk hold nothing readable: one entry (same, empty content).
      [['MISSING_FILE', 'manifest.json'], ['MISSING_FILE', 'private']],
    );

    // The evidence directory itself cannot be listed: one no_verdict bundle, not a crash.
    await chmod(evidence, 0o000);
    const locked = await runUnprivileged(['verify', '--json', evidence], dir);
    expect(locked.code).toBe(1);
    expect((JSON.parse(locked.stdout) as { bundles: JsonBundle[] }).bundles.map((b) => [b.status, b.findings.map((f) => f.code)])).toEqual([['no_verdict', ['MISSING_FILE']]]);
  });
});

describe('a symbolic link among the bundles (item 10)', () => {
  it('is never followed and never dropped: a rejected bundle (NOT_REGULAR_FILE) in the report, the real bundles as usual', async () => {
    const dir = await openTempDir('lb-link-');
    const evidence = join(dir, 'evidence');
    await mkdir(evidence);
    await copyOfValidBundle(join(evidence, 'a-good'));
    await copyOfValidBundle(join(dir, 'elsewhere'));
    await symlink(join(dir, 'elsewhere'), join(evidence, 'b-linked'));
    await symlink('/etc', join(evidence, 'c-outside'));
    expect((await discoverBundles(evidence)).map((p) => p.slice(evidence.length + 1))).toEqual(['a-good', 'b-linked', 'c-outside']);

    const results = await verifyPaths([evidence], undefined, { workers: 0 });
    const statuses = results.map((r) => [r.path.slice(evidence.length + 1), r.verification.status, r.verification.findings.map((f) => [f.code, f.file])]);
    expect(statuses).toEqual([
      ['a-good', 'verified', []],
      ['b-linked', 'invalid', [['NOT_REGULAR_FILE', '.']]],
      ['c-outside', 'invalid', [['NOT_REGULAR_FILE', '.']]],
    ]);
    // Nothing behind a link was read.
    expect(results[1]!.entries).toEqual([]);
    const report = buildReport(results, Config.parse({}));
    expect(report.bundles.filter((b) => b.status === 'invalid').map((b) => b.content_digest).sort()).toEqual([results[1]!.content_digest, results[2]!.content_digest].sort());
    expect(results[1]!.content_digest).not.toBe(results[2]!.content_digest);
  });

  it('a path the user names is followed even when it is a link (and shown with a trailing separator)', async () => {
    const dir = await openTempDir('lb-link-arg-');
    await copyOfValidBundle(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'named'));
    const results = await verifyPaths([join(dir, 'named')], undefined, { workers: 0 });
    expect(results.map((r) => [r.path, r.verification.status])).toEqual([[`${join(dir, 'named')}/`, 'verified']]);
  });

  it('the rejected page lists the link with its finding', { timeout: 120_000 }, async () => {
    const dir = await openTempDir('lb-link-site-');
    const evidence = join(dir, 'evidence');
    await mkdir(evidence);
    await copyOfValidBundle(join(evidence, 'a-good'));
    await copyOfValidBundle(join(dir, 'elsewhere'));
    await symlink(join(dir, 'elsewhere'), join(evidence, 'b-linked'));
    await writeFile(join(dir, 'ledgerboard.config.json'), '{}');
    const out = join(dir, 'site');
    const { runCli } = await import('../helpers/cli.ts');
    const built = await runCli(['build', '--config', join(dir, 'ledgerboard.config.json'), '--bundles', evidence, '--out', out]);
    expect(built.code, built.stderr).toBe(0);
    const report = JSON.parse(await readFile(join(out, 'report.json'), 'utf8')) as { bundles: { status: string; content_digest: string; findings: { code: string; file: string }[] }[] };
    const linked = report.bundles.filter((b) => b.status === 'invalid');
    expect(linked.map((b) => b.findings.map((f) => [f.code, f.file]))).toEqual([[['NOT_REGULAR_FILE', '.']]]);
    const page = await readFile(join(out, 'rejected', 'index.html'), 'utf8');
    expect(page).toContain(linked[0]!.content_digest);
    expect(page).toContain('NOT_REGULAR_FILE');
  });
});
