/**
 * A throw-away RFC 3161 time-stamp authority made with `openssl` in a temp
 * directory (FORMAT.md 12): a root CA, an intermediate CA and a TSA
 * certificate (extendedKeyUsage critical timeStamping), a generated
 * openssl.cnf with a `tsa` section, and `openssl ts -query` / `-reply` to
 * make requests and answers. No key is ever committed: every key is made
 * here, per test run, and removed with the directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The signer key's kind: RSA (PKCS#1 v1.5 signatures), an EC P-256 key (ECDSA) or Ed25519. */
export type TsaKeyKind = 'rsa' | 'ec' | 'ed25519';

export interface QueryOptions {
  readonly algorithm?: 'sha256' | 'sha1' | 'sha512';
  readonly cert?: boolean;
  readonly policy?: string;
  readonly name?: string;
}

export interface Tsa {
  readonly dir: string;
  /** The root CA's certificate, PEM. */
  readonly rootPem: string;
  /** The path of root.pem, chain.pem (intermediate + TSA certificates) and tsa.pem. */
  readonly paths: { readonly root: string; readonly chain: string; readonly tsaCert: string; readonly tsaKey: string; readonly config: string };
  /**
   * A request over `digestHex` (hex of the hashed message) with the given imprint algorithm (SHA-256 unless
   * said), asking for the signer certificate unless `cert` is false, under `policy` when given; returns the
   * path of the .tsq.
   */
  query(digestHex: string, options?: QueryOptions): string;
  /** The DER TimeStampResp for a request file (path of the .tsr written too). */
  reply(queryPath: string, name?: string): { readonly path: string; readonly bytes: Buffer };
  /** The bare TimeStampToken for a request file (`-token_out`). */
  token(queryPath: string, name?: string): { readonly path: string; readonly bytes: Buffer };
  /** `openssl ts -reply -in <tsr> -text` (or `-token_in` for a token). */
  text(path: string, token?: boolean): string;
  /**
   * A bare token made by `openssl cms -sign` over the given TSTInfo DER with the TSA's key and certificate
   * (and the intermediates): for signatures `openssl ts -reply` does not make (RSA-PSS with `-keyopt`) and a
   * signer named by its subject key identifier (`-keyid`). It has no ESS signing-certificate attribute, so
   * `openssl ts -verify` refuses it.
   */
  cmsToken(tstInfo: Uint8Array, args?: readonly string[]): Buffer;
  /** Runs openssl with these arguments in the TSA's directory; returns stdout. Throws on a non-zero exit. */
  openssl(args: readonly string[]): string;
  remove(): void;
}

const SUBJECTS = {
  root: '/C=XX/O=Ledgerboard Test/CN=Test Root CA',
  intermediate: '/C=XX/O=Ledgerboard Test/CN=Test Intermediate CA',
  tsa: '/C=XX/O=Ledgerboard Test, Time/OU=Stamps+CN=Test TSA',
};

function keyArgs(kind: TsaKeyKind): string[] {
  if (kind === 'rsa') return ['-newkey', 'rsa:2048'];
  if (kind === 'ec') return ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  return ['-newkey', 'ed25519'];
}

/**
 * Makes a TSA in a new temp directory. `rootSubject` changes the root's name (a second, unrelated root);
 * `signerKey` the TSA certificate's key kind; `digest` the CMS signer digest of the `tsa` section;
 * `precisionDigits` the genTime's fraction digits (`clock_precision_digits`, none unless said);
 * `intermediates` how many CAs stand between the root and the TSA certificate (1 unless said; EC keys
 * past the first, for speed); `carryChain: false` leaves them out of the tokens (`certs` unset), which then
 * carry the signer certificate alone; `signerDays` the TSA certificate's validity (-1: expired yesterday).
 */
export function makeTsa(
  options: {
    readonly rootSubject?: string;
    readonly signerKey?: TsaKeyKind;
    readonly digest?: 'sha1' | 'sha256' | 'sha384' | 'sha512';
    readonly precisionDigits?: number;
    readonly intermediates?: number;
    readonly carryChain?: boolean;
    readonly signerDays?: number;
  } = {},
): Tsa {
  const dir = mkdtempSync(join(tmpdir(), 'lb-tsa-'));
  const run = (args: readonly string[]): string => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
  const config = join(dir, 'openssl.cnf');
  writeFileSync(
    config,
    [
      '[ req ]',
      'distinguished_name = dn',
      'prompt = no',
      '[ dn ]',
      'CN = unused',
      '[ v3_ca ]',
      'basicConstraints = critical, CA:true',
      'keyUsage = critical, keyCertSign, cRLSign',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid:always',
      '[ v3_tsa ]',
      'basicConstraints = critical, CA:false',
      'keyUsage = critical, digitalSignature',
      'extendedKeyUsage = critical, timeStamping',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid:always',
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      'signer_cert = $dir/tsa.pem',
      ...(options.carryChain === false ? [] : ['certs = $dir/chain.pem']),
      'signer_key = $dir/tsa.key',
      `signer_digest = ${options.digest ?? 'sha256'}`,
      'default_policy = 1.2.3.4.1',
      'other_policies = 1.2.3.4.5',
      'digests = sha1, sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = yes',
      'ess_cert_id_chain = no',
      'ess_cert_id_alg = sha256',
      `clock_precision_digits = ${options.precisionDigits ?? 0}`,
      // The same authority accepting only SHA-512 imprints: a SHA-256 request gets a real rejection (badAlg).
      '[ tsa_sha512_only ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      'signer_cert = $dir/tsa.pem',
      'signer_key = $dir/tsa.key',
      'signer_digest = sha256',
      'default_policy = 1.2.3.4.1',
      'digests = sha512',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'serial'), '01\n');
  const days = ['-days', '3650'];
  run(['req', '-x509', '-config', config, ...keyArgs('rsa'), '-nodes', '-keyout', 'root.key', '-out', 'root.pem', '-subj', options.rootSubject ?? SUBJECTS.root, '-extensions', 'v3_ca', ...days]);
  let issuer = 'root';
  const chain: string[] = [];
  for (let i = 1; i <= (options.intermediates ?? 1); i++) {
    const name = i === 1 ? 'int' : `int${i}`;
    const subject = i === 1 ? SUBJECTS.intermediate : `/C=XX/O=Ledgerboard Test/CN=Test Intermediate CA ${i}`;
    run(['req', '-new', '-config', config, ...keyArgs(i === 1 ? 'rsa' : 'ec'), '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
    run(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-set_serial', String(i + 1), '-extfile', config, '-extensions', 'v3_ca', '-out', `${name}.pem`, ...days]);
    chain.push(readFileSync(join(dir, `${name}.pem`), 'utf8'));
    issuer = name;
  }
  run(['req', '-new', '-config', config, ...keyArgs(options.signerKey ?? 'rsa'), '-nodes', '-keyout', 'tsa.key', '-out', 'tsa.csr', '-subj', SUBJECTS.tsa, '-multivalue-rdn']);
  run(['x509', '-req', '-in', 'tsa.csr', '-CA', `${issuer}.pem`, '-CAkey', `${issuer}.key`, '-set_serial', '99', '-extfile', config, '-extensions', 'v3_tsa', '-out', 'tsa.pem', '-days', String(options.signerDays ?? 3650)]);
  writeFileSync(join(dir, 'chain.pem'), chain.join('') + readFileSync(join(dir, 'tsa.pem'), 'utf8'));
  let count = 0;
  const fresh = (name: string | undefined, ext: string) => join(dir, `${name ?? `f${++count}`}.${ext}`);
  return {
    dir,
    rootPem: readFileSync(join(dir, 'root.pem'), 'utf8'),
    paths: { root: join(dir, 'root.pem'), chain: join(dir, 'chain.pem'), tsaCert: join(dir, 'tsa.pem'), tsaKey: join(dir, 'tsa.key'), config },
    query(digestHex, options = {}) {
      const out = fresh(options.name, 'tsq');
      const policy = options.policy === undefined ? [] : ['-tspolicy', options.policy];
      run(['ts', '-query', '-digest', digestHex, `-${options.algorithm ?? 'sha256'}`, ...(options.cert === false ? [] : ['-cert']), ...policy, '-out', out]);
      return out;
    },
    reply(queryPath, name) {
      const out = fresh(name, 'tsr');
      run(['ts', '-reply', '-config', config, '-queryfile', queryPath, '-out', out]);
      return { path: out, bytes: readFileSync(out) };
    },
    token(queryPath, name) {
      const out = fresh(name, 'tst');
      run(['ts', '-reply', '-config', config, '-queryfile', queryPath, '-token_out', '-out', out]);
      return { path: out, bytes: readFileSync(out) };
    },
    text(path, token = false) {
      return run(['ts', '-reply', '-config', config, '-in', path, ...(token ? ['-token_in'] : []), '-text']);
    },
    cmsToken(tstInfo, args = []) {
      const input = fresh(undefined, 'tstinfo');
      const out = fresh(undefined, 'cms');
      writeFileSync(input, tstInfo);
      const intermediates = join(dir, 'intermediates.pem');
      writeFileSync(intermediates, chain.join(''));
      run(['cms', '-sign', '-binary', '-in', input, '-econtent_type', '1.2.840.113549.1.9.16.1.4', '-signer', 'tsa.pem', '-inkey', 'tsa.key', '-md', 'sha256', ...args, '-nodetach', '-outform', 'DER', '-out', out, '-certfile', intermediates]);
      return readFileSync(out);
    },
    openssl: run,
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
