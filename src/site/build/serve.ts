/**
 * A small static file server for a built site (`ledgerboard preview`, and the
 * browser tests): node:http on one host and port, serving one directory at a
 * base path (the path of the config's site_url, "/" by default), as a plain
 * static host would. `/x/` serves `/x/index.html`; each path segment is
 * percent-decoded; a path that is not a regular file under the directory,
 * escapes it, passes through a symbolic link (in any component), or lies
 * outside the base path is 404. Files without a known extension (the
 * content-addressed /blobs/<hex>) are application/octet-stream, never sniffed
 * (`X-Content-Type-Options: nosniff`). Every request opens the file afresh and
 * streams it (never read whole; the socket's backpressure paces the reads);
 * one `Range: bytes=` range is honoured (206), HEAD sends the headers only.
 * Only GET and HEAD, and only to a Host header naming this server (its
 * address, 127.0.0.1, localhost or [::1], with the port; any address of the
 * machine when listening on every interface): any other Host is 421, so a
 * DNS-rebinding page cannot read the site.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lstat, realpath, type FileHandle } from 'node:fs/promises';
import { networkInterfaces } from 'node:os';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openNoFollow } from '../../files/read.ts';

/**
 * Content types by extension, as real static hosts (GitHub Pages, nginx)
 * send them; anything else, an extensionless file included, is
 * application/octet-stream.
 */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** A running server: its URL (origin plus base path, with a trailing slash) and how to stop it. */
export interface SiteServer {
  url: string;
  /** Every request path seen, in order (tests read it). */
  requests: string[];
  close(): Promise<void>;
}

/** Where and how to serve. */
export interface ServeOptions {
  /** The directory holding the built site. */
  root: string;
  /** The URL path the site lives under, starting and ending with "/" (default "/"). */
  basePath?: string;
  /** Default 127.0.0.1 (never every interface unless asked). */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
}

/** The path segments a URL path names under the root (after the base path; "x/" is "x/index.html"), or null when it is malformed, escapes the root or lies outside the base. */
export function segmentsOf(pathname: string, basePath = '/'): string[] | null {
  if (!pathname.startsWith(basePath)) return null;
  const segments: string[] = [];
  for (const raw of pathname.slice(basePath.length).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) return null;
    segments.push(segment);
  }
  if (segments.at(-1) === '') segments[segments.length - 1] = 'index.html';
  if (segments.slice(0, -1).includes('')) return null;
  return segments;
}

/** The file a URL path names under root (after the base path), or null when it is malformed, escapes root or lies outside the base. */
export function filePathOf(root: string, pathname: string, basePath = '/'): string | null {
  const segments = segmentsOf(pathname, basePath);
  return segments === null ? null : join(root, ...segments);
}

/** A request's byte range: the whole file, or one satisfiable `bytes=` range; null when the range cannot be satisfied. */
export function rangeOf(header: string | undefined, size: number): { start: number; end: number; partial: boolean } | null {
  const whole = { start: 0, end: size - 1, partial: false };
  // One range only: a multi-range or malformed header is ignored (RFC 9110 14.2 lets a server serve the whole file).
  const match = header === undefined ? null : /^bytes=([0-9]{0,15})-([0-9]{0,15})$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return whole;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1, partial: true };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return null;
  return { start, end, partial: true };
}

/**
 * Opens the regular file at `segments` under the root without following a
 * link in any component: each directory on the way is lstat'ed (a link, or
 * anything but a directory, is refused), the file is opened with O_NOFOLLOW
 * (non-blocking, so a FIFO put there meanwhile cannot hang it) and must be
 * the very file lstat saw (device and inode), and its real path must be the
 * root's real path plus the segments (a directory swapped for a link between
 * the checks is caught). Null when any of that fails.
 */
async function openInside(realRoot: string, segments: readonly string[]): Promise<FileHandle | null> {
  let path = realRoot;
  for (const segment of segments.slice(0, -1)) {
    path = join(path, segment);
    if (!(await lstat(path)).isDirectory()) return null;
  }
  path = join(path, segments.at(-1)!);
  const seen = await lstat(path);
  if (!seen.isFile()) return null;
  const handle = await openNoFollow(path);
  try {
    const opened = await handle.stat();
    if (opened.isFile() && opened.dev === seen.dev && opened.ino === seen.ino && (await realpath(path)) === path) return handle;
  } catch {
    // Refused below.
  }
  await handle.close();
  return null;
}

/** What a request may name as its Host: the listening address, the loopback names, and the address asked for (all with the port). */
export function allowedHosts(listening: AddressInfo, asked: string): Set<string> {
  const port = listening.port;
  const names = new Set(['127.0.0.1', 'localhost', '::1', listening.address, asked]);
  // Every interface: any address of this machine names it (a reader on the network types one of them).
  if (asked === '0.0.0.0' || asked === '::' || listening.address === '0.0.0.0' || listening.address === '::') {
    for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) names.add(i.address.replace(/%.*$/, ''));
  }
  return new Set([...names].map((name) => `${name.includes(':') ? `[${name.toLowerCase()}]` : name.toLowerCase()}:${port}`));
}

async function handle(site: { realRoot: string; basePath: string; hosts: ReadonlySet<string> }, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const send = (status: number, body: string, extra: Record<string, string> = {}): void => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  // DNS rebinding: a page of another origin whose name now resolves to this machine sends its own name as Host. Answer only to ours.
  const host = (request.headers.host ?? '').toLowerCase();
  if (!site.hosts.has(host)) return send(421, `misdirected request: this preview answers only to Host ${[...site.hosts][0]}\n`);
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed\n', { Allow: 'GET, HEAD' });
  // Origin-form only (/path): an absolute URL in the request line would name another host.
  if (!(request.url ?? '').startsWith('/')) return send(400, 'bad request\n');
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  const { basePath } = site;
  // The bare base without its slash (/board) goes to the base (/board/), as static hosts do.
  if (basePath !== '/' && pathname === basePath.slice(0, -1)) return send(301, '', { Location: basePath });
  const segments = segmentsOf(pathname, basePath);
  if (segments === null) return send(404, 'not found\n');
  const file = await openInside(site.realRoot, segments).catch(() => null);
  if (file === null) return send(404, 'not found\n');
  try {
    const { size } = await file.stat();
    const range = rangeOf(request.headers.range, size);
    const headers: Record<string, string> = {
      'Content-Type': CONTENT_TYPES[extname(segments.at(-1)!).toLowerCase()] ?? 'application/octet-stream',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Accept-Ranges': 'bytes',
    };
    if (range === null) return send(416, 'range not satisfiable\n', { 'Content-Range': `bytes */${size}` });
    const length = range.end - range.start + 1;
    if (range.partial) headers['Content-Range'] = `bytes ${range.start}-${range.end}/${size}`;
    response.writeHead(range.partial ? 206 : 200, { ...headers, 'Content-Length': String(length) });
    if (request.method === 'HEAD' || length === 0) {
      response.end();
      return;
    }
    // Streamed, never read whole: pipeline waits for the socket to drain (backpressure) and ends the read when the client goes.
    await pipeline(file.createReadStream({ start: range.start, end: range.end, autoClose: false, highWaterMark: 64 * 1024 }), response).catch(() => response.destroy());
  } finally {
    await file.close().catch(() => undefined);
  }
}

/** Starts serving `root` at its base path; resolves once listening. */
export async function serveSite(options: ServeOptions): Promise<SiteServer> {
  const basePath = options.basePath ?? '/';
  if (!basePath.startsWith('/') || !basePath.endsWith('/')) throw new Error(`a base path starts and ends with "/": ${JSON.stringify(basePath)}`);
  const requests: string[] = [];
  // The root's real path, once: every file served must lie under it with no link on the way.
  const site = { realRoot: await realpath(options.root), basePath, hosts: new Set<string>() };
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    handle(site, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  const asked = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, asked, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  site.hosts = allowedHosts(address, asked);
  return {
    url: `http://${host}:${address.port}${basePath}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Idle keep-alive connections (a browser's) would hold close() open.
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
