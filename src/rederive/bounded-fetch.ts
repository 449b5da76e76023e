/**
 * Every fetch a verifier makes of a site, bounded (issue 25, High 5; docs/site.md
 * "Re-deriving the report"): a hostile host must not hang verify.mjs,
 * `ledgerboard verify-site` or the in-browser verifier, nor make them hold
 * more bytes than the site itself says a file has.
 *
 * - time: a request fails when nothing arrives for `idleMs` (the answer's
 *   head, or the next bytes of its body: `--timeout SECONDS`, 60 by default),
 *   and when it is not complete within `totalMs` (ten times that);
 * - bytes: a blob is read up to the size its listing gives and no further
 *   (one byte more and the read stops: the blob is not those bytes); any
 *   other file (report.json, files.json, manifest.json, history.json, a
 *   page) up to `documentBytes` (256 MiB by default, `--max-document-bytes`);
 * - redirects: at most 5 are followed, only to http: or https: (never from
 *   https: down to http:).
 *
 * A broken bound is a `BoundError` naming the URL and the bound. Nothing here
 * imports Node: the browser worker uses it too (where the browser follows
 * redirects itself: `manualRedirects` off).
 */
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** Seconds without a byte before a request fails (`--timeout`). */
export const DEFAULT_TIMEOUT_SECONDS = 60;
/** A whole request (redirects included) must finish within this many times the idle bound. */
export const TOTAL_PER_IDLE = 10;
/** Redirects followed for one request. */
export const MAX_REDIRECTS = 5;
/** Bytes of a file whose size no listing gives (a JSON document, a page): 256 MiB (`--max-document-bytes`). */
export const DOCUMENT_BYTES = 256 * 1024 ** 2;

/** The bounds every request is made under. */
export interface FetchBounds {
  /** Nothing received for this long (the head, or the next bytes of the body): the request fails. */
  idleMs: number;
  /** The whole request, redirects included, within this. */
  totalMs: number;
  /** Redirects followed. */
  redirects: number;
  /** Bytes of a file the caller gives no listed size for. */
  documentBytes: number;
}

/** The bounds for a `--timeout` in seconds and a `--max-document-bytes`. */
export function fetchBounds(timeoutSeconds: number = DEFAULT_TIMEOUT_SECONDS, documentBytes: number = DOCUMENT_BYTES): FetchBounds {
  const idleMs = Math.round(timeoutSeconds * 1000);
  return { idleMs, totalMs: idleMs * TOTAL_PER_IDLE, redirects: MAX_REDIRECTS, documentBytes };
}

/** A site could not be read at a URL (a network failure, an HTTP error, a file that is not a regular file): the verification cannot go on. */
export class SiteReadError extends LedgerboardError {
  static override readonly code: string = 'SITE_READ';
  static override readonly exitStatus = EXIT_STATUS.usage;
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
  }
}

/** Which bound a request broke. */
export type BoundName = 'time' | 'bytes' | 'redirects' | 'scheme';

/**
 * A request that broke a bound. `listed` is true when what broke is the size
 * the site itself lists for the file (a blob longer than files.json or the
 * manifest says: those are not its bytes, a mismatch); any other bound is the
 * verifier's own, and the site cannot be verified past it.
 */
export class BoundError extends SiteReadError {
  static override readonly code: string = 'SITE_BOUND';
  static override readonly exitStatus = EXIT_STATUS.usage;
  constructor(
    url: string,
    readonly bound: BoundName,
    message: string,
    readonly listed = false,
  ) {
    super(url, message);
  }
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(3))} s`;

/** The message of a file longer than its bound. */
export function tooLargeMessage(url: string, max: number, listed: boolean): string {
  return listed ? `${url}: more than the ${max} bytes listed for it: stopped reading` : `${url}: more than ${max} bytes (the bound on a document, --max-document-bytes): stopped reading`;
}

/** How a request is made. */
export interface BoundedFetchOptions {
  fetchImpl?: typeof fetch;
  /** Follow redirects here, within the bounds (Node); off, the fetch follows them itself (a browser, which bounds them). */
  manualRedirects?: boolean;
  init?: RequestInit;
}

/**
 * Fetches `url` within `bounds`, handing the body to `sink` chunk by chunk
 * (never more than `maxBytes`, or `bounds.documentBytes` when no size is
 * listed). Returns the bytes read, or null for 404 and 410. Throws a
 * BoundError for a broken bound, a SiteReadError for a network failure or
 * another HTTP status; both name the URL.
 */
export async function boundedFetch(url: string, maxBytes: number | undefined, bounds: FetchBounds, sink: (chunk: Uint8Array) => void, options: BoundedFetchOptions = {}): Promise<number | null> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const listed = maxBytes !== undefined;
  const max = maxBytes ?? bounds.documentBytes;
  const controller = new AbortController();
  let fired: BoundError | null = null;
  // Every wait races the bounds: a fetch (or a body) that ignores the abort cannot hold the verifier either.
  let stop: (error: BoundError) => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => undefined);
  const bounded = <T>(work: Promise<T>): Promise<T> => Promise.race([work, stopped]);
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const fire = (error: BoundError): void => {
    fired ??= error;
    controller.abort(error);
    stop(error);
  };
  const total = setTimeout(() => fire(new BoundError(url, 'time', `${url}: not complete within ${seconds(bounds.totalMs)} (the bound on one request, ${TOTAL_PER_IDLE} times --timeout)`)), bounds.totalMs);
  let idle: ReturnType<typeof setTimeout> | undefined;
  const touch = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => fire(new BoundError(url, 'time', `${url}: nothing received for ${seconds(bounds.idleMs)} (--timeout)`)), bounds.idleMs);
  };
  touch();
  const discard = async (response: Response): Promise<void> => {
    await response.body?.cancel().catch(() => undefined);
  };
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const response = await bounded(fetchImpl(new URL(current), { ...options.init, signal: controller.signal, redirect: options.manualRedirects ? 'manual' : 'follow' }));
      touch();
      const location = response.headers.get('location');
      if (options.manualRedirects && response.status >= 300 && response.status < 400 && location !== null) {
        await discard(response);
        if (hop >= bounds.redirects) throw new BoundError(url, 'redirects', `${url}: more than ${bounds.redirects} redirects (the redirect bound), the last to ${JSON.stringify(location.slice(0, 200))}`);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new BoundError(url, 'scheme', `${url}: redirected to ${JSON.stringify(location.slice(0, 200))}, not a URL`);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new BoundError(url, 'scheme', `${url}: redirected to a ${JSON.stringify(next.protocol)} URL: only http: and https: are followed`);
        if (next.protocol === 'http:' && new URL(current).protocol === 'https:') throw new BoundError(url, 'scheme', `${url}: redirected from https: down to http: (${JSON.stringify(next.href.slice(0, 200))}): not followed`);
        current = next.href;
        continue;
      }
      if (response.status === 404 || response.status === 410) {
        await discard(response);
        return null;
      }
      if (!response.ok) {
        await discard(response);
        throw new SiteReadError(url, `${url}: HTTP ${response.status}`);
      }
      // A length stated up front (of the bytes as they will be read: no content coding) past the bound is refused unread.
      const length = response.headers.get('content-length');
      const coded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
      if (!coded && length !== null && /^\d+$/.test(length) && Number(length) > max) {
        await discard(response);
        throw new BoundError(url, 'bytes', tooLargeMessage(url, max, listed), listed);
      }
      if (response.body === null) return 0;
      reader = response.body.getReader();
      let read = 0;
      for (;;) {
        const { done, value } = await bounded(reader.read());
        if (done) {
          reader = null;
          return read;
        }
        touch();
        read += value.length;
        if (read > max) throw new BoundError(url, 'bytes', tooLargeMessage(url, max, listed), listed);
        sink(value);
      }
    }
  } catch (error) {
    if (fired !== null) throw fired;
    if (error instanceof SiteReadError) throw error;
    const e = error as Error & { cause?: Error };
    throw new SiteReadError(url, `${url}: ${e.cause?.message ?? e.message}`);
  } finally {
    clearTimeout(total);
    clearTimeout(idle);
    // Whatever is still open (a body not read to its end) is let go.
    if (reader !== null) void reader.cancel().catch(() => undefined);
    controller.abort();
  }
}

/** Chunks joined into one array of `length` bytes. */
export function joinChunks(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.length === length) return chunks[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
