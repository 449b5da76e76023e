/**
 * A site under a base path (site_url `https://user.github.io/board/`): the
 * pages link root-relative (`/boards/<hex>/`), and every such link is
 * rewritten once, after rendering, to the base (`/board/boards/<hex>/`). Only
 * `href` and `src` attribute values that start with one "/" are rewritten:
 * the serializer (Astro, and rehype-stringify for the notes) writes every
 * attribute as name="value" and escapes every quote inside text, so no text
 * can look like an attribute. At the root of an origin ("/") nothing changes,
 * byte for byte. Absolute URLs (canonical, citations, feed, sitemap,
 * commands) come from site_url itself (model.ts `absolute`), and the scripts
 * resolve their fetches against their own URL (verify-browser.js) or the
 * URL they were given (verify.mjs).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

const ROOT_RELATIVE = /(\s(?:href|src)=")\/(?![/\\])/g;

/** One HTML text with its root-relative href and src values moved under `base` ("/x/" form). */
export function rebaseHtml(html: string, base: string): string {
  if (base === '/') return html;
  if (!base.startsWith('/') || !base.endsWith('/') || base.startsWith('//')) throw new Error(`not a base path: ${JSON.stringify(base)}`);
  return html.replace(ROOT_RELATIVE, (_, attribute: string) => `${attribute}${base}`);
}

/** Rewrites every .html file under `dir` (the rendered pages) for `base`; returns how many changed. */
export async function rebaseSite(dir: string, base: string): Promise<number> {
  if (base === '/') return 0;
  return rewriteHtmlFiles(dir, (html) => rebaseHtml(html, base));
}

/** Rewrites every .html file under `dir` with `rewrite` (given its text and its `/`-separated path under `dir`); returns how many changed. */
export async function rewriteHtmlFiles(dir: string, rewrite: (html: string, file: string) => string): Promise<number> {
  let changed = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const entry of entries.filter((e) => e.isFile() && e.name.endsWith('.html')).map((e) => join(e.parentPath, e.name)).sort()) {
    const html = await readFile(entry, 'utf8');
    const rewritten = rewrite(html, relative(dir, entry).split(sep).join('/'));
    if (rewritten !== html) {
      await writeFile(entry, rewritten);
      changed++;
    }
  }
  return changed;
}
