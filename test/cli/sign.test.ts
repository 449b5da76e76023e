/**
 * `ledgerboard keygen` and `ledgerboard sign` (FORMAT.md 10): a key pair
 * written create-only with the private key at mode 0600 and never where it
 * would be published; the current report signed over report.json and every
 * counted manifest as the site publishes them, kept create-only; signing
 * twice is a no-op; the envelope checks under the pinned key.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEnvelope, manifestSubjectName, type SubjectFile } from '../../src/attest/envelope.ts';
import type { Report } from '../../src/report/schema.ts';
import { runCli } from '../helpers/cli.ts';

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-sign-'));
  await cp('content/bundles', join(dir, 'evidence'), { recursive: true });
  config = join(dir, 'ledgerboard.config.json');
  await writeFile(config, JSON.stringify({ bundles_dir: 'evidence', site_url: 'https://board.example.org/x' }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('keygen', () => {
  it('writes a pair: the private key 0600, the public key, the key id the SHA-256 of the DER SPKI; never overwrites', async () => {
    const run = await runCli(['keygen', '-o', join(dir, 'keys'), '--config', config]);
    expect(run.code).toBe(0);
    const keyid = /^key id ([0-9a-f]{64})$/m.exec(run.stdout)![1]!;
    const names = (await readdir(join(dir, 'keys'))).sort();
    expect(names).toEqual([`ledgerboard-${keyid}.key`, `ledgerboard-${keyid}.pub`]);
    expect((await stat(join(dir, 'keys', names[0]!))).mode & 0o777).toBe(0o600);
    const pub = createPublicKey(await readFile(join(dir, 'keys', names[1]!), 'utf8'));
    expect(createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('hex')).toBe(keyid);
  });

  it('refuses a directory inside the evidence, the history, the attestations or dist/ (exit 2), and no -o', async () => {
    for (const inside of ['evidence/keys', 'content/reports', 'content/attestations/k', 'dist']) {
      const run = await runCli(['keygen', '-o', join(dir, inside), '--config', config]);
      expect(run.code, inside).toBe(2);
      expect(run.stderr, inside).toMatch(/lies inside the (evidence|retained reports|attestations|default output) directory/);
    }
    expect((await runCli(['keygen', '--config', config])).code).toBe(2);
  });
});

describe('sign', () => {
  it('signs the current report over report.json and every counted manifest; a repeat is a no-op; the envelope checks under the key', async () => {
    const keys = join(dir, 'signing');
    const made = await runCli(['keygen', '-o', keys, '--config', config]);
    const keyid = /^key id ([0-9a-f]{64})$/m.exec(made.stdout)![1]!;
    const key = join(keys, `ledgerboard-${keyid}.key`);
    const first = await runCli(['sign', '--key', key, '--config', config, '--no-cache']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const report = JSON.parse((await runCli(['report', '--json', '--config', config, '--no-cache'])).stdout) as Report;
    const hex = report.report_id.slice('sha256:'.length);
    expect(first.stdout).toBe(`signed report ${report.report_id} with key ${keyid}: ${join(dir, 'content', 'attestations', hex, `${keyid}.json`)} (4 counted manifests and report.json)\n`);
    const path = join(dir, 'content', 'attestations', hex, `${keyid}.json`);
    const bytes = await readFile(path);
    const again = await runCli(['sign', '--key', key, '--config', config, '--no-cache']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^already signed report/);
    expect(await readFile(path)).toEqual(bytes);

    const { canonicalJson } = await import('../../src/json/canonical.ts');
    const files: SubjectFile[] = [{ name: 'report.json', bytes: Buffer.from(`${canonicalJson(report)}\n`) }];
    for (const name of await readdir(join(dir, 'evidence'))) {
      const manifest = await readFile(join(dir, 'evidence', name, 'manifest.json'));
      files.push({ name: manifestSubjectName((JSON.parse(manifest.toString()) as { bundle_id: string }).bundle_id), bytes: manifest });
    }
    const pinned = createPublicKey(await readFile(join(keys, `ledgerboard-${keyid}.pub`), 'utf8'));
    const check = checkEnvelope(bytes, { files, report_id: report.report_id }, [pinned]);
    expect(check.problems).toEqual([]);
    expect(check.valid).toBe(true);
    expect(check.statement!.predicate.site_url).toBe('https://board.example.org/x/');
  }, 60_000);

  it('refuses a key inside the evidence (exit 2), a missing --key, and a file that is not an Ed25519 private key', async () => {
    await writeFile(join(dir, 'evidence', 'stray.key'), 'x');
    const inside = await runCli(['sign', '--key', join(dir, 'evidence', 'stray.key'), '--config', config]);
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/lies inside the evidence directory/);
    await rm(join(dir, 'evidence', 'stray.key'));
    expect((await runCli(['sign', '--config', config])).code).toBe(2);
    await writeFile(join(dir, 'not-a-key.pem'), 'hello');
    const bad = await runCli(['sign', '--key', join(dir, 'not-a-key.pem'), '--config', config]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a private key in PEM/);
  });

  it('given the public half of a pair, names the private key file it needs instead of an OpenSSL error (exit 2)', async () => {
    const keys = join(dir, 'halves');
    const keyid = /^key id ([0-9a-f]{64})$/m.exec((await runCli(['keygen', '-o', keys, '--config', config])).stdout)![1]!;
    const pub = join(keys, `ledgerboard-${keyid}.pub`);
    const run = await runCli(['sign', '--key', pub, '--config', config, '--no-cache']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`ledgerboard: ${pub} is a public key; sign needs the private key ${join(keys, `ledgerboard-${keyid}.key`)}\nRun 'ledgerboard sign --help' for usage.\n`);
    // Another name than keygen's: the message says which file to look for.
    await cp(pub, join(keys, 'mine.pem'));
    const other = await runCli(['sign', '--key', join(keys, 'mine.pem'), '--config', config, '--no-cache']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${join(keys, 'mine.pem')} is a public key; sign needs the private key (the .key file keygen wrote beside the .pub)`);
  });

  it('a pair named the old way (the first 16 hex digits of the id) still signs as a file; verify.mjs --key <16 hex> says to give the whole id', async () => {
    const keys = join(dir, 'old-names');
    const keyid = /^key id ([0-9a-f]{64})$/m.exec((await runCli(['keygen', '-o', keys, '--config', config])).stdout)![1]!;
    const { rename } = await import('node:fs/promises');
    for (const ext of ['key', 'pub']) await rename(join(keys, `ledgerboard-${keyid}.${ext}`), join(keys, `ledgerboard-${keyid.slice(0, 16)}.${ext}`));
    const signed = await runCli(['sign', '--key', join(keys, `ledgerboard-${keyid.slice(0, 16)}.key`), '--config', config, '--no-cache']);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(new RegExp(`^signed report sha256:[0-9a-f]{64} with key ${keyid}: `));
    const { main: verifyMain } = await import('../../src/rederive/verify-main.ts');
    const errors: string[] = [];
    const code = await verifyMain(['--key', keyid.slice(0, 16), join(dir, 'no-site')], () => {}, (line) => errors.push(line));
    expect(code).toBe(2);
    expect(errors).toEqual([`node verify.mjs: --key ${keyid.slice(0, 16)}: 16 hex digits are only the start of a key id (an older keygen's file name), too few to pin a key: give the whole 64-hex key id (keygen printed it) or the public key file ledgerboard-${keyid.slice(0, 16)}.pub`]);
  }, 60_000);
});
