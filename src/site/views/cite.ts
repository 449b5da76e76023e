/**
 * The "Cite this" block of every page (src/layouts/Base.astro): a BibTeX
 * entry and a plain-text citation. Titles in them come from evidence (plan
 * titles, model and agent names), so every text field is escaped for BibTeX:
 * a field can neither close early (forging `author` or `url` fields or a
 * second `@entry`), nor run a LaTeX command, nor span lines. Pure.
 */
import { shortIdentity } from './format.ts';

/** How many characters of a page title a citation keeps (then "…" and the full length). */
export const CITE_TITLE_CHARS = 200;

/**
 * BibTeX/LaTeX for each character that means something there. Braces and
 * the backslash become text commands whose own braces are balanced
 * (BibTeX counts every brace, escaped or not, so `\}` would still close
 * the field); `@` becomes `{\char64}` so no tool sees an entry start.
 */
const BIBTEX_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '{': '\\textbraceleft{}',
  '}': '\\textbraceright{}',
  '@': '{\\char64}',
  '%': '\\%',
  '#': '\\#',
  '&': '\\&',
  $: '\\$',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
};

/**
 * Text as the content of a braced BibTeX field: LaTeX's special characters
 * escaped (see BIBTEX_ESCAPES), and every control character, line or
 * paragraph separator (newlines included) a space. The result's braces are
 * balanced and it holds no `@`, no newline and no command the text wrote.
 */
export function bibtexText(text: string): string {
  let out = '';
  for (const ch of text) {
    const escaped = BIBTEX_ESCAPES[ch];
    if (escaped !== undefined) out += escaped;
    else if (/[\p{Cc}\p{Zl}\p{Zp}\u0085]/u.test(ch)) out += ' ';
    else out += ch;
  }
  return out;
}

/**
 * A URL for `\url{...}`: every character outside the URL set (braces,
 * backslash, `@`, spaces ...) percent-encoded, then `%` and `#` escaped.
 */
export function bibtexUrl(url: string): string {
  return url.replace(/[^A-Za-z0-9\-._~:/?#[\]!$&'()*+,;=%]/gu, (ch) => encodeURIComponent(ch.isWellFormed() ? ch : '\uFFFD')).replace(/[%#]/g, (ch) => `\\${ch}`);
}

/** What a citation names. */
export interface Citation {
  /** The BibTeX key: ASCII letters, digits and '-' only. */
  key: string;
  siteTitle: string;
  /** The page's title (evidence text allowed). */
  title: string;
  url: string;
  year: string;
  note: string;
}

/** A page title as a citation shows it: invisible characters marked, shortened past CITE_TITLE_CHARS. */
function citedTitle(c: Citation): string {
  return `${shortIdentity(c.siteTitle, CITE_TITLE_CHARS)}: ${shortIdentity(c.title, CITE_TITLE_CHARS)}`;
}

/** The BibTeX entry (`@misc`) of a page. */
export function bibtexEntry(c: Citation): string {
  const key = c.key.replace(/[^A-Za-z0-9-]/g, '-');
  return `@misc{${key},
  title        = {${bibtexText(citedTitle(c))}},
  howpublished = {\\url{${bibtexUrl(c.url)}}},
  year         = {${bibtexText(c.year)}},
  note         = {${bibtexText(c.note)}}
}`;
}

/** The plain-text citation: the title on one line, quoted, then the URL and the note. */
export function plainCitation(c: Citation): string {
  const title = citedTitle(c).replace(/[\p{Cc}\p{Zl}\p{Zp}\u0085]/gu, ' ');
  return `“${title}”. ${c.url} (${c.note}).`;
}

/**
 * The report-wide parts of every page are stamped after the render, not
 * rendered (src/site/build/stamp.ts): the layout renders these two markers in
 * place of the citation meta tags and of the footer. Each marker holds both
 * `<` and `"`, which no escaped route of untrusted text writes together: in
 * Astro's text `<` and `"` are escaped (&lt; &quot;), in its attribute values
 * `"` is (&#34;, though `<` is not), sanitized Markdown and Shiki escape them
 * likewise, the charts and attempt rows escape `<` in text and `"` in
 * attributes. So evidence that spells a marker is never one; and the stamp
 * fails the build unless a page holds exactly one of each and no other
 * {@link CITE_MARKER_PREFIX}.
 */
export const CITE_MARKER_PREFIX = '<!--ledgerboard:"';
/** The marker of the footer (the "Cite this" block and the report line). */
export const CITE_FOOT_MARKER = '<!--ledgerboard:"cite-foot"-->';
/** The start of the marker of the citation meta tags; the page's cite inputs follow as JSON, then `-->`. */
export const CITE_HEAD_MARKER_START = '<!--ledgerboard:"cite-head" ';

/** What a page tells the stamp: its title and path, and the report it shows when not the current one. */
export interface PageCite {
  title: string;
  path: string;
  cites: { reportId: string; date: string | null } | null;
}

/** The head marker of a page: its cite inputs as JSON with `<`, `>` and `&` escaped (\u003c ...), so the comment cannot end early. */
export function citeHeadMarker(page: PageCite): string {
  const json = JSON.stringify([page.title, page.path, page.cites === null ? null : [page.cites.reportId, page.cites.date]]).replace(/[<>&]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `${CITE_HEAD_MARKER_START}${json}-->`;
}

/** A page title as the layout shows it (`<title>`, Open Graph, citation_title): see src/layouts/Base.astro. */
export function shownPageTitle(title: string): string {
  return shortIdentity(title, CITE_TITLE_CHARS).replace(/[0-9a-f]{12,}/gi, (run) => `${run.slice(0, 8)}\u2026`);
}
