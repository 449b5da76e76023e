/**
 * HTML written as strings, for the few places where a page lists so many rows
 * that rendering each through Astro components is most of a build (task
 * pages at 10^6 attempts, docs/benchmarks.md (k)). The escaping is Astro's
 * own, byte for byte (test/site/html.test.ts compares them with Astro's
 * runtime on the hostile corpora), so a page is the same whichever way a
 * piece of it was written:
 *
 * - text: `&`, `<`, `>`, `'` and `"` as `&amp;`, `&lt;`, `&gt;`, `&#39;` and
 *   `&quot;` (Astro's escapeHTML);
 * - attributes: `&` and `"` as `&#38;` and `&#34;` (Astro's addAttribute,
 *   with its two exceptions: see {@link attr}).
 *
 * Every string from evidence goes through {@link text} or {@link attr}; the
 * rest is fixed markup.
 */
import { grouped, identity, placeholderLike } from './format.ts';

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&quot;' };

/** A value as text content, escaped as Astro escapes `{value}`. */
export function text(value: string | number): string {
  const s = String(value);
  return SPECIAL.test(s) ? s.replace(/[&<>'"]/g, (c) => TEXT_ESCAPES[c]!) : s;
}

const SPECIAL = /[&<>'"]/;

/**
 * An attribute as Astro writes `name={value}` for a string or number value
 * (not `class:list`, `style` or a boolean attribute's name): ` name="value"`
 * with `&` and `"` escaped; ` name` for the empty string; an http(s) URL
 * holding `&` unescaped, as Astro leaves it.
 */
export function attr(name: string, value: string | number): string {
  const v = String(value);
  if (v === '') return ` ${name}`;
  if (v.includes('&') && isHttpUrl(v)) return ` ${name}="${v}"`;
  return ` ${name}="${v.replace(/&/g, '&#38;').replace(/"/g, '&#34;')}"`;
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * An identity from evidence inline, exactly as the Ident component renders
 * it without `full` (src/components/Ident.astro, which calls this): cut past
 * 80 shown characters, invisible characters as markers, placeholders quoted.
 */
export function identHtml(value: string): string {
  const shown = identity(value);
  if (placeholderLike(value)) return `<span class="ident ident-placeholder" title="quoted: the evidence gives this value as written">${text(shown.text)}</span>`;
  if (shown.shortened) return `<span class="ident"${attr('title', `shortened: ${grouped(shown.length)} characters in all`)}>${text(shown.text)}</span>`;
  if (shown.text !== value) return `<span class="ident" title="holds invisible or format characters, shown as ⟨U+…⟩">${text(shown.text)}</span>`;
  return text(shown.text);
}
