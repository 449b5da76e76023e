/**
 * The in-browser verifier's worker (src/rederive/browser/worker.ts) and its
 * bundle (scripts/bundle-browser-verifier.mjs): fetches relative to the site
 * root, at most six at once, 404 as null; progress at most ~10 a second; the
 * bundle is deterministic and holds no Node module.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { FETCHES_AT_ONCE, httpSiteGet, throttledProgress } from '../../../src/rederive/browser/worker.ts';
import { browserBuildOptions } from '../../../scripts/bundle-browser-verifier.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('httpSiteGet', () => {
  it('fetches a site path under the root (a base path kept), no-cache; 404 and 410 are null, other failures throw', async () => {
    const asked: string[] = [];
    const fake = (async (url: URL, init: RequestInit) => {
      asked.push(`${url.href} ${init.cache}`);
      const status = url.pathname.endsWith('/missing') ? 404 : url.pathname.endsWith('/gone') ? 410 : url.pathname.endsWith('/broken') ? 500 : 200;
      return new Response(status === 200 ? 'bytes' : null, { status });
    }) as unknown as typeof fetch;
    const get = httpSiteGet('https://example.org/board/', fake);
    expect(new TextDecoder().decode((await get('/blobs/ab'))!)).toBe('bytes');
    expect(await get('/missing')).toBeNull();
    expect(await get('/gone')).toBeNull();
    await expect(get('/broken')).rejects.toThrow(/HTTP 500/);
    await expect(get('relative')).rejects.toThrow(/not a site path/);
    expect(asked[0]).toBe('https://example.org/board/blobs/ab no-cache');
  });

  it('keeps at most six requests in flight and serves the rest in order', async () => {
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const fake = (async (url: URL) => {
      inFlight++;
      most = Math.max(most, inFlight);
      order.push(url.pathname);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return new Response('x');
    }) as unknown as typeof fetch;
    const get = httpSiteGet('https://example.org/', fake);
    await Promise.all(Array.from({ length: 20 }, (_, i) => get(`/blobs/${i}`)));
    expect(most).toBe(FETCHES_AT_ONCE);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => `/blobs/${i}`));
  });
});

describe('throttledProgress', () => {
  it('posts at most once per 100 ms in a phase, always a new phase and the end of one', () => {
    const posted: unknown[] = [];
    let t = 0;
    const progress = throttledProgress((m) => posted.push(m), () => t);
    for (let i = 0; i <= 100; i++) {
      t = i * 10; // 10 ms apart: one in ten gets through
      progress({ phase: 'bundles', done: i, total: 100, bytes: i * 1000 });
    }
    progress({ phase: 'analysis', done: 0, total: 1, bytes: 0 });
    const bundles = posted.filter((m) => (m as { phase: string }).phase === 'bundles') as { done: number }[];
    expect(bundles.length).toBeLessThanOrEqual(12);
    expect(bundles.at(-1)!.done).toBe(100);
    expect(posted.at(-1)).toEqual({ type: 'progress', phase: 'analysis', done: 0, total: 1, bytes: 0 });
  });
});

describe('the worker bundle (scripts/bundle-browser-verifier.mjs)', () => {
  it('is the same bytes twice, an iife with no Node module left in it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ledgerboard-worker-bundle-'));
    try {
      const outs = [join(dir, 'a.js'), join(dir, 'b.js')];
      let importers: string[] = [];
      for (const out of outs) {
        const result = await build({ ...(browserBuildOptions(ROOT, out) as Parameters<typeof build>[0]), metafile: true });
        importers = Object.entries(result.metafile!.inputs)
          .filter(([, input]) => input.imports.some((i) => i.path.startsWith('ledgerboard-node-only:')))
          .map(([file]) => file);
      }
      // What reaches node:fs / node:path (each call refuses in the browser): the core should need none of it.
      console.log(`modules of the worker bundle importing node:fs or node:path (shimmed, never called): ${importers.join(', ') || 'none'}`);
      const [a = '', b] = await Promise.all(outs.map((o) => readFile(o, 'utf8')));
      expect(a).toBe(b);
      expect(a.startsWith('"use strict";\n(() => {') || a.startsWith('(() => {')).toBe(true);
      expect(a).not.toMatch(/\brequire\(["'](node:)?(fs|path|crypto|zlib|stream|buffer)["']\)/);
      expect(a).not.toContain(ROOT);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
