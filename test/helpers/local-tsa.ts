/**
 * A local RFC 3161 time-stamp authority for tests and for the demo
 * (FORMAT.md 12): `openssl ts -reply` behind a small HTTP server on
 * 127.0.0.1. Everything is generated in a temporary directory when it
 * starts (a root CA, a TSA certificate with extendedKeyUsage critical
 * timeStamping signed by it, an openssl.cnf with a tsa section); no key is
 * ever committed.
 *
 * POST a DER TimeStampReq (Content-Type application/timestamp-query) to
 * `url`; the answer is openssl's TimeStampResp (application/timestamp-reply).
 * `mode` makes it misbehave:
 * - 'rejection': openssl itself rejects the request (a tsa section that
 *   accepts only SHA-512 imprints: status rejection, badAlg);
 * - 'http500': HTTP 500 and no token;
 * - 'garbage': HTTP 200 with bytes that are not DER;
 * - 'wrong-imprint': stamps another digest (the request's 32 imprint bytes
 *   inverted, its nonce kept): a granted token for another plan;
 * - 'redirect': HTTP 302 to another URL of the same server.
 * `delayMs` waits that long before answering (a slow authority).
 *
 * A fixed genTime (through `faketime`) is not offered: faketime is not
 * installed here, and a time-stamp at another time is not faked.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type TsaMode = 'ok' | 'rejection' | 'http500' | 'garbage' | 'wrong-imprint' | 'redirect';

export interface LocalTsaOptions {
  mode?: TsaMode;
  delayMs?: number;
}

export interface LocalTsa {
  /** The endpoint: http://127.0.0.1:<port>/tsa */
  url: string;
  /** The generated root certificate (PEM): `-CAfile` for `openssl ts -verify`. */
  rootPem: string;
  /** The TSA's own certificate (PEM). */
  signerPem: string;
  /** The temporary directory holding the keys, the config and the exchanged files. */
  dir: string;
  /** Every request body received, in order. */
  requests: Buffer[];
  /** Changes how the next requests are answered. */
  setMode(mode: TsaMode, delayMs?: number): void;
  close(): Promise<void>;
}

const SHA256_OID = Buffer.from('0609608648016503040201', 'hex');

/** Makes the keys and certificates (openssl) and starts the server. */
export async function startLocalTsa(options: LocalTsaOptions = {}): Promise<LocalTsa> {
  const dir = await mkdtemp(join(tmpdir(), 'ledgerboard-tsa-'));
  const at = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', at('root.key'), '-out', at('root.pem'), '-days', '3650',
    '-subj', '/O=ledgerboard tests/CN=ledgerboard test root', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  await ssl('req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', at('tsa.key'), '-out', at('tsa.csr'), '-subj', '/O=ledgerboard tests/CN=ledgerboard test TSA');
  await writeFile(at('tsa-ext.cnf'), ['[tsa_ext]', 'basicConstraints = critical,CA:FALSE', 'keyUsage = critical,digitalSignature', 'extendedKeyUsage = critical,timeStamping', 'subjectKeyIdentifier = hash', 'authorityKeyIdentifier = keyid', ''].join('\n'));
  await ssl('x509', '-req', '-in', at('tsa.csr'), '-CA', at('root.pem'), '-CAkey', at('root.key'), '-set_serial', '2', '-days', '3650', '-sha256', '-extfile', at('tsa-ext.cnf'), '-extensions', 'tsa_ext', '-out', at('tsa.pem'));
  await writeFile(at('tsaserial'), '01\n');
  const section = (name: string, digests: string) =>
    [`[${name}]`, `serial = ${at('tsaserial')}`, 'crypto_device = builtin', `signer_cert = ${at('tsa.pem')}`, `certs = ${at('root.pem')}`, `signer_key = ${at('tsa.key')}`,
      'signer_digest = sha256', 'default_policy = 1.3.6.1.4.1.4146.2.3.99', `digests = ${digests}`, 'accuracy = secs:1', 'clock_precision_digits = 0', 'ordering = no', 'tsa_name = yes',
      'ess_cert_id_chain = no', 'ess_cert_id_alg = sha256', ''].join('\n');
  await writeFile(at('openssl.cnf'), ['[tsa]', 'default_tsa = tsa_ok', '', section('tsa_ok', 'sha256, sha384, sha512'), section('tsa_sha512_only', 'sha512')].join('\n'));

  let mode: TsaMode = options.mode ?? 'ok';
  let delayMs = options.delayMs ?? 0;
  const requests: Buffer[] = [];
  let counter = 0;
  // openssl ts -reply increments a serial file: one reply at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const reply = (query: Buffer, tsaSection: string): Promise<Buffer> => {
    const n = ++counter;
    const work = queue.then(async () => {
      await writeFile(at(`q${n}.tsq`), query);
      await ssl('ts', '-reply', '-config', at('openssl.cnf'), '-section', tsaSection, '-queryfile', at(`q${n}.tsq`), '-inkey', at('tsa.key'), '-signer', at('tsa.pem'), '-chain', at('root.pem'), '-out', at(`r${n}.tsr`));
      return readFile(at(`r${n}.tsr`));
    });
    queue = work.catch(() => undefined);
    return work;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (request.method !== 'POST' || request.headers['content-type'] !== 'application/timestamp-query') {
      response.writeHead(400).end('POST application/timestamp-query\n');
      return;
    }
    requests.push(body);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (response.destroyed) return;
    switch (mode) {
      case 'http500':
        response.writeHead(500, { 'content-type': 'text/plain' }).end('the authority is down\n');
        return;
      case 'garbage':
        response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(Buffer.from('<html>not a time-stamp</html>\n'));
        return;
      case 'redirect':
        response.writeHead(302, { location: '/elsewhere' }).end();
        return;
      case 'wrong-imprint': {
        const query = Buffer.from(body);
        const imprintAt = query.indexOf(SHA256_OID) + SHA256_OID.length + 2 /* NULL */ + 2; /* 04 20 */
        for (let i = imprintAt; i < imprintAt + 32 && i < query.length; i++) query[i] = query[i]! ^ 0xff;
        const answer = await reply(query, 'tsa_ok');
        response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(answer);
        return;
      }
      default: {
        const answer = await reply(body, mode === 'rejection' ? 'tsa_sha512_only' : 'tsa_ok');
        response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(answer);
      }
    }
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(`local TSA failed: ${(error as Error).message}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    rootPem: at('root.pem'),
    signerPem: at('tsa.pem'),
    dir,
    requests,
    setMode(next, nextDelay = 0) {
      mode = next;
      delayMs = nextDelay;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
