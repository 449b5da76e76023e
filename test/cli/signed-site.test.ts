/**
 * keygen -> sign -> build -> `node dist/verify.mjs dist --key <pub>` (issue
 * 16, FORMAT.md 10): exit 0 under the pinned key (by PEM or by key id);
 * after one byte of report.json or of a counted manifest changes, exit 1
 * naming the signature; under another key, exit 1; without --key, the
 * signer is named and said not to be pinned. The envelopes and /keys.json
 * are published byte for byte; a site with no attestations gets neither.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

let dir: string;
let dist: string;
let pub: string;
let otherPub: string;
let keyid: string;
const verify = (site: string, ...args: string[]) =>
  promisify(execFile)(process.execPath, [join(site, 'verify.mjs'), ...args, site]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-signed-site-'));
  await cp('content/bundles', join(dir, 'evidence'), { recursive: true });
  const config = join(dir, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ bundles_dir: 'evidence', site_url: 'https://board.example.org/' }));
  const made = await runCli(['keygen', '-o', join(dir, 'keys'), '--config', config]);
  keyid = /^key id ([0-9a-f]{64})$/m.exec(made.stdout)![1]!;
  pub = join(dir, 'keys', `ledgerboard-${keyid}.pub`);
  const other = await runCli(['keygen', '-o', join(dir, 'other-keys'), '--config', config]);
  otherPub = join(dir, 'other-keys', `ledgerboard-${/^key id ([0-9a-f]{64})$/m.exec(other.stdout)![1]!}.pub`);
  expect((await runCli(['sign', '--key', join(dir, 'keys', `ledgerboard-${keyid}.key`), '--config', config, '--no-cache'])).code).toBe(0);
  dist = join(dir, 'dist');
  const built = await runCli(['build', '--config', config, '--out', dist, '--no-cache']);
  expect(built.code).toBe(0);
}, 180_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a signed site', () => {
  it('publishes the envelope byte for byte under /attestations/<report-hex>/ and the public key in /keys.json', async () => {
    const report = JSON.parse(await readFile(join(dist, 'report.json'), 'utf8')) as { report_id: string };
    const hex = report.report_id.slice(7);
    expect(await readFile(join(dist, 'attestations', hex, `${keyid}.json`))).toEqual(await readFile(join(dir, 'content', 'attestations', hex, `${keyid}.json`)));
    const keys = JSON.parse(await readFile(join(dist, 'keys.json'), 'utf8')) as { keys: { keyid: string; public_key_pem: string }[] };
    expect(keys.keys).toEqual([{ keyid, public_key_pem: await readFile(pub, 'utf8') }]);
  });

  it('verify.mjs --key <pem> and --key <keyid>: exit 0; without --key: exit 0, the signer named and not pinned', async () => {
    const byPem = await verify(dist, '--key', pub);
    expect(byPem.stdout).toContain(`ok  signature key ${keyid} a valid signature by this pinned key`);
    expect(byPem.code).toBe(0);
    expect((await verify(dist, '--key', keyid)).code).toBe(0);
    const unpinned = await verify(dist);
    expect(unpinned.code).toBe(0);
    expect(unpinned.stdout).toMatch(new RegExp(`info  signature key ${keyid} signed this report .*NOT pinned`));
  });

  it('ledgerboard verify-site runs the same checks from the CLI: exit 0 under the key, 1 under another, 2 without a site', async () => {
    const ok = await runCli(['verify-site', '--key', pub, dist]);
    expect(ok.stdout).toContain(`ok  signature key ${keyid} a valid signature by this pinned key`);
    expect(ok.code).toBe(0);
    const other = await runCli(['verify-site', '--key', otherPub, '--key', pub, dist]);
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/MISMATCH signature key [0-9a-f]{64} not signed by this key/);
    expect((await runCli(['verify-site'])).code).toBe(2);
  });

  it('another key: exit 1, not signed by it', async () => {
    const run = await verify(dist, '--key', otherPub);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/MISMATCH signature key [0-9a-f]{64} not signed by this key/);
  });

  it('one byte of report.json changed: exit 1, the signature names report.json (SUBJECT_MISMATCH)', async () => {
    const copy = join(dir, 'flipped-report');
    await cp(dist, copy, { recursive: true });
    const bytes = await readFile(join(copy, 'report.json'));
    // The first character of the site's title: still JSON, another digest.
    const at = bytes.indexOf('"title":"') + '"title":"'.length;
    expect(at).toBeGreaterThan(10);
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    await writeFile(join(copy, 'report.json'), bytes);
    const run = await verify(copy, '--key', pub);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/MISMATCH signature key [0-9a-f]{64} the signature does not hold\n {4}SUBJECT_MISMATCH: report\.json hashes to/);
  });

  it('one byte of a counted manifest changed: exit 1, the signature names that manifest', async () => {
    const copy = join(dir, 'flipped-manifest');
    await cp(dist, copy, { recursive: true });
    const [first] = (await readdir(join(copy, 'bundles'))).sort();
    const path = join(copy, 'bundles', first!, 'manifest.json');
    const bytes = await readFile(path);
    bytes[bytes.length - 1] = bytes[bytes.length - 1] === 0x0a ? 0x20 : 0x0a;
    await writeFile(path, bytes);
    const run = await verify(copy, '--key', pub);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`SUBJECT_MISMATCH: bundles/${first}/manifest\\.json hashes to`));
  });

  it('an envelope whose signature was truncated, or a keys.json whose key is not its id: exit 1 with the reason', async () => {
    const copy = join(dir, 'truncated');
    await cp(dist, copy, { recursive: true });
    const hex = (JSON.parse(await readFile(join(copy, 'report.json'), 'utf8')) as { report_id: string }).report_id.slice(7);
    const file = join(copy, 'attestations', hex, `${keyid}.json`);
    const envelope = JSON.parse(await readFile(file, 'utf8')) as { signatures: { sig: string }[] };
    envelope.signatures[0]!.sig = Buffer.from(envelope.signatures[0]!.sig, 'base64').subarray(0, 63).toString('base64');
    await writeFile(file, JSON.stringify(envelope));
    const run = await verify(copy, '--key', pub);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/BAD_SIGNATURE/);
    const keys = JSON.parse(await readFile(join(copy, 'keys.json'), 'utf8')) as { keys: { keyid: string }[] };
    keys.keys[0]!.keyid = '0'.repeat(64);
    await writeFile(join(copy, 'keys.json'), JSON.stringify(keys));
    const wrongId = await verify(copy);
    expect(wrongId.code).toBe(1);
    expect(wrongId.stdout).toMatch(/MISMATCH signature \/keys\.json KEYID_MISMATCH/);
  });
});
