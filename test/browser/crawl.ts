/**
 * A crawl of a served site: every same-origin link of every HTML page,
 * followed breadth first from one path, each fetched once.
 */
import type { BrowserContext, Page } from 'playwright-core';

/** What a crawl found: every path reached, those that did not answer 200 (with the status), and those outside the prefix (not followed). */
export interface Crawl {
  seen: Set<string>;
  broken: string[];
  outside: string[];
}

/** Pages loading at once: one renders while the other's links are read and its next path fetched. */
const WORKERS = 2;

/** The page's links as the browser resolves them, in one evaluate. */
function linksOf(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('a[href], link[href], script[src]')].map((e) =>
      // An SVG <a> (the task matrix's cells) has an SVGAnimatedString href: its attribute, resolved against the page.
      e instanceof SVGAElement ? new URL(e.getAttribute('href') ?? '', document.baseURI).href : (e as HTMLAnchorElement).href || (e as HTMLScriptElement).src,
    ),
  );
}

/** Crawls from `start` on `origin` with pages of `context`, following only paths under `prefix`. */
export async function crawlSite(context: BrowserContext, origin: string, start: string, prefix: string): Promise<Crawl> {
  const seen = new Set<string>();
  const queue = [start];
  const broken: string[] = [];
  const outside: string[] = [];
  /** Paths being fetched or loaded now: the crawl is over when the queue is empty and none is. */
  let busy = 0;
  let wake: (() => void) | undefined;
  const settle = (): void => {
    wake?.();
    wake = undefined;
  };
  const visit = async (page: Page, path: string): Promise<void> => {
    const response = await fetch(origin + path);
    // The status and type are all the crawl reads: the body is not wanted.
    await response.body?.cancel();
    if (response.status !== 200) {
      broken.push(`${path}: ${response.status}`);
      return;
    }
    if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) return;
    const loaded = await page.goto(origin + path);
    if (loaded?.status() !== 200) {
      broken.push(`${path}: ${loaded?.status() ?? 'no response'} in the browser`);
      return;
    }
    for (const link of await linksOf(page)) {
      const url = new URL(link);
      if (url.origin === origin) queue.push(url.pathname);
    }
  };
  const worker = async (): Promise<void> => {
    const page = await context.newPage();
    try {
      for (;;) {
        const path = queue.shift();
        if (path === undefined) {
          if (busy === 0) return settle();
          await new Promise<void>((resolve) => {
            const before = wake;
            wake = () => {
              before?.();
              resolve();
            };
          });
          continue;
        }
        if (seen.has(path)) continue;
        seen.add(path);
        if (!path.startsWith(prefix)) {
          outside.push(path);
          continue;
        }
        busy++;
        try {
          await visit(page, path);
        } finally {
          busy--;
          settle();
        }
      }
    } finally {
      await page.close();
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return { seen, broken, outside };
}
