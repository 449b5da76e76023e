/**
 * A crawl of a served site: every same-origin link of every HTML page,
 * followed breadth first from one path, each fetched once.
 */
import type { BrowserContext } from 'playwright-core';

/** What a crawl found: every path reached, those that did not answer 200 (with the status), and those outside the prefix (not followed). */
export interface Crawl {
  seen: Set<string>;
  broken: string[];
  outside: string[];
}

/** Crawls from `start` on `origin` with a page of `context`, following only paths under `prefix`. */
export async function crawlSite(context: BrowserContext, origin: string, start: string, prefix: string): Promise<Crawl> {
  const seen = new Set<string>();
  const queue = [start];
  const broken: string[] = [];
  const outside: string[] = [];
  const page = await context.newPage();
  try {
    while (queue.length > 0) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      if (!path.startsWith(prefix)) {
        outside.push(path);
        continue;
      }
      const response = await fetch(origin + path);
      if (response.status !== 200) {
        broken.push(`${path}: ${response.status}`);
        continue;
      }
      if (!(response.headers.get('content-type') ?? '').startsWith('text/html')) continue;
      await page.goto(origin + path);
      const links = await page.$$eval('a[href], link[href], script[src]', (elements) =>
        // An SVG <a> (the task matrix's cells) has an SVGAnimatedString href: its attribute, resolved against the page.
        elements.map((e) => (e instanceof SVGAElement ? new URL(e.getAttribute('href') ?? '', document.baseURI).href : (e as HTMLAnchorElement).href || (e as HTMLScriptElement).src)),
      );
      for (const link of links) {
        const url = new URL(link);
        if (url.origin === origin) queue.push(url.pathname);
      }
    }
  } finally {
    await page.close();
  }
  return { seen, broken, outside };
}
