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
