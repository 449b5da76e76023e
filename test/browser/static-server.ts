/**
 * Browser-test helper: the site's own static server (src/site/build/serve.ts, the
 * one `ledgerboard preview` runs) on 127.0.0.1 at a random port, at the root
 * of its origin. Content types are those of real static hosts; each request
 * reads the file from disk, so a test that changes a served file sees the
 * change on the next request.
 */
import { serveSite } from '../../src/site/build/serve.ts';

/** A running server: its origin (no trailing slash) and how to stop it. */
export interface StaticServer {
  origin: string;
  /** Every request path seen, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Serves `root` on 127.0.0.1 at a random port. */
export async function serveStatic(root: string): Promise<StaticServer> {
  const server = await serveSite({ root });
  return { origin: new URL(server.url).origin, requests: server.requests, close: server.close };
}
