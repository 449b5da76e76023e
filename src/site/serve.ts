/**
 * A small static file server for a built site (`ledgerboard preview`, and the
 * browser tests): node:http on one host and port, serving one directory at a
 * base path (the path of the config's site_url, "/" by default), as a plain
 * static host would. `/x/` serves `/x/index.html`; each path segment is
 * percent-decoded; a path that is not a regular file under the directory,
 * escapes it, or lies outside the base path is 404. Files without a known
 * extension (the content-addressed /blobs/<hex>) are
 * application/octet-stream, never sniffed (`X-Content-Type-Options: nosniff`).
 * Every request reads the file from disk. Only GET and HEAD.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lstat, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

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

/** The file a URL path names under root (after the base path), or null when it is malformed, escapes root or lies outside the base. */
export function filePathOf(root: string, pathname: string, basePath = '/'): string | null {
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
  return join(root, ...segments);
}

async function handle(root: string, basePath: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const send = (status: number, body: string | Buffer, type = 'text/plain; charset=utf-8', extra: Record<string, string> = {}): void => {
    response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...extra });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed\n', undefined, { Allow: 'GET, HEAD' });
  const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
  // The bare base without its slash (/board) goes to the base (/board/), as static hosts do.
  if (basePath !== '/' && pathname === basePath.slice(0, -1)) return send(301, '', undefined, { Location: basePath });
  const file = filePathOf(root, pathname, basePath);
  if (file === null) return send(404, 'not found\n');
  try {
    // lstat: a link inside the output is never followed (a site build writes none).
    if (!(await lstat(file)).isFile()) return send(404, 'not found\n');
    send(200, await readFile(file), CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream');
  } catch {
    send(404, 'not found\n');
  }
}

/** Starts serving `root` at its base path; resolves once listening. */
export async function serveSite(options: ServeOptions): Promise<SiteServer> {
  const basePath = options.basePath ?? '/';
  if (!basePath.startsWith('/') || !basePath.endsWith('/')) throw new Error(`a base path starts and ends with "/": ${JSON.stringify(basePath)}`);
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request.url ?? '');
    handle(options.root, basePath, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
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
