/**
 * Rendering NOTES.md, the publisher's untrusted Markdown, under a
 * deterministic budget. The pipeline is remark -> remark-rehype ->
 * rehype-sanitize (GitHub's schema, last before stringify) -> HTML: raw HTML
 * in the Markdown is dropped, not passed through; `javascript:` and `data:`
 * links lose their href; ids get the sanitizer's `user-content-` prefix, so
 * notes can never clobber the page's own elements; images are dropped (no
 * third-party loads from a visitor's browser); headings are demoted two
 * levels under the page's own.
 *
 * Markdown within the 1 MiB file limit can still take minutes or gigabytes
 * (micromark resolves emphasis, brackets, code spans, raw HTML and lazy lines
 * by looking back or ahead through their paragraph; mdast-util-to-hast looks
 * through a list's items once per item; reference links repeat one long URL).
 * So before and while rendering, counts are held against
 * {@link NOTES_BUDGET}: every count depends only on the bytes of the notes, so
 * whether notes render, and how, is the same on every machine. Anything
 * within the budget renders in well under a second (test/site/notes.test.ts).
 * Past it, the notes are shown as escaped preformatted text with a line
 * saying which count was over (notesFallback in notes-budget.ts). notes.ts runs this in a
 * worker thread with a time and memory limit as the one machine-dependent
 * safety net.
 */
import { remark } from 'remark';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import type { Root, RootContent } from 'hast';
import { NOTES_BUDGET, scanNotes, type NotesRender } from './notes-budget.ts';
import { highlightNotes } from './highlight.ts';

/** GitHub's schema without images: a publisher's notes must not make visitors load third-party URLs. */
const schema = { ...defaultSchema, tagNames: (defaultSchema.tagNames ?? []).filter((t) => t !== 'img') };

/** Demotes headings by two levels (h1 -> h3), so notes never compete with the page's own h1 and h2. */
function demoteHeadings() {
  return (tree: Root) => {
    const visit = (node: Root | RootContent) => {
      if (node.type === 'element' && /^h[1-6]$/.test(node.tagName)) node.tagName = `h${Math.min(6, Number(node.tagName[1]) + 2)}`;
      if ('children' in node) for (const child of node.children) visit(child);
    };
    visit(tree);
  };
}

/**
 * In-page links of the notes (footnotes, `[x](#y)`) point at the ids the
 * sanitizer prefixed: `#y` becomes `#user-content-y`, so a link in the notes
 * never targets an element of the page itself. Runs after sanitizing, on
 * fragment-only hrefs.
 */
function prefixFragments() {
  return (tree: Root) => {
    const stack: (Root | RootContent)[] = [tree];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === 'element' && node.tagName === 'a') {
        const href = node.properties.href;
        if (typeof href === 'string' && href.startsWith('#') && !href.startsWith('#user-content-')) node.properties.href = `#user-content-${href.slice(1)}`;
      }
      if ('children' in node) stack.push(...node.children);
    }
  };
}

const processor = remark()
  .use(remarkGfm) // GitHub-flavoured Markdown: tables, strikethrough, task lists, autolinks, footnotes
  // allowDangerousHtml is off: raw HTML nodes are dropped here. No prefix here: rehype-sanitize adds `user-content-` once.
  .use(remarkRehype, { clobberPrefix: '' })
  .use(demoteHeadings)
  .use(rehypeSanitize, schema)
  .use(prefixFragments)
  .use(rehypeStringify);

interface TreeNode {
  type: string;
  align?: unknown[];
  children?: TreeNode[];
  value?: unknown;
  url?: unknown;
  title?: unknown;
  identifier?: unknown;
}

const length = (v: unknown) => (typeof v === 'string' ? v.length : 0);

/**
 * Walks the Markdown syntax tree without recursion (deep trees are what is
 * being refused): its nodes, depth and longest list, and the characters of
 * text and URLs the HTML will hold, counting a reference's URL and title once
 * per reference (one long definition used many times is repeated in the HTML).
 */
function measure(root: TreeNode): { nodes: number; depth: number; listItems: number; chars: number } {
  let nodes = 0;
  let depth = 0;
  let listItems = 0;
  let chars = 0;
  const definitions = new Map<unknown, number>();
  const references: unknown[] = [];
  const stack: [TreeNode, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    nodes++;
    depth = Math.max(depth, d);
    if (node.type === 'definition') {
      if (!definitions.has(node.identifier)) definitions.set(node.identifier, length(node.url) + length(node.title));
    } else chars += length(node.value) + length(node.url) + length(node.title);
    if (node.type === 'linkReference' || node.type === 'imageReference') references.push(node.identifier);
    if (node.children) {
      if (node.type === 'list') listItems = Math.max(listItems, node.children.length);
      // A GFM table's HTML has as many cells in every row as its delimiter row has columns: the cells a row leaves out count too.
      if (node.type === 'table' && Array.isArray(node.align)) {
        for (const row of node.children) nodes += Math.max(0, node.align.length - (row.children?.length ?? 0));
      }
      if (d <= NOTES_BUDGET.depth) for (const child of node.children) stack.push([child, d + 1]);
    }
  }
  for (const id of references) chars += definitions.get(id) ?? 0;
  return { nodes, depth, listItems, chars };
}

/** Renders untrusted Markdown to sanitized HTML, or says which count of {@link NOTES_BUDGET} was over. */
export async function renderMarkdown(text: string): Promise<NotesRender> {
  const scanned = scanNotes(text);
  if (scanned) return { over: scanned };
  const mdast = processor.parse(text);
  const m = measure(mdast as TreeNode);
  if (m.depth > NOTES_BUDGET.depth) return { over: { limit: 'depth', value: NOTES_BUDGET.depth, actual: 'more' } };
  if (m.nodes > NOTES_BUDGET.nodes) return { over: { limit: 'nodes', value: NOTES_BUDGET.nodes, actual: m.nodes } };
  if (m.listItems > NOTES_BUDGET.list_items) return { over: { limit: 'list_items', value: NOTES_BUDGET.list_items, actual: m.listItems } };
  const outputBytes = NOTES_BUDGET.output_ratio * Buffer.byteLength(text, 'utf8') + NOTES_BUDGET.output_extra;
  // Before building the HTML: its text and URLs alone over the limit.
  if (m.chars > outputBytes) return { over: { limit: 'output_bytes', value: outputBytes, actual: 'more' } };
  const hast = await processor.run(mdast);
  const html = String(processor.stringify(hast));
  const bytes = Buffer.byteLength(html, 'utf8');
  if (bytes > outputBytes) return { over: { limit: 'output_bytes', value: outputBytes, actual: bytes } };
  // Fenced code in a known language, within NOTES_HIGHLIGHT (highlight.ts), gets shiki's dual-theme colours, after sanitizing.
  return (await highlightNotes(hast as Root)) > 0 ? { html: String(processor.stringify(hast)) } : { html };
}
