/**
 * Fuzzing NOTES.md rendering (issue 10, item 5): random pathological Markdown
 * (nested and unbalanced emphasis, brackets, references, code spans, lists,
 * blockquotes, headings, raw HTML, hostile links, long repetitions). For every
 * case:
 *
 * - rendering finishes within the deterministic budget: the result is HTML or
 *   the escaped text over a count of NOTES_BUDGET, never the worker's
 *   machine-dependent time or memory limit, and in a few seconds;
 * - the HTML holds only tags of the sanitizer's schema, no `<script`, no `on*`
 *   attribute, no `javascript:`, `vbscript:` or `data:` URL;
 * - escaped text (the fallback) holds no tag but its own.
 *
 * 500 cases per run with a fixed seed (CI, a few seconds). `FUZZ_RUNS=n` runs
 * more, `FUZZ_SEED=n` another sequence; a failure prints the seed and path to
 * replay.
 */
import fc from 'fast-check';
import { defaultSchema } from 'rehype-sanitize';
import { describe, expect, it } from 'vitest';
import { performance } from 'node:perf_hooks';
import { renderNotesChecked } from '../../src/site/views/notes.ts';

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Cases per run: 500 in CI; FUZZ_RUNS overrides. */
const RUNS = envInt('FUZZ_RUNS', 500);
const SEED = envInt('FUZZ_SEED', 20261130);

/** Seconds one case may take (the worker's start, on a loaded machine); within the budget, rendering takes under one. */
const FEW_SECONDS = 8;

const hostileUrl = fc.constantFrom(
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  '&#106;avascript:alert(1)',
  'javascript&colon;alert(1)',
  ' javascript:alert(1)',
  '&#x6A;&#x61;vascript:alert(1)',
  'vbscript:msgbox(1)',
  'data:text/html,<script>alert(1)</script>',
  'https://example.org/ok',
  '/relative',
  '#frag',
  '<javascript:alert(1)>',
);

const html = fc.constantFrom(
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//x.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<a href="javascript:alert(1)">x</a>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<div onmouseover="alert(1)">x</div>',
  '<b onclick=alert(1)>b</b>',
  '<style>*{}</style>',
  '<!-- c',
  '-->',
  '<![CDATA[ ',
  ']]>',
  '<? ',
  '?>',
  '<!X ',
  '<a',
  '</a>',
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
);

const word = fc.constantFrom('a', 'b c', 'x_y', 'é', '\u200b', '&amp;', '&#0;', '\\*', '\\', '|', ':', '"', "'", '(', ')', ' ');
const delimiter = fc.constantFrom('*', '**', '***', '_', '__', '`', '``', '```', '[', ']', '![', '](', '<', '>', '!', '~');

/** An inline fragment: text, delimiters, code, links and references (hostile URLs among them), raw HTML, nested. */
const inline: fc.Arbitrary<string> = fc.letrec<{ inline: string }>((tie) => ({
  inline: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    word,
    delimiter,
    html,
    fc.tuple(fc.constantFrom('*', '**', '_', '__', '`'), tie('inline')).map(([d, x]) => `${d}${x}${d}`),
    fc.tuple(tie('inline'), hostileUrl, fc.constantFrom('', ' "t"', " 'onclick=alert(1)'")).map(([t, u, title]) => `[${t}](${u}${title})`),
    fc.tuple(tie('inline'), hostileUrl).map(([t, u]) => `![${t}](${u})`),
    fc.tuple(tie('inline'), fc.constantFrom('r', 'R', 'x')).map(([t, r]) => `[${t}][${r}]`),
    fc.array(tie('inline'), { maxLength: 4 }).map((xs) => xs.join('')),
  ),
})).inline;

/** A block prefix: headings, quotes, list markers, indentation, fences, breaks; repeated for nesting. */
const prefix = fc
  .tuple(fc.constantFrom('', '# ', '###### ', '> ', '>', '- ', '* ', '+ ', '1. ', '9) ', '  ', '    ', '\t', '```', '~~~', '---', '===', '[r]: '), fc.integer({ min: 1, max: 40 }))
  .map(([p, n]) => p.repeat(n));

const line = fc.tuple(prefix, fc.array(inline, { maxLength: 6 })).map(([p, xs]) => p + xs.join(''));

/** A document: lines (and blank lines), a reference definition with a hostile URL, and sometimes one piece repeated up to 60,000 times. */
const markdown = fc
  .tuple(
    fc.array(fc.oneof(line, fc.constant('')), { maxLength: 30 }),
    fc.tuple(fc.constantFrom('r', 'R', 'x'), hostileUrl, fc.integer({ min: 0, max: 3000 })).map(([r, u, pad]) => `[${r}]: ${u}${'u'.repeat(pad)}`),
    fc.option(
      fc.tuple(fc.oneof(inline, line.map((l) => `${l}\n`), fc.constant('\n\n')), fc.integer({ min: 2, max: 60_000 })),
      { freq: 2 },
    ),
    fc.constantFrom('\n', '\r\n', '\r'),
  )
  .map(([lines, definition, repeated, eol]) => {
    const body = [...lines, definition].join(eol);
    if (!repeated) return body;
    const [piece, times] = repeated;
    return (body + piece.repeat(Math.min(times, Math.floor(200_000 / Math.max(piece.length, 1))))).slice(0, 1024 * 1024);
  });

const ALLOWED_TAGS = new Set([...(defaultSchema.tagNames ?? [])].filter((t) => t !== 'img'));

/** Decodes the character references an attribute value may hold (numeric, and the named ones a URL could hide behind). */
function decode(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#([0-9]+);?/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&(colon|tab|newline|amp|quot|lt|gt);/gi, (_, n: string) => ({ colon: ':', tab: '\t', newline: '\n', amp: '&', quot: '"', lt: '<', gt: '>' })[n.toLowerCase()]!);
}

/** A start or end tag, its attributes quoted or not (a quoted value may hold `<` and `>`). */
const TAG = /<\/?([a-zA-Z][a-zA-Z0-9]*)((?:\s+[^\s"'=<>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/g;
const ATTRIBUTE = /\s+([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** Every problem with the HTML a case rendered to: a tag outside the allowed ones (`script` is never allowed), an `on*` attribute, a script URL, a `<` in text. */
function problems(out: string, fallback: boolean): string[] {
  const found: string[] = [];
  for (const [tag, name, attributes] of out.matchAll(TAG)) {
    if (fallback ? !['p', 'strong', 'pre'].includes(name!) : !ALLOWED_TAGS.has(name!.toLowerCase())) found.push(`tag ${tag}`);
    for (const [, attribute, double, single, bare] of attributes!.matchAll(ATTRIBUTE)) {
      if (/^on/i.test(attribute!)) found.push(`event attribute in ${tag}`);
      // eslint-disable-next-line no-control-regex -- browsers ignore control characters and whitespace in a scheme
      const value = decode(double ?? single ?? bare ?? '').replace(/[\u0000-\u0020]/g, '').toLowerCase();
      if (/^(javascript|vbscript|data):/.test(value)) found.push(`${value.slice(0, 20)} URL in ${tag}`);
    }
  }
  // Text is escaped: once the tags are taken out, no `<` is left to start one.
  if (out.replace(TAG, '').includes('<')) found.push('a < outside a tag');
  return found;
}

describe('fuzzing NOTES.md rendering', () => {
  it('always finishes within the budget, and never yields script, on* attributes or script URLs', async () => {
    await fc.assert(
      fc.asyncProperty(markdown, async (text) => {
        const start = performance.now();
        const { html: out, over } = await renderNotesChecked(new TextEncoder().encode(text));
        const seconds = (performance.now() - start) / 1000;
        expect(over === null || !['seconds', 'memory_mb', 'renderer'].includes(over.limit), `stopped by the safety net: ${over?.limit}`).toBe(true);
        expect(seconds).toBeLessThan(FEW_SECONDS);
        expect(problems(out, over !== null)).toEqual([]);
        if (over !== null) expect(out).toContain('<pre class="notes-text">');
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, Math.max(120_000, RUNS * 100));

  it('the checks catch what they look for', () => {
    expect(problems('<p>a</p><script>x</script>', false)).toEqual(['tag <script>', 'tag </script>']);
    expect(problems('<p>a <scr</p>', false)).toEqual(['a < outside a tag']);
    expect(problems('<code class="language-<script>x">a</code>', false)).toEqual([]);
    expect(problems('<p onclick="x">a</p>', false)).toEqual(['event attribute in <p onclick="x">']);
    expect(problems('<a href="jav&#x61;script&#x3A;x">a</a>', false)).toHaveLength(1);
    expect(problems('<a href="java\tscript:x">a</a>', false)).toHaveLength(1);
    expect(problems('<img src="x">', false)).toEqual(['tag <img src="x">']);
    expect(problems('<a href="https://example.org/">a</a>', false)).toEqual([]);
    expect(problems('<p>x</p>\n<pre class="notes-text">&#60;script&#62;</pre>', true)).toEqual([]);
  });
});
