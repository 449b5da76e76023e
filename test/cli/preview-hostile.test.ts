/**
 * `ledgerboard preview` against hostile requests and a hostile tree (issue
 * 25, High 7 and a Medium item): a big blob requested many times at once is
 * streamed with backpressure (the server's peak RSS stays far below one
 * blob), HEAD and one byte range are served without the body; a link in any
 * component of a path is never followed out of the site; a Host header other
 * than the server's own (DNS rebinding) is refused with 421.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { allowedHosts, rangeOf, serveSite } from '../../src/site/build/serve.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

const BLOB_BYTES = 256 * 1024 * 1024;
const BLOB = 'b'.repeat(64);

/** A built site: index.html, a sparse 256 MiB blob, a small blob, and a secret directory beside it that links inside point to. */
async function hostileSite(): Promise<{ site: string; outside: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'lb-preview-hostile-'));
  temps.push(dir);
  const site = join(dir, 'site');
  const outside = join(dir, 'secret');
  await mkdir(join(site, 'blobs'), { recursive: true });
  await mkdir(join(site, 'boards', 'ab'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(outside, 'id_ed25519'), 'PRIVATE KEY\n');
  await writeFile(join(outside, 'index.html'), '<title>outside</title>');
  await writeFile(join(site, 'index.html'), '<!doctype html><title>home</title>');
  await writeFile(join(site, 'blobs', 'a'.repeat(64)), '0123456789');
  // Sparse: 256 MiB on the server's side of the wire, almost nothing on disk.
  const big = await open(join(site, 'blobs', BLOB), 'w');
  await big.truncate(BLOB_BYTES);
  await big.close();
  // Links in an inner component: a directory of the site that is a link out of it, and one a level deeper.
  await symlink(outside, join(site, 'leak'));
  await symlink(outside, join(site, 'boards', 'ab', 'deeper'));
  await symlink('../../secret', join(site, 'boards', 'rel'));
  return { site, outside };
}

/** One raw HTTP request (any Host header, any method), the body counted and dropped unless `keep`. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET', keep = true): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (keep) chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Sends `text` on a raw loopback connection; resolves with everything the server answered. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** Starts `ledgerboard preview` as a child process on a free port; resolves with its URL. */
async function startPreview(site: string, extra: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(root, 'bin', 'ledgerboard.mjs'), 'preview', '--out', site, '--port', '0', ...extra], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    let errors = '';
    child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /at (http:\/\/[^ ]+\/) \(Ctrl-C to stop\)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`preview exited ${code} before serving: ${errors}`)));
  });
  return { child, url };
}

/** A process's resident set size now and at its peak, in bytes (/proc/<pid>/status). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+([0-9]+) kB$`, 'm').exec(status)![1]) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

describe('preview streams what it serves (issue 25, High 7)', () => {
  it('8 requests at once of a 256 MiB blob (2 GiB in all), half of them held unread for a while: every byte arrives, the server peaks far below one blob', { timeout: 120_000 }, async () => {
    const { site } = await hostileSite();
    const { child, url } = await startPreview(site);
    try {
      const before = memoryOf(child.pid!);
      const blobUrl = new URL(`blobs/${BLOB}`, url).href;
      // Four readers that stop reading for a second (the server must wait for them, not buffer), four that read at full speed.
      const slow = Array.from({ length: 4 }, () =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(blobUrl, { agent: false }, (res) => {
            res.pause();
            let bytes = 0;
            setTimeout(() => {
              res.on('data', (chunk: Buffer) => (bytes += chunk.length));
              res.on('end', () => resolve(bytes));
              res.resume();
            }, 1_000);
          });
          req.on('error', reject);
          req.end();
        }),
      );
      const fast = Array.from({ length: 4 }, () => get(blobUrl, {}, 'GET', false).then((r) => r.bytes));
      const sizes = await Promise.all([...slow, ...fast]);
      expect(sizes).toEqual(Array(8).fill(BLOB_BYTES));
      const after = memoryOf(child.pid!);
      // It starts at about 50 MiB; read whole, one blob alone would add 256 MiB (eight at once 2 GiB); streamed, a few buffers (and garbage not yet collected).
      expect(after.peak, `VmHWM ${after.peak} bytes, VmRSS before ${before.rss}`).toBeLessThan(200 * 1024 * 1024);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('HEAD sends the headers only; one byte range is 206 with Content-Range; an unsatisfiable range is 416', async () => {
    const { site } = await hostileSite();
    const server = await serveSite({ root: site });
    try {
      const small = new URL(`blobs/${'a'.repeat(64)}`, server.url).href;
      const head = await get(small, {}, 'HEAD');
      expect([head.status, head.headers['content-length'], head.headers['accept-ranges'], head.body.length]).toEqual([200, '10', 'bytes', 0]);
      const part = await get(small, { Range: 'bytes=2-5' });
      expect([part.status, part.headers['content-range'], part.body.toString()]).toEqual([206, 'bytes 2-5/10', '2345']);
      const tail = await get(small, { Range: 'bytes=-3' });
      expect([tail.status, tail.body.toString()]).toEqual([206, '789']);
      const open = await get(small, { Range: 'bytes=8-' });
      expect([open.status, open.body.toString()]).toEqual([206, '89']);
      const past = await get(small, { Range: 'bytes=10-' });
      expect([past.status, past.headers['content-range']]).toEqual([416, 'bytes */10']);
      // Several ranges, or a malformed header: the whole file (a server may ignore Range).
      const many = await get(small, { Range: 'bytes=0-1,4-5' });
      expect([many.status, many.body.toString()]).toEqual([200, '0123456789']);
      const bigHead = await get(new URL(`blobs/${BLOB}`, server.url).href, {}, 'HEAD');
      expect([bigHead.status, bigHead.headers['content-length']]).toEqual([200, String(BLOB_BYTES)]);
      const bigEnd = await get(new URL(`blobs/${BLOB}`, server.url).href, { Range: `bytes=${BLOB_BYTES - 4}-` });
      expect([bigEnd.status, bigEnd.body]).toEqual([206, Buffer.alloc(4)]);
    } finally {
      await server.close();
    }
  });

  it('parses ranges as RFC 9110 says for one range', () => {
    expect(rangeOf(undefined, 10)).toEqual({ start: 0, end: 9, partial: false });
    expect(rangeOf('bytes=0-0', 10)).toEqual({ start: 0, end: 0, partial: true });
    expect(rangeOf('bytes=3-99', 10)).toEqual({ start: 3, end: 9, partial: true });
    expect(rangeOf('bytes=-99', 10)).toEqual({ start: 0, end: 9, partial: true });
    expect(rangeOf('bytes=-0', 10)).toBeNull();
    expect(rangeOf('bytes=5-4', 10)).toBeNull();
    expect(rangeOf('bytes=0-', 0)).toBeNull();
    expect(rangeOf('items=0-1', 10)).toEqual({ start: 0, end: 9, partial: false });
    expect(rangeOf('bytes=99999999999999999999-', 10)).toEqual({ start: 0, end: 9, partial: false });
  });
});

describe('preview never leaves the site and answers only to its own Host (issue 25, Medium)', () => {
  it('a link in any component of the path (a directory of the site that links out, one deeper, a relative one) is 404; the files beside them are served', async () => {
    const { site } = await hostileSite();
    const server = await serveSite({ root: site });
    try {
      for (const path of ['leak/id_ed25519', 'leak/', 'leak/index.html', 'boards/ab/deeper/id_ed25519', 'boards/rel/id_ed25519', 'boards/ab/deeper/']) {
        const response = await get(new URL(path, server.url).href);
        expect(response.status, path).toBe(404);
        expect(response.body.toString(), path).not.toContain('PRIVATE');
      }
      expect((await get(server.url)).status).toBe(200);
      expect((await get(new URL(`blobs/${'a'.repeat(64)}`, server.url).href)).body.toString()).toBe('0123456789');
    } finally {
      await server.close();
    }
  });

  it('serves a site whose root is itself reached through a link (the --out the user gave)', async () => {
    const { site } = await hostileSite();
    const linked = `${site}-link`;
    await symlink(site, linked);
    temps.push(linked);
    const server = await serveSite({ root: linked });
    try {
      expect((await get(server.url)).body.toString()).toContain('<title>home</title>');
      expect((await get(new URL('leak/id_ed25519', server.url).href)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('a Host header that is not the server (a DNS-rebinding page), or none, is 421 with a short body and nothing served; its own names are served', async () => {
    const { site } = await hostileSite();
    const { child, url } = await startPreview(site);
    try {
      const port = new URL(url).port;
      for (const host of ['attacker.example', `attacker.example:${port}`, `127.0.0.1:${Number(port) + 1}`, '127.0.0.1', `localhost.attacker.example:${port}`, `127.0.0.2:${port}`]) {
        const response = await get(url, { Host: host });
        expect(response.status, host).toBe(421);
        expect(response.body.toString(), host).toBe(`misdirected request: this preview answers only to Host 127.0.0.1:${port}\n`);
      }
      // No Host at all (HTTP/1.0 allows it): refused too.
      const bare = await rawRequest(Number(port), 'GET / HTTP/1.0\r\n\r\n');
      expect(bare).toMatch(/^HTTP\/1\.1 421 /);
      expect(bare).not.toContain('<title>home</title>');
      // An absolute URL in the request line naming another host, with our Host: not served.
      expect(await rawRequest(Number(port), `GET http://attacker.example/ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 400 /);
      const blob = await get(new URL(`blobs/${'a'.repeat(64)}`, url).href, { Host: `evil.example:${port}` });
      expect([blob.status, blob.body.toString().includes('0123456789')]).toEqual([421, false]);
      for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
        const response = await get(url, { Host: host });
        expect(response.status, host).toBe(200);
        expect(response.body.toString(), host).toContain('<title>home</title>');
      }
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('the names allowed: the loopback names and the address asked for, with the port; every address of the machine on a wildcard', () => {
    const on = (address: string, family: string, asked: string) => [...allowedHosts({ address, family, port: 8080 }, asked)].sort();
    expect(on('127.0.0.1', 'IPv4', '127.0.0.1')).toEqual(['127.0.0.1:8080', '[::1]:8080', 'localhost:8080']);
    expect(on('::1', 'IPv6', '::1')).toEqual(['127.0.0.1:8080', '[::1]:8080', 'localhost:8080']);
    expect(on('127.0.0.1', 'IPv4', 'Preview.Local')).toEqual(['127.0.0.1:8080', '[::1]:8080', 'localhost:8080', 'preview.local:8080']);
    expect(on('0.0.0.0', 'IPv4', '0.0.0.0')).toContain('0.0.0.0:8080');
  });
});
