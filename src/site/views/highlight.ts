/**
 * Syntax highlighting for the plan page's plan JSON and for fenced code
 * blocks in NOTES.md, with shiki's dual themes: every token carries its
 * colour for both themes as CSS variables (`--shiki-light`, `--shiki-dark`,
 * and `-bg` for the block), and public/site.css picks one by
 * `prefers-color-scheme`. No `<style>` or script is emitted: only inline
 * `style` attributes whose values come from the themes, never from evidence.
 *
 * Notes are untrusted: a block is highlighted only when its language is in
 * {@link NOTES_LANGUAGES} (the fence's info string never names a grammar to
 * load), and at most {@link NOTES_HIGHLIGHT} characters of code and blocks
 * per notes file, counted in document order, so which blocks are highlighted
 * depends only on the notes' bytes. The rest stay plain `<pre><code>`.
 */
import { codeToHast, codeToHtml, type BundledLanguage } from 'shiki';
import type { Element, ElementContent, Root, RootContent } from 'hast';

/** The themes: light by default, dark under `prefers-color-scheme: dark` (public/site.css). */
export const SHIKI_THEMES = { light: 'github-light', dark: 'github-dark' } as const;

/**
 * Both themes as variables only, no default `color` (site.css sets it from the
 * variables). No time limit per line: shiki's default (500 ms) stops
 * tokenizing a line when the machine is slow, so a loaded machine would build
 * other colours (seen under a parallel test run). The notes' worker limit
 * (notes.ts NOTES_SAFETY) is the safety net for a grammar that takes long.
 */
const OPTIONS = { themes: SHIKI_THEMES, defaultColor: false, tokenizeTimeLimit: 0 } as const;

/** The plan as highlighted JSON (plan.json verified, so this is the plan's own JSON, indented). */
export function highlightJson(json: string): Promise<string> {
  return codeToHtml(json, { lang: 'json', ...OPTIONS });
}

/** Fence languages NOTES.md may highlight, by the name after ``` (lower-cased), and the grammar each loads. */
export const NOTES_LANGUAGES: Readonly<Record<string, BundledLanguage>> = {
  json: 'json',
  jsonc: 'jsonc',
  yaml: 'yaml',
  yml: 'yaml',
  toml: 'toml',
  sh: 'shellscript',
  bash: 'shellscript',
  shell: 'shellscript',
  console: 'shellscript',
  python: 'python',
  py: 'python',
  javascript: 'javascript',
  js: 'javascript',
  typescript: 'typescript',
  ts: 'typescript',
  diff: 'diff',
  sql: 'sql',
};

/** How much of one notes file is highlighted: characters of code, and blocks, in document order. */
export const NOTES_HIGHLIGHT = { chars: 16 * 1024, blocks: 64 } as const;

/** The text of a hast node. */
function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(textOf).join('');
  return '';
}

/** The grammar of a sanitized `<pre><code class="language-x">` block, when it may be highlighted. */
function languageOf(pre: Element): { code: string; lang: BundledLanguage } | null {
  const elements = pre.children.filter((c) => c.type === 'element');
  if (elements.length !== 1 || pre.children.length !== 1) return null;
  const code = elements[0]!;
  if (code.tagName !== 'code') return null;
  const classes = code.properties.className;
  const names: string[] = Array.isArray(classes) ? classes.map(String) : [];
  const name = names.find((c) => c.startsWith('language-'))?.slice('language-'.length).toLowerCase();
  const lang = name !== undefined && Object.hasOwn(NOTES_LANGUAGES, name) ? NOTES_LANGUAGES[name]! : null;
  return lang ? { code: textOf(code), lang } : null;
}

/**
 * Highlights the fenced code blocks of sanitized notes in place (after
 * rehype-sanitize: what is put in is shiki's own output from the code's
 * text). Returns how many blocks were highlighted.
 */
export async function highlightNotes(tree: Root): Promise<number> {
  const found: { parent: Root | Element; index: number; code: string; lang: BundledLanguage }[] = [];
  // Pre-order walk without recursion: children pushed last-first, so they are popped in document order.
  const order: { parent: Root | Element; index: number; node: Element }[] = [];
  const stack: { parent: Root | Element; index: number }[] = [];
  const pushChildren = (parent: Root | Element) => {
    for (let i = parent.children.length - 1; i >= 0; i--) stack.push({ parent, index: i });
  };
  pushChildren(tree);
  while (stack.length > 0) {
    const { parent, index } = stack.pop()!;
    const node = parent.children[index]!;
    if (node.type !== 'element') continue;
    if (node.tagName === 'pre') order.push({ parent, index, node });
    else pushChildren(node);
  }
  let chars = 0;
  for (const { parent, index, node } of order) {
    const block = languageOf(node);
    if (!block) continue;
    if (found.length >= NOTES_HIGHLIGHT.blocks || chars + block.code.length > NOTES_HIGHLIGHT.chars) break;
    chars += block.code.length;
    found.push({ parent, index, ...block });
  }
  for (const { parent, index, code, lang } of found) {
    const highlighted = await codeToHast(code.replace(/\n$/, ''), { lang, ...OPTIONS });
    const pre = highlighted.children.find((c): c is Element => c.type === 'element');
    if (pre) (parent.children as RootContent[])[index] = pre;
  }
  return found.length;
}
