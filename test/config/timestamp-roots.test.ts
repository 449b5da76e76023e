/**
 * The config's `timestamp_roots` (FORMAT.md 12): PEM files of root
 * certificates, paths relative to the config file, read strictly by the
 * loader. A file that is missing, not a file, too large, not UTF-8, holding
 * no certificate or a certificate that does not parse is a ConfigError
 * (exit 2) naming the config, the member's index and the file; good files
 * come back attached, the config holding the certificates' digests
 * (`sha256:<hex of the DER>`, sorted, each once), which the report's config
 * carries in place of the paths.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, MAX_ROOTS_PEM_BYTES, parseConfig, timestampRootsOf, withTimestampRoots } from '../../src/config/config.ts';
import { parsePinnedRoots } from '../../src/anchor/check.ts';
import { reportConfigOf, ReportConfig } from '../../src/report/schema.ts';
import { makeTempDir } from '../helpers/bundle-builder.ts';
import { twoAuthorities } from '../helpers/anchored-bundle.ts';

const { tsa, other } = twoAuthorities();

/** `sha256:<hex>` of a PEM certificate's DER, as openssl converts it. */
function derDigest(pemPath: string): string {
  const der = execFileSync('openssl', ['x509', '-in', pemPath, '-outform', 'DER']);
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** A config in a fresh directory naming `roots` (files written under roots/ from `files`: name to bytes or text). */
async function load(roots: string[], files: Record<string, string | Uint8Array>) {
  const dir = await makeTempDir('ledgerboard-roots-');
  await mkdir(join(dir, 'roots'));
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, 'roots', name), content);
  await writeFile(join(dir, 'lb.json'), JSON.stringify({ title: 't', timestamp_roots: roots }));
  const result = await loadConfigFile(join(dir, 'lb.json')).catch((e: unknown) => {
    if (e instanceof ConfigError) return e;
    throw e;
  });
  return { dir, result };
}

async function problem(roots: string[], files: Record<string, string | Uint8Array>, index: number, file: string): Promise<string> {
  const { dir, result } = await load(roots, files);
  expect(result).toBeInstanceOf(ConfigError);
  const message = (result as ConfigError).message;
  expect(message.startsWith(`${join(dir, 'lb.json')}: timestamp_roots[${index}]: `), message).toBe(true);
  expect(message).toContain(join(dir, 'roots', file));
  return message;
}

describe('good root files', () => {
  it('are read relative to the config file and attached; the config and the report config hold the digests of the DER, sorted', async () => {
    const { result } = await load(['roots/test.pem', 'roots/other.pem'], { 'test.pem': tsa.rootPem, 'other.pem': other.rootPem });
    if (result instanceof ConfigError) throw result;
    const digests = [derDigest(tsa.paths.root), derDigest(other.paths.root)].sort();
    expect(result.config.timestamp_roots).toEqual(digests);
    expect(timestampRootsOf(result.config).map((r) => Buffer.from(r.der).toString('base64'))).toEqual(
      [...parsePinnedRoots(tsa.rootPem), ...parsePinnedRoots(other.rootPem)].map((r) => Buffer.from(r.der).toString('base64')),
    );
    const reported = reportConfigOf(result.config);
    expect(reported.timestamp_roots).toEqual(digests);
    expect(ReportConfig.parse(reported)).toEqual(reported);
    expect(JSON.stringify(reported)).not.toContain('roots/');
  });

  it('one file may hold several certificates; a certificate named twice is pinned once', async () => {
    const { result } = await load(['roots/both.pem', 'roots/test.pem'], { 'both.pem': `${other.rootPem}\n${tsa.rootPem}`, 'test.pem': tsa.rootPem });
    if (result instanceof ConfigError) throw result;
    expect(result.config.timestamp_roots).toEqual([derDigest(tsa.paths.root), derDigest(other.paths.root)].sort());
    expect(timestampRootsOf(result.config)).toHaveLength(2);
  });

  it('the order of the files does not change the report config', async () => {
    const a = await load(['roots/test.pem', 'roots/other.pem'], { 'test.pem': tsa.rootPem, 'other.pem': other.rootPem });
    const b = await load(['roots/other.pem', 'roots/test.pem'], { 'test.pem': tsa.rootPem, 'other.pem': other.rootPem });
    if (a.result instanceof ConfigError || b.result instanceof ConfigError) throw new Error('unexpected');
    expect(JSON.stringify(reportConfigOf(b.result.config))).toBe(JSON.stringify(reportConfigOf(a.result.config)));
  });
});

describe('no roots', () => {
  it('a config without timestamp_roots pins none, and its report config has no such member', () => {
    const config = parseConfig(new TextEncoder().encode('{"title":"t"}'), 'lb.json');
    expect(timestampRootsOf(config)).toEqual([]);
    expect(reportConfigOf(config)).not.toHaveProperty('timestamp_roots');
  });

  it('a config naming roots but parsed without the loader is a bug, never a board that silently pins nothing', () => {
    const config = parseConfig(new TextEncoder().encode('{"timestamp_roots":["roots/test.pem"]}'), 'lb.json');
    expect(() => timestampRootsOf(config)).toThrow(/internal: the config names the time-stamp roots/);
    expect(() => reportConfigOf(config)).toThrow(/internal/);
    const attached = withTimestampRoots(config, parsePinnedRoots(tsa.rootPem));
    expect(reportConfigOf(attached).timestamp_roots).toEqual([derDigest(tsa.paths.root)]);
  });
});

describe('bad root files stop the command with the file named', () => {
  it('a missing file', async () => {
    expect(await problem(['roots/test.pem', 'roots/absent.pem'], { 'test.pem': tsa.rootPem }, 1, 'absent.pem')).toMatch(/cannot read the time-stamp root .*: ENOENT$/);
  });

  it('a file with no certificate (a private key, say)', async () => {
    const message = await problem(['roots/key.pem'], { 'key.pem': '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n' }, 0, 'key.pem');
    expect(message).toMatch(/is not a PEM file of root certificates: the PEM text holds no certificate$/);
  });

  it('a PEM block that is not base64, and one that is not a certificate', async () => {
    const notBase64 = await problem(['roots/bad.pem'], { 'bad.pem': '-----BEGIN CERTIFICATE-----\n*not base64*\n-----END CERTIFICATE-----\n' }, 0, 'bad.pem');
    expect(notBase64).toMatch(/certificate 1 of the PEM text is not base64$/);
    const notCert = await problem(['roots/junk.pem'], { 'junk.pem': `${tsa.rootPem}-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n` }, 0, 'junk.pem');
    expect(notCert).toMatch(/certificate 2 of the PEM text does not parse: /);
  });

  it('a file over the limit, a file that is not UTF-8, and a directory', async () => {
    expect(await problem(['roots/big.pem'], { 'big.pem': 'x'.repeat(MAX_ROOTS_PEM_BYTES + 1) }, 0, 'big.pem')).toContain(`is ${MAX_ROOTS_PEM_BYTES + 1} bytes, over the ${MAX_ROOTS_PEM_BYTES}`);
    expect(await problem(['roots/latin1.pem'], { 'latin1.pem': Uint8Array.of(0xff, 0xfe, 0x41) }, 0, 'latin1.pem')).toMatch(/is not UTF-8 text/);
    const { dir, result } = await load(['roots'], {});
    expect((result as ConfigError).message).toBe(`${join(dir, 'lb.json')}: timestamp_roots[0]: ${join(dir, 'roots')} is not a regular file (a PEM file of root certificates is expected)`);
  });
});
