/**
 * Browser-test helper: a tiny static file server over node:http on
 * 127.0.0.1 (a random port). Each request reads the file from disk, so a
 * test that changes a served file sees the change on the next request.
 *
 * `/x/` serves `/x/index.html`; each path segment is percent-decoded; a path that is not a
 * regular file under the root is 404, including a directory without its
 * trailing slash (the site always links with one).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, stat } from 'node:fs/promises';
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
  '.svg': 'image/svg+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
};

/** A running server: its origin (no trailing slash) and how to stop it. */
export interface StaticServer {
  origin: string;
  /** Every request path seen, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** The file a URL path names under root, or null when the path is malformed or escapes it. */
export function filePathOf(root: string, pathname: string): string | null {
  if (!pathname.startsWith('/')) return null;
  const segments: string[] = [];
  for (const raw of pathname.slice(1).split('/')) {
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

async function handle(root: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const send = (status: number, body: string | Buffer, type = 'text/plain; charset=utf-8'): void => {
    response.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(405, 'method not allowed\n');
  const pathname = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  const file = filePathOf(root, pathname);
  if (file === null) return send(404, 'not found\n');
  try {
    if (!(await stat(file)).isFile()) return send(404, 'not found\n');
    const bytes = await readFile(file);
    return send(200, bytes, CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream');
  } catch {
    return send(404, 'not found\n');
  }
}

/** Serves `root` on 127.0.0.1 at a random port. */
export async function serveStatic(root: string): Promise<StaticServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    handle(root, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
