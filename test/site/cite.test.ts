/**
 * The "Cite this" block: evidence text (plan titles, model and agent names)
 * can neither close a BibTeX field early (forging author/url fields or a
 * second entry), nor plant a LaTeX command, nor break a line, in the BibTeX
 * entry or the plain-text citation. Properties over every string of the
 * hostile corpora (RSnake's XSS cheat sheet and the Big List of Naughty
 * Strings) and hand-made probes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bibtexEntry, bibtexText, bibtexUrl, plainCitation, type Citation } from '../../src/site/views/cite.ts';
import { readCorpora } from '../browser/hostile.ts';

const PROBES = [
  'x}, author = {Forged Author}, url = {https://evil.example',
  'x}\n}\n@misc{forged, title = {Forged',
  '\\input{/etc/passwd} \\write18{rm -rf ~} \\url{https://evil.example}',
  '}}}}}}{{{ \\} \\{ \\\\',
  '100% #1 & $x^2$ a_b ~c @d',
  'line\r\nbreak\u2028sep\u2029para\u0085nel\u000bvt\u0000nul',
  '\\', '{', '}', '@', '',
  'acme/base\u200b',
];

let corpus: string[] = [];
beforeAll(async () => {
  const { xss, blns } = await readCorpora();
  corpus = [...PROBES, ...xss, ...blns];
});

/** The escaped field content is a sequence of these tokens, and nothing else. */
const TOKENS = /\\textbackslash\{\}|\\textbraceleft\{\}|\\textbraceright\{\}|\{\\char64\}|\\[%#&$_]|\\textasciicircum\{\}|\\textasciitilde\{\}|[^\\{}@%#&$_^~]/gsu;
const DECODE: Record<string, string> = {
  '\\textbackslash{}': '\\',
  '\\textbraceleft{}': '{',
  '\\textbraceright{}': '}',
  '{\\char64}': '@',
  '\\textasciicircum{}': '^',
  '\\textasciitilde{}': '~',
};

/** BibTeX's view: every brace counts, escaped or not. Null when the depth goes below zero (the field closes early). */
function braceDepth(text: string): number | null {
  let depth = 0;
  for (const ch of text) {
    if (ch === '{') depth++;
    else if (ch === '}' && --depth < 0) return null;
  }
  return depth;
}

/** A minimal BibTeX reader: entries as `@type{key, name = {balanced}, ...}`; returns each entry's field names and values. */
function parseBibtex(text: string): { type: string; key: string; fields: [string, string][] }[] {
  const entries = [];
  let i = 0;
  const skip = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const braced = (): string => {
    if (text[i] !== '{') throw new Error(`expected { at ${i}`);
    let depth = 0;
    const start = i + 1;
    for (; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) return text.slice(start, i++);
    }
    throw new Error('unbalanced');
  };
  for (;;) {
    const at = text.indexOf('@', i);
    if (at === -1) break;
    i = at + 1;
    const type = /^[a-z]+/i.exec(text.slice(i))![0];
    i += type.length;
    skip();
    if (text[i] !== '{') throw new Error('no body');
    i++;
    const comma = text.indexOf(',', i);
    const key = text.slice(i, comma).trim();
    i = comma + 1;
    const fields: [string, string][] = [];
    for (;;) {
      skip();
      if (text[i] === '}') {
        i++;
        break;
      }
      const name = /^[a-z]+/i.exec(text.slice(i))![0];
      i += name.length;
      skip();
      if (text[i] !== '=') throw new Error(`expected = after ${name}`);
      i++;
      skip();
      fields.push([name, braced()]);
      skip();
      if (text[i] === ',') i++;
    }
    entries.push({ type, key, fields });
  }
  return entries;
}

const citation = (title: string): Citation => ({
  key: 'ledgerboard-0123456789ab',
  siteTitle: 'Leaderboard',
  title,
  url: 'https://board.example/plans/ab/',
  year: '2026',
  note: 'ledgerboard report sha256:00, evidence up to 2026-11-18T17:58:00Z',
});

describe('bibtexText', () => {
  it('every corpus string: balanced braces, no @, no line break or control character, only its own escapes, and it decodes back', () => {
    expect(corpus.length).toBeGreaterThan(500);
    for (const s of corpus) {
      const out = bibtexText(s);
      expect(braceDepth(out), JSON.stringify(s)).toBe(0);
      expect(out).not.toMatch(/[@\p{Cc}\u2028\u2029\u0085]/u);
      const tokens = out.match(TOKENS) ?? [];
      expect(tokens.join(''), JSON.stringify(s)).toBe(out);
      const decoded = tokens.map((t) => DECODE[t] ?? (t.length === 2 && t[0] === '\\' ? t[1] : t)).join('');
      expect(decoded).toBe(s.replace(/[\p{Cc}\u2028\u2029\u0085]/gu, ' '));
    }
  });
});

describe('bibtexUrl', () => {
  it('keeps braces balanced and writes no @, backslash command or space', () => {
    for (const s of ['https://board.example/a b/{x}}/@\\/%41#f', ...PROBES]) {
      const out = bibtexUrl(s);
      expect(braceDepth(out)).toBe(0);
      expect(out).not.toMatch(/[@{}\s]|\\(?![%#])/u);
    }
  });
});

describe('bibtexEntry', () => {
  it('every corpus string as a page title gives one @misc entry with exactly its four fields', () => {
    for (const s of corpus) {
      const entry = bibtexEntry(citation(s));
      const parsed = parseBibtex(entry);
      expect(parsed.map((e) => e.type), JSON.stringify(s)).toEqual(['misc']);
      expect(parsed[0]!.key).toBe('ledgerboard-0123456789ab');
      expect(parsed[0]!.fields.map(([name]) => name)).toEqual(['title', 'howpublished', 'year', 'note']);
      expect(parsed[0]!.fields[1]![1]).toBe('\\url{https://board.example/plans/ab/}');
      expect(entry.split('\n')).toHaveLength(6);
    }
  });

  it('a 64 KiB title is cited shortened, with its length', () => {
    const entry = bibtexEntry(citation('t'.repeat(65_536)));
    expect(entry.length).toBeLessThan(1_000);
    expect(entry).toContain('65,536');
  });
});

describe('plainCitation', () => {
  it('every corpus string: one line, the title quoted before the URL, the URL and note as given', () => {
    for (const s of corpus) {
      const text = plainCitation(citation(s));
      expect(text, JSON.stringify(s)).not.toMatch(/[\p{Cc}\u2028\u2029\u0085]/u);
      expect(text.startsWith('“Leaderboard: ')).toBe(true);
      expect(text.endsWith('”. https://board.example/plans/ab/ (ledgerboard report sha256:00, evidence up to 2026-11-18T17:58:00Z).')).toBe(true);
    }
  });

  it('an invisible character in a title is shown', () => {
    expect(plainCitation(citation('acme/base\u200b'))).toContain('acme/base⟨U+200B⟩');
  });
});
