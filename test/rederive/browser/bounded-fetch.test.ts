/**
 * Issue 25, High 5, in a browser: the in-browser verifier's worker
 * (httpSiteGet over src/rederive/bounded-fetch.ts) and the page's own checks
 * (public/verify-browser.js, loaded with node:vm) never read a blob past its
 * listed size nor any other file past the document bound, and give up on a
 * body that stalls. The fake servers pace themselves (a chunk per
 * millisecond), so an unbounded read would time the test out, not take the
 * machine's memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { BoundError, boundedFetch, fetchBounds } from '../../../src/rederive/bounded-fetch.ts';
import { httpSiteGet } from '../../../src/rederive/browser/worker.ts';
import { REPO_ROOT } from '../../helpers/hang-guard.ts';

/** A body that never ends (16 KiB a millisecond), counting what was pulled; or one that sends a byte and stalls. */
function body(kind: 'endless' | 'stall'): { stream: ReadableStream<Uint8Array>; pulled: () => number; cancelled: () => boolean } {
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (kind === 'stall' && pulled > 0) return new Promise<void>(() => undefined);
      await new Promise((r) => setTimeout(r, 1));
      pulled += kind === 'stall' ? 1 : 16 * 1024;
      controller.enqueue(new Uint8Array(kind === 'stall' ? 1 : 16 * 1024));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

const fakeFetch = (b: ReturnType<typeof body>) => (async () => new Response(b.stream, { status: 200 })) as unknown as typeof fetch;

describe('the worker: httpSiteGet within bounds', () => {
  it('a blob sent endlessly: stops one chunk past its listed size, a BoundError naming the URL (listed)', async () => {
    const b = body('endless');
    const get = httpSiteGet('https://example.org/board/', fakeFetch(b));
    const error = (await get('/blobs/ab', 100_000).catch((e: unknown) => e)) as BoundError;
    expect(error).toBeInstanceOf(BoundError);
    expect(error.listed).toBe(true);
    expect(error.message).toBe('https://example.org/board/blobs/ab: more than the 100000 bytes listed for it: stopped reading');
    expect(b.pulled()).toBeLessThan(100_000 + 5 * 16 * 1024);
    expect(b.cancelled()).toBe(true);
  }, 10_000);

  it('any other file sent endlessly: stops at the document bound (not listed)', async () => {
    const b = body('endless');
    const get = httpSiteGet('https://example.org/', fakeFetch(b), fetchBounds(60, 1024 * 1024));
    const error = (await get('/report.json').catch((e: unknown) => e)) as BoundError;
    expect(error).toBeInstanceOf(BoundError);
    expect(error.listed).toBe(false);
    expect(error.message).toBe('https://example.org/report.json: more than 1048576 bytes (the bound on a document, --max-document-bytes): stopped reading');
    expect(b.pulled()).toBeLessThan(1024 * 1024 + 5 * 16 * 1024);
  }, 10_000);

  it('a body that stalls: fails after the idle bound, naming the URL', async () => {
    const b = body('stall');
    const get = httpSiteGet('https://example.org/', fakeFetch(b), fetchBounds(0.2));
    const started = performance.now();
    await expect(get('/bundles/aa/files.json')).rejects.toThrow('https://example.org/bundles/aa/files.json: nothing received for 0.2 s (--timeout)');
    expect(performance.now() - started).toBeLessThan(3000);
  }, 10_000);
});

describe('boundedFetch: the bound on a whole request', () => {
  it('a body that drips a byte every 20 ms (never idle for the 0.2 s bound) stops at 10 x --timeout, naming the URL', async () => {
    let sent = 0;
    const drip = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((r) => setTimeout(r, 20));
        sent++;
        controller.enqueue(new Uint8Array(1));
      },
    });
    const started = performance.now();
    const error = (await boundedFetch('https://example.org/report.json', undefined, fetchBounds(0.2), () => undefined, { fetchImpl: (async () => new Response(drip)) as unknown as typeof fetch }).catch((e: unknown) => e)) as BoundError;
    const took = performance.now() - started;
    expect(error).toBeInstanceOf(BoundError);
    expect(error.bound).toBe('time');
    expect(error.message).toBe('https://example.org/report.json: not complete within 2 s (the bound on one request, 10 times --timeout)');
    expect(took).toBeGreaterThan(1900);
    expect(took).toBeLessThan(5000);
    expect(sent).toBeGreaterThan(10);
  }, 10_000);
});

describe('the page: verify-browser.js fetchBytes within bounds', () => {
  const script = join(REPO_ROOT, 'public', 'verify-browser.js');
  /** The script in a fresh context whose fetch answers with `b`; its timers run 1,000 times faster (60 s is 60 ms). */
  const load = (b: ReturnType<typeof body>) => {
    const context: Record<string, unknown> = {
      document: { addEventListener: () => undefined, baseURI: 'https://example.org/board/' },
      fetch: fakeFetch(b),
      URL,
      AbortController,
      TextDecoder,
      TextEncoder,
      setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms / 1000),
      clearTimeout,
    };
    runInNewContext(readFileSync(script, 'utf8'), context, { filename: script });
    return context.ledgerboardFetchBytes as (url: string, listed?: number) => Promise<Uint8Array>;
  };

  it('a blob sent endlessly: stops past its listed size, naming the URL', async () => {
    const b = body('endless');
    await expect(load(b)('/blobs/ab', 50_000)).rejects.toThrow('https://example.org/board/blobs/ab: more than the 50000 bytes listed for it: stopped reading');
    expect(b.pulled()).toBeLessThan(50_000 + 5 * 16 * 1024);
  }, 10_000);

  it('a body that stalls: fails after 60 s without a byte (here scaled to 60 ms), naming the URL', async () => {
    const b = body('stall');
    await expect(load(b)('/report.json')).rejects.toThrow('https://example.org/board/report.json: nothing received for 60 s: stopped');
  }, 10_000);
});
