/**
 * A local RFC 3161 time-stamp authority for tests and for the demo
 * (FORMAT.md 12): `openssl ts -reply` behind a small HTTP server on
 * 127.0.0.1. Everything is generated in a temporary directory when it
 * starts, by test/helpers/tsa-tokens.ts makeTsa (a root CA, an
 * intermediate, a TSA certificate with extendedKeyUsage critical
 * timeStamping, an openssl.cnf with its tsa sections); no key is ever
 * committed. Its tokens carry the intermediate and the TSA certificate, so
 * `openssl ts -verify -CAfile <rootPem>` checks them.
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
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeTsa } from './tsa-tokens.ts';

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
  const tsa = makeTsa();
  const at = (name: string) => join(tsa.dir, name);

  let mode: TsaMode = options.mode ?? 'ok';
  let delayMs = options.delayMs ?? 0;
  const requests: Buffer[] = [];
  let counter = 0;
  // openssl ts -reply (run synchronously) takes the next serial from a file: one reply at a time.
  const reply = async (query: Buffer, tsaSection: string): Promise<Buffer> => {
    const n = ++counter;
    await writeFile(at(`q${n}.tsq`), query);
    tsa.openssl(['ts', '-reply', '-config', tsa.paths.config, '-section', tsaSection, '-queryfile', at(`q${n}.tsq`), '-out', at(`r${n}.tsr`)]);
    return readFile(at(`r${n}.tsr`));
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
        const answer = await reply(query, 'tsa_config');
        response.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(answer);
        return;
      }
      default: {
        const answer = await reply(body, mode === 'rejection' ? 'tsa_sha512_only' : 'tsa_config');
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
    rootPem: tsa.paths.root,
    signerPem: tsa.paths.tsaCert,
    dir: tsa.dir,
    requests,
    setMode(next, nextDelay = 0) {
      mode = next;
      delayMs = nextDelay;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      tsa.remove();
    },
  };
}
