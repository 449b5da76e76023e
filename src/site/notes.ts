/**
 * NOTES.md, the publisher's untrusted Markdown: remark -> remark-rehype ->
 * rehype-sanitize (GitHub's schema, last before stringify) -> HTML. Raw HTML
 * in the Markdown is dropped, not passed through; `javascript:` and `data:`
 * links lose their href; ids get the sanitizer's `user-content-` prefix, so
 * notes can never clobber the page's own elements.
 */
import { remark } from 'remark';
import remarkRehype from 'remark-rehype';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';

const processor = remark()
  .use(remarkRehype) // allowDangerousHtml is off: raw HTML nodes are dropped here
  .use(rehypeSanitize, defaultSchema)
  .use(rehypeStringify);

/** Renders untrusted Markdown bytes to sanitized HTML. Invalid UTF-8 is replaced, never trusted. */
export async function renderNotes(bytes: Uint8Array): Promise<string> {
  const text = new TextDecoder('utf-8').decode(bytes);
  return String(await processor.process(text));
}
