/**
 * The in-browser verifier's Web Worker (issue 24, item 3): re-derives the
 * site it is served from with the project's own core (src/rederive), off the
 * page's thread. Bundled for browsers by scripts/bundle-browser-verifier.mjs
 * into lib/site-verifier/verify-worker.js; the site publishes it at its root
 * (/verify-worker.js, or /board/verify-worker.js under a base path), so the
 * site's root is the directory of the worker's own URL.
 *
 * Messages in:  { type: 'start', ledgers?: string[] }   (ledgers: only these, by ledger digest)
 *               { type: 'root', pem: string }   (the reader's own root: reader-root.ts)
 * Messages out: { type: 'progress', phase, done, total, bytes }   (at most ~10 a second)
 *               { type: 'done', result }   (a RederiveResult)
 *               { type: 'root-done', result }   (a ReaderRootResult)
 *               { type: 'error', message }
 * One run per worker: the page starts a new worker for each run.
 */
import { rederiveSite } from '../rederive.ts';
import type { RederiveProgress, SiteGet } from '../types.ts';
import { boundedFetch, fetchBounds, joinChunks, type FetchBounds } from '../bounded-fetch.ts';
import { isNotInBrowser } from './not-in-browser.ts';
import { prepareAnchorSignatures } from './anchor-signatures.ts';
import { checkReaderRoot } from '../reader-root.ts';

/** The parts of a dedicated worker's global scope used here (the project's TypeScript lib is the DOM's, not the worker's). */
interface WorkerScope {
  location: { href: string };
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  fetch: typeof fetch;
}

/** Fetches at once at most (as verify-browser.js does). */
export const FETCHES_AT_ONCE = 6;
/** The least time between two progress messages. */
export const PROGRESS_EVERY_MS = 100;

/**
 * A SiteGet over HTTP relative to `root` (a URL ending in "/"): the bytes of a 2xx answer, null for 404 and
 * 410, an error for anything else; at most FETCHES_AT_ONCE requests in flight, the rest queued in order.
 * Every request is bounded as verify.mjs bounds it (bounded-fetch.ts: 60 s without a byte, a blob never
 * read past its listed size, any other file past 256 MiB); the browser follows redirects itself (at most
 * 20, http(s) only).
 */
export function httpSiteGet(root: string, fetchImpl: typeof fetch = fetch, bounds: FetchBounds = fetchBounds()): SiteGet {
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = async (): Promise<void> => {
    if (active < FETCHES_AT_ONCE) {
      active++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return async (urlPath, listedBytes) => {
    if (!urlPath.startsWith('/')) throw new Error(`not a site path: ${JSON.stringify(urlPath)}`);
    const url = new URL(urlPath.slice(1), root);
    await acquire();
    try {
      const chunks: Uint8Array[] = [];
      const length = await boundedFetch(url.href, listedBytes, bounds, (chunk) => chunks.push(chunk), { fetchImpl, init: { cache: 'no-cache' } });
      return length === null ? null : joinChunks(chunks, length);
    } finally {
      release();
    }
  };
}

/** Posts progress at most once per PROGRESS_EVERY_MS, and always on a new phase. */
export function throttledProgress(post: (message: unknown) => void, now: () => number = () => Date.now()): (progress: RederiveProgress) => void {
  let last = -Infinity;
  let phase: string | null = null;
  return (progress) => {
    const t = now();
    if (progress.phase === phase && t - last < PROGRESS_EVERY_MS && progress.done < progress.total) return;
    last = t;
    phase = progress.phase;
    post({ type: 'progress', phase: progress.phase, done: progress.done, total: progress.total, bytes: progress.bytes });
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs one re-derivation for a start message. */
export async function run(scope: WorkerScope, data: { ledgers?: unknown }): Promise<void> {
  try {
    const root = new URL('./', scope.location.href).href;
    const ledgers = Array.isArray(data.ledgers) ? new Set(data.ledgers.filter((l): l is string => typeof l === 'string')) : undefined;
    const result = await rederiveSite(httpSiteGet(root, scope.fetch.bind(scope)), {
      ...(ledgers !== undefined ? { ledgers } : {}),
      onProgress: throttledProgress((message) => scope.postMessage(message)),
      // An import only Node can run (an Inspect .eval archive): "not re-derived here", never a mismatch.
      cannotRunHere: isNotInBrowser,
      // The time-stamp tokens' signatures, checked ahead with Web Crypto so the synchronous anchor check can answer.
      prepareAnchors: (tokens, planIdHex, roots) => prepareAnchorSignatures(tokens, planIdHex, roots),
      // The openssl ts -verify line names each token by its absolute URL.
      tokenLocation: (urlPath) => new URL(urlPath.slice(1), root).href,
    });
    scope.postMessage({ type: 'done', result });
  } catch (error) {
    scope.postMessage({ type: 'error', message: messageOf(error) });
  }
}

/** Checks the site's anchors with the reader's own root (a root message). */
export async function runRoot(scope: WorkerScope, data: { pem?: unknown }): Promise<void> {
  try {
    if (typeof data.pem !== 'string') throw new Error('no PEM text was given');
    const root = new URL('./', scope.location.href).href;
    const result = await checkReaderRoot(httpSiteGet(root, scope.fetch.bind(scope)), data.pem, (tokens, planIdHex, roots) => prepareAnchorSignatures(tokens, planIdHex, roots));
    scope.postMessage({ type: 'root-done', result });
  } catch (error) {
    scope.postMessage({ type: 'error', message: messageOf(error) });
  }
}

// In a worker (not when a test imports this module): listen for the start message.
const scope = globalThis as unknown as Partial<WorkerScope> & { document?: unknown; importScripts?: unknown };
if (typeof scope.importScripts === 'function' && scope.document === undefined && typeof scope.addEventListener === 'function') {
  let started = false;
  scope.addEventListener('message', (event) => {
    const data = event.data as { type?: unknown; ledgers?: unknown; pem?: unknown } | null;
    if (data === null || typeof data !== 'object' || started) return;
    if (data.type === 'root') {
      started = true;
      void runRoot(scope as WorkerScope, data);
      return;
    }
    if (data.type !== 'start') return;
    started = true;
    void run(scope as WorkerScope, data);
  });
}
