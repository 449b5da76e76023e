/**
 * An offline copy (`ledgerboard build --offline`, docs/site.md "Offline
 * copies"): a site that opens from a folder (file://), from a zip sent by
 * mail, or from a mirror under any sub-path, with no server.
 *
 * After rendering, in the places where base-path.ts would move the
 * root-relative links under the base, every root-relative `href` and `src`
 * value (`/boards/<hex>/#pairs`) is written relative to the page's own file
 * (`../../boards/<hex>/index.html#pairs`): a directory link names its
 * `index.html`, since file:// does not resolve a directory to it. Only
 * attribute values that start with one "/" are rewritten, as in
 * base-path.ts (the serializer writes every attribute as name="value" and
 * escapes every quote in text). Absolute URLs (canonical, citation meta,
 * BibTeX, feed, sitemap, commands) come from site_url and stay absolute:
 * they name the public site.
 *
 * Two more changes, to whole pages only (not to the stamped parts):
 * - a module script (`<script type="module" src=...>`: the leaderboard's
 *   sorting and filtering) becomes a classic deferred script: Chromium
 *   refuses module scripts from file:// (an opaque origin), and the script
 *   uses no import or export, so it runs the same;
 * - a page with the in-browser verifier (`data-verify-root`,
 *   `data-rederive-root`) says, before its first verifier section, that a
 *   browser opening the copy from file:// does not let the page fetch the
 *   site's files or start a Web Worker, and how to verify instead.
 *
 * The URLs the verifier scripts fetch (the checks' `url` values, listed in
 * data attributes as site-root paths) are resolved by the scripts against
 * their own URL (verify-browser.js, rederive-browser.js SCRIPT_URL), which
 * is the site's root wherever the copy lies: they are left as they are.
 *
 * Pure: strings in, strings out.
 */

const ROOT_RELATIVE = /(\s(?:href|src)=")\/(?![/\\])([^"]*)"/g;

/** `../` once per directory of `file` (an output path such as `boards/<hex>/index.html`, no leading "/"). */
function upTo(file: string): string {
  const depth = file.replace(/^\//, '').split('/').length - 1;
  return '../'.repeat(depth);
}

/**
 * A root-relative path (after its leading "/") with its dot segments resolved as a browser resolves them
 * (`.`, `..`, and their percent-encoded forms; `\` is a separator in http and file URLs), never above the
 * root: a link in untrusted text (a publisher's notes) cannot point out of the copy's folder.
 */
function clampedPath(path: string): string {
  const segments = path.split(/[/\\]/);
  const kept: string[] = [];
  let directory = false;
  for (const segment of segments) {
    const dots = segment.replace(/%2e/gi, '.');
    directory = dots === '.' || dots === '..';
    if (dots === '..') kept.pop();
    else if (dots !== '.') kept.push(segment);
  }
  return `${kept.join('/')}${directory && kept.length > 0 ? '/' : ''}`;
}

/** One root-relative link value (after its leading "/") as a path relative to the page in `file`. */
function relativeLink(rest: string, up: string): string {
  const cut = rest.search(/[?#]/);
  const path = clampedPath(cut === -1 ? rest : rest.slice(0, cut));
  const suffix = cut === -1 ? '' : rest.slice(cut);
  const target = path === '' || path.endsWith('/') ? `${path}index.html` : path;
  return `${up}${target}${suffix}`;
}

/** An HTML text (a page in `file`, or a part of it) with its root-relative href and src values written relative to `file`. */
export function relativeLinks(html: string, file: string): string {
  const up = upTo(file);
  return html.replace(ROOT_RELATIVE, (_, attribute: string, rest: string) => `${attribute}${relativeLink(rest, up)}"`);
}

/** What a page with the in-browser verifier says in an offline copy, before its first verifier section. */
export const OFFLINE_VERIFY_NOTE =
  '<p class="warning" role="note" data-offline-note>This is an offline copy of the site (built with <code>ledgerboard build --offline</code>). ' +
  'Opened from a folder (a <code>file://</code> address), a browser does not let a page fetch the site&#39;s files or start a Web Worker, so the in-browser checks on this page cannot run here. ' +
  'Verify the copy with <code>node verify.mjs .</code> in its folder (Node 20 or later, nothing to install), or serve the folder over HTTP and open it there.</p>';

const MODULE_SCRIPT = /<script type="module" src="([^"]*)"><\/script>/g;
const VERIFIER_SECTION = /<section\s[^>]*\bdata-(?:verify|rederive)-root\b/;

/** A whole rendered page in `file` as the offline copy holds it (see the module comment). */
export function offlinePage(html: string, file: string): string {
  let page = relativeLinks(html, file).replace(MODULE_SCRIPT, (_, src: string) => `<script src="${src}" defer></script>`);
  const at = page.search(VERIFIER_SECTION);
  if (at !== -1) page = `${page.slice(0, at)}${OFFLINE_VERIFY_NOTE}${page.slice(at)}`;
  return page;
}
