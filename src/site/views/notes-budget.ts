/**
 * The deterministic budget for rendering NOTES.md (notes-render.ts) and what
 * is shown past it: counts that depend only on the bytes of the notes, so
 * whether notes render, and how, is the same on every machine. This module
 * loads no Markdown renderer: the main thread scans with it, and renders in a
 * worker (notes.ts).
 */

/**
 * The deterministic budget. Every ordinary Markdown document we tried (the
 * demo's notes; the READMEs and changelogs in node_modules cut to 128 KiB, all
 * but the 1 % built as single paragraphs tens of KiB long) is within it.
 */
export const NOTES_BUDGET = {
  /** UTF-8 bytes rendered as Markdown (the file limit, limits.notes_bytes, is 1 MiB). */
  markdown_bytes: 128 * 1024,
  /** Lines (every line can be a block: a heading, a list item). */
  lines: 8192,
  /** Columns of a line's leading container prefix (spaces, tabs as 4, `>`, list markers): bounds how deeply blocks nest. */
  prefix_columns: 128,
  /**
   * Work of the inline parser: over every block of consecutive non-blank
   * lines, (its ASCII punctuation characters + its lines) x its bytes, summed.
   * Bounds constructs that look back or ahead through their paragraph.
   */
  block_work: 2 ** 24,
  /** Nodes of the Markdown syntax tree. */
  nodes: 32_768,
  /** Nesting depth of the Markdown syntax tree. */
  depth: 64,
  /** Items of any one list. */
  list_items: 1024,
  /** Bytes of the HTML: at most this many times the Markdown's bytes ... */
  output_ratio: 8,
  /** ... plus this many. */
  output_extra: 64 * 1024,
} as const;

/** The name of a count in {@link NOTES_BUDGET}, or of the worker's safety net (notes.ts). */
export type NotesLimit = Exclude<keyof typeof NOTES_BUDGET, 'output_ratio' | 'output_extra'> | 'output_bytes' | 'seconds' | 'memory_mb' | 'renderer';

/** Why notes were not rendered: which count, its budget, what the notes have (`more` when counting stopped). */
export interface NotesOver {
  limit: NotesLimit;
  value: number;
  actual: number | 'more';
}

/** Rendered HTML, or the count that was over the budget. */
export type NotesRender = { html: string } | { over: NotesOver };

const WHAT: Record<NotesLimit, string> = {
  markdown_bytes: 'bytes of Markdown',
  lines: 'lines',
  prefix_columns: 'columns of block nesting on one line',
  block_work: 'units of inline-parsing work (punctuation and lines times bytes, per paragraph)',
  nodes: 'Markdown syntax-tree nodes',
  depth: 'levels of nesting',
  list_items: 'items in one list',
  output_bytes: 'bytes of HTML',
  seconds: 'seconds of rendering',
  memory_mb: 'MiB of memory',
  renderer: 'renderer failures',
};

/** One line saying why the notes were not rendered. */
export function notesOverMessage(over: NotesOver): string {
  if (over.limit === 'seconds' || over.limit === 'memory_mb') return `rendering them took more than ${over.value} ${WHAT[over.limit]}, the limit on this machine`;
  if (over.limit === 'renderer') return 'the Markdown renderer stopped unexpectedly';
  const value = over.value.toLocaleString('en-US');
  const has = over.actual === 'more' ? `more than ${value}` : over.actual.toLocaleString('en-US');
  return `they have ${has} ${WHAT[over.limit]}, over the limit of ${value} for Markdown`;
}

/** Escapes text for HTML element content. */
function escapeText(text: string): string {
  return text.replace(/[&<>"'\0]/g, (c) => (c === '\0' ? '\uFFFD' : `&#${c.charCodeAt(0)};`));
}

/** The notes as escaped preformatted text, after a line saying that and why they were not rendered as Markdown. */
export function notesFallback(text: string, over: NotesOver): string {
  return (
    `<p class="notes-unrendered" data-limit="${over.limit}"><strong>These notes were not rendered as Markdown:</strong> ${escapeText(notesOverMessage(over))}. They are shown as plain text.</p>\n` +
    `<pre class="notes-text">${escapeText(text)}</pre>`
  );
}

const isPunctuation = (c: number) => (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);

/**
 * The counts that can be taken from the text before parsing it (one linear
 * pass): bytes, lines, the widest line prefix, and the inline-parsing work.
 * The first count over its budget, or null.
 */
export function scanNotes(text: string): NotesOver | null {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > NOTES_BUDGET.markdown_bytes) return { limit: 'markdown_bytes', value: NOTES_BUDGET.markdown_bytes, actual: bytes };
  let lines = 0;
  let work = 0;
  // The current block (consecutive non-blank lines): its UTF-8 bytes, punctuation and lines.
  let blockBytes = 0;
  let blockMarks = 0;
  let blockLines = 0;
  const endBlock = () => {
    work += (blockMarks + blockLines) * blockBytes;
    blockBytes = blockMarks = blockLines = 0;
  };
  let i = 0;
  while (i <= text.length) {
    lines++;
    if (lines > NOTES_BUDGET.lines) return { limit: 'lines', value: NOTES_BUDGET.lines, actual: 'more' };
    // The leading prefix: indentation and container markers.
    let columns = 0;
    let j = i;
    for (; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 9) columns += 4;
      else if (c === 32 || c === 62 || c === 45 || c === 43 || c === 42 || c === 46 || c === 41 || (c >= 48 && c <= 57)) columns++;
      else break;
    }
    let end: number;
    let blank = true;
    let marks = 0;
    let lineBytes = 0;
    for (end = i; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === 10 || c === 13) break;
      if (c !== 32 && c !== 9) blank = false;
      if (isPunctuation(c)) marks++;
      lineBytes += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3;
    }
    // A thematic break or setext underline (`- - -`, `***`, nothing but one of `-` `*` and blanks) is as wide as it likes: it nests nothing.
    if (columns > NOTES_BUDGET.prefix_columns && !(j >= end && /^[ \t]*([-*])(?:[ \t]*\1)*[ \t]*$/.test(text.slice(i, end)))) return { limit: 'prefix_columns', value: NOTES_BUDGET.prefix_columns, actual: columns };
    if (blank) endBlock();
    else {
      blockBytes += lineBytes + 1;
      blockMarks += marks;
      blockLines++;
    }
    if (work > NOTES_BUDGET.block_work) return { limit: 'block_work', value: NOTES_BUDGET.block_work, actual: work };
    i = end + (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? 2 : 1);
  }
  endBlock();
  if (work > NOTES_BUDGET.block_work) return { limit: 'block_work', value: NOTES_BUDGET.block_work, actual: work };
  return null;
}
