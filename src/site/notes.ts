/**
 * NOTES.md, the publisher's untrusted Markdown: remark -> remark-rehype ->
 * rehype-sanitize (GitHub's schema, last before stringify) -> HTML. Raw HTML
 * in the Markdown is dropped, not passed through; `javascript:` and `data:`
 * links lose their href; ids get the sanitizer's `user-content-` prefix, so
 * notes can never clobber the page's own elements; images are dropped (no
 * third-party loads from a visitor's browser); headings are demoted two
 * levels under the page's own.
 */
import { remark } from 'remark';
import remarkRehype from 'remark-rehype';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import type { Root, RootContent } from 'hast';

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

const processor = remark()
  .use(remarkRehype) // allowDangerousHtml is off: raw HTML nodes are dropped here
  .use(demoteHeadings)
  .use(rehypeSanitize, schema)
  .use(rehypeStringify);

/** Renders untrusted Markdown bytes to sanitized HTML. Invalid UTF-8 is replaced, never trusted. */
export async function renderNotes(bytes: Uint8Array): Promise<string> {
  const text = new TextDecoder('utf-8').decode(bytes);
  return String(await processor.process(text));
}
