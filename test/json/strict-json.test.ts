/**
 * The strict I-JSON parser (FORMAT.md section 2): the authored edge cases of
 * test/fixtures/authored/jcs-edge-cases.json, positions of errors, the depth
 * limit, `__proto__`, non-integer token reporting, and agreement with
 * JSON.parse on valid documents.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digestBytes } from '../../src/json/canonical.ts';
import { DEFAULT_MAX_DEPTH, isNoncharacter, parseStrictJson, parseStrictText, type JsonValue, type StrictParseResult } from '../../src/json/strict-json.ts';
import { repoUrl, runIsolatedAsync } from '../helpers/hang-guard.ts';

fc.configureGlobal({ seed: 20261129 });

const encoder = new TextEncoder();
const parse = (text: string, options?: { maxDepth?: number }): StrictParseResult => parseStrictJson(encoder.encode(text), options);

function errorOf(result: StrictParseResult): { line: number; column: number } {
  if (result.ok) throw new Error(`expected a parse error, got ${canonicalJson(result.value)}`);
  return { line: result.error.line, column: result.error.column };
}

function valueOf(result: StrictParseResult): JsonValue {
  if (!result.ok) throw new Error(`expected a value, got an error at ${result.error.line}:${result.error.column}`);
  return result.value;
}

interface EdgeCase {
  id: string;
  input_text?: string;
  input_hex?: string;
  input_generator?: string;
  expect: { error?: string; jcs?: string; sha256_of_jcs_utf8?: string };
}

/** Evaluates the tiny generator language of the edge-case file: `'x' * N + 'y' * M`. */
function generate(expression: string): string {
  return expression
    .split('+')
    .map((term) => {
      const m = /^\s*'(.*)'\s*\*\s*(\d+)\s*$/.exec(term);
      if (!m) throw new Error(`cannot evaluate generator term ${JSON.stringify(term)}`);
      return m[1]!.repeat(Number(m[2]));
    })
    .join('');
}

function inputBytes(c: EdgeCase): Uint8Array {
  if (c.input_text !== undefined) return encoder.encode(c.input_text);
  if (c.input_hex !== undefined) return Buffer.from(c.input_hex, 'hex');
  if (c.input_generator !== undefined) return encoder.encode(generate(c.input_generator));
  throw new Error(`case ${c.id} has no input`);
}

const edgeFile = new URL('../fixtures/authored/jcs-edge-cases.json', import.meta.url);
const edgeCases = (JSON.parse(readFileSync(edgeFile, 'utf8')) as { cases: EdgeCase[] }).cases;

describe('authored edge cases (test/fixtures/authored/jcs-edge-cases.json)', () => {
  it('the file holds both kinds of case', () => {
    expect(edgeCases.filter((c) => c.expect.error !== undefined).length).toBeGreaterThan(10);
    expect(edgeCases.filter((c) => c.expect.jcs !== undefined).length).toBeGreaterThan(5);
  });

  for (const c of edgeCases) {
    if (c.expect.error !== undefined) {
      it(`${c.id}: does not parse (${c.expect.error})`, () => {
        expect(parseStrictJson(inputBytes(c)).ok).toBe(false);
      });
    } else {
      it(`${c.id}: canonical form and its digest`, () => {
        const value = valueOf(parseStrictJson(inputBytes(c)));
        const jcs = canonicalJson(value);
        expect(jcs).toBe(c.expect.jcs);
        expect(digestBytes(Buffer.from(jcs, 'utf8'))).toBe(`sha256:${c.expect.sha256_of_jcs_utf8}`);
      });
    }
  }
});

describe('errors carry the line and column of the problem', () => {
  const cases: [string, string | Uint8Array, number, number][] = [
    ['a duplicate member on line 3', '{\n  "a": 1,\n  "a": 2\n}', 3, 3],
    ['a duplicate after unescaping', '{"ab": 1,\n "\\u0061b": 2}', 2, 2],
    ['a bad token on line 3', '[1,\n 2,\n x]', 3, 2],
    ['trailing data', '{"a":1} x', 1, 9],
    ['NaN after blank lines', '\n\n  [NaN]', 3, 4],
    ['a lone surrogate escape', '{"s":"\\ud800"}', 1, 7],
    ['a high surrogate followed by a non-surrogate escape', '["\\ud800\\u0041"]', 1, 3],
    ['columns count UTF-16 code units', '["\u{1F600}", x]', 1, 8],
    ['a byte-order mark', Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), 1, 1],
    ['invalid UTF-8 (columns in bytes)', Buffer.from([0x5b, 0x0a, 0x22, 0xff, 0x22, 0x5d]), 2, 2],
    ['an encoded surrogate (ED A0 80)', Buffer.from([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]), 1, 3],
    ['an unescaped tab in a string', '["a\tb"]', 1, 4],
    ['a number out of range', '[0,\n 1e400]', 2, 2],
    ['nesting 65 deep', '['.repeat(65) + ']'.repeat(65), 1, 65],
  ];
  for (const [name, input, line, column] of cases) {
    it(name, () => {
      const result = typeof input === 'string' ? parse(input) : parseStrictJson(input);
      expect(errorOf(result)).toEqual({ line, column });
    });
  }
});

describe('strictness beyond JSON.parse', () => {
  const rejected: [string, string][] = [
    ['duplicate names', '{"a":1,"a":1}'],
    ['duplicate names in a nested object', '[{"x":{"b":1,"b":2}}]'],
    ['duplicate "__proto__"', '{"__proto__":1,"__proto__":2}'],
    ['escaped lone low surrogate', '"\\udc00"'],
    ['escaped lone high surrogate at the end of the string', '"\\ud800"'],
    ['escaped U+FFFF', '"\\uffff"'],
    ['escaped U+FDD0', '"\\ufdd0"'],
    ['escaped U+FDEF', '"\\uFDEF"'],
    ['escaped astral noncharacter U+1FFFE', '"\\ud83f\\udffe"'],
    ['escaped U+10FFFF', '"\\udbff\\udfff"'],
    ['raw U+FFFE', '"\ufffe"'],
    ['raw U+FDD5', '"\ufdd5"'],
    ['raw U+2FFFF', '"\u{2FFFF}"'],
    ['a noncharacter in a member name', '{"\ufdd0":1}'],
    ['NaN', 'NaN'],
    ['-Infinity', '[-Infinity]'],
    ['leading zero', '[01]'],
    ['lone minus', '[-]'],
    ['trailing decimal point', '[1.]'],
    ['leading decimal point', '[.5]'],
    ['plus sign', '[+1]'],
    ['empty exponent', '[1e]'],
    ['hex', '[0x10]'],
    ['single quotes', "['a']"],
    ['comment', '[1] // no'],
    ['form feed as whitespace', '[1,\f2]'],
    ['no-break space as whitespace', '[1,\u00a02]'],
    ['trailing comma in an array', '[1,]'],
    ['empty document', ''],
    ['whitespace only', ' \n\t '],
    ['truncated literal', '[tru]'],
    ['capitalised literal', 'True'],
    ['invalid escape', '"\\x41"'],
    ['short unicode escape', '"\\u41"'],
    ['unquoted member name', '{a:1}'],
    ['missing colon', '{"a" 1}'],
    ['two documents', '{} {}'],
  ];
  for (const [name, text] of rejected) {
    it(`rejects ${name}`, () => {
      expect(parse(text).ok).toBe(false);
    });
  }

  const accepted: [string, string, JsonValue][] = [
    ['escaped U+FFFD', '"\\ufffd"', '\ufffd'],
    ['escaped U+FDCF (just below the noncharacter block)', '"\\ufdcf"', '\ufdcf'],
    ['escaped U+FDF0 (just above it)', '"\\ufdf0"', '\ufdf0'],
    ['a surrogate pair escape', '"\\ud83d\\ude00"', '\u{1F600}'],
    ['raw U+10FFFD', '"\u{10FFFD}"', '\u{10FFFD}'],
    ['escaped NUL', '"\\u0000"', '\u0000'],
    ['escaped solidus', '"\\/"', '/'],
    ['all four whitespace characters', ' \t\r\n[ 1 ,\r\n2 ]\n', [1, 2]],
    ['a top-level scalar', '42', 42],
    ['names differing only in normalisation', '{"\u00e9":1,"e\u0301":2}', { '\u00e9': 1, 'e\u0301': 2 }],
  ];
  for (const [name, text, value] of accepted) {
    it(`accepts ${name}`, () => {
      expect(valueOf(parse(text))).toEqual(value);
    });
  }

  it('isNoncharacter: U+FDD0..U+FDEF and U+xFFFE / U+xFFFF in every plane, nothing else', () => {
    const nonchars: number[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) if (isNoncharacter(cp)) nonchars.push(cp);
    expect(nonchars.length).toBe(66);
    for (let plane = 0; plane <= 16; plane++) {
      expect(nonchars).toContain(plane * 0x10000 + 0xfffe);
      expect(nonchars).toContain(plane * 0x10000 + 0xffff);
    }
  });
});

// FORMAT.md 2: "nesting deeper than 64 (the top-level value is depth 1)". Every value has a depth:
// the top-level value is 1 and a member or element is one more than its container, scalars included.
describe('depth', () => {
  const nest = (depth: number, open: string, close: string, inner = '0'): string => open.repeat(depth) + inner + close.repeat(depth);

  it('[strict-json: depth] 64 nested empty arrays are accepted, 65 are BAD_JSON', () => {
    expect(DEFAULT_MAX_DEPTH).toBe(64);
    expect(parse(nest(64, '[', ']', '')).ok).toBe(true);
    expect(parse(nest(65, '[', ']', '')).ok).toBe(false);
  });

  it('a scalar counts: 63 arrays around a number are depth 64, 64 arrays around one are depth 65', () => {
    expect(parse(nest(63, '[', ']')).ok).toBe(true);
    expect(parse(nest(64, '[', ']')).ok).toBe(false);
    expect(parse('"top-level scalar: depth 1"', { maxDepth: 1 }).ok).toBe(true);
  });

  it('objects count as arrays do', () => {
    expect(parse(nest(63, '{"a":', '}')).ok).toBe(true);
    expect(parse(nest(64, '{"a":', '}')).ok).toBe(false);
    expect(parse(nest(64, '{"a":', '}', '{}').replace(/^\{"a":/, '[').replace(/\}$/, ']')).ok).toBe(false);
    expect(parse(nest(31, '[{"a":', '}]')).ok).toBe(true);
    expect(parse(nest(32, '[{"a":', '}]')).ok).toBe(false);
  });

  it('the limit is per path, not per document', () => {
    const deep = nest(62, '[', ']');
    expect(parse(`[${deep},${deep},{"a":${nest(61, '[', ']')}}]`).ok).toBe(true);
    expect(parse(`[${deep},${deep},{"a":${deep}}]`).ok).toBe(false);
  });

  it('a custom maxDepth', () => {
    expect(parse('[[0]]', { maxDepth: 3 }).ok).toBe(true);
    expect(parse('[[0]]', { maxDepth: 2 }).ok).toBe(false);
    expect(parse('[[]]', { maxDepth: 2 }).ok).toBe(true);
    expect(parse('7', { maxDepth: 0 }).ok).toBe(false);
  });

  it('100,000 levels fail fast without exhausting the stack', () => {
    const result = parse(nest(100_000, '[', ']', ''));
    expect(errorOf(result)).toEqual({ line: 1, column: 65 });
  });
});

describe('__proto__', () => {
  it('is kept as an own data member, never as the prototype', () => {
    const value = valueOf(parse('{"__proto__":{"polluted":true},"a":1}')) as Record<string, JsonValue>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toEqual({ polluted: true });
    expect((value as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(canonicalJson(value)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('agrees with JSON.parse', () => {
    const text = '{"a":{"__proto__":[1,2]},"__proto__":null}';
    expect(canonicalJson(valueOf(parse(text)))).toBe(canonicalJson(JSON.parse(text)));
  });
});

describe('maxStringBytes', () => {
  it('a value or member name over the limit fails with its UTF-8 size, place and position; at the limit it parses', () => {
    const text = '{"a": [1, {"b": "xxxxx"}], "yyyyyy": 2}';
    expect(parseStrictText(text, { maxStringBytes: 6 }).ok).toBe(true);
    const over = parseStrictText(text, { maxStringBytes: 5 });
    expect(over.ok).toBe(false);
    if (over.ok) return;
    expect(over.error).toMatchObject({ kind: 'string-over-limit', line: 1, column: 28, string: { path: [], memberName: true, bytes: 6 } });
    const value = parseStrictText(text, { maxStringBytes: 4 });
    expect(!value.ok && value.error).toMatchObject({ kind: 'string-over-limit', column: 17, string: { path: ['a', 1, 'b'], memberName: false, bytes: 5 } });
  });

  it('counts bytes after unescaping, in UTF-8', () => {
    expect(parseStrictText('"\\u00e9\\u00e9"', { maxStringBytes: 4 }).ok).toBe(true);
    expect(parseStrictText('"\\u00e9\\u00e9"', { maxStringBytes: 3 }).ok).toBe(false);
    expect(parseStrictText('"\u00e9\u00e9"', { maxStringBytes: 3 }).ok).toBe(false);
    expect(parseStrictText('"\\ud83d\\ude00"', { maxStringBytes: 4 }).ok).toBe(true);
    expect(parseStrictText('"\\ud83d\\ude00"', { maxStringBytes: 3 }).ok).toBe(false);
  });

  it('paths count array elements and skip strings holding brackets, commas and escaped quotes', () => {
    const text = '[{"k": "a,]}[\\"{"}, 2, ["x", {"m": "longer-string"}]]';
    const result = parseStrictText(text, { maxStringBytes: 8 });
    expect(!result.ok && result.error.string).toEqual({ path: [2, 1, 'm'], memberName: false, bytes: 13 });
  });
});

describe('nonIntegerTokens', () => {
  it('reports fractions, exponents and unsafe integers with their positions', () => {
    const lines = ['[1.0, 1e2, 9007199254740992,', ' 9007199254740991, -9007199254740991, -9007199254740992, 0, -0, 1E+2, 12, 0.5]'];
    const result = parse(lines.join('\n'));
    if (!result.ok) throw new Error('parse failed');
    const at = (line: number, token: string, from = 0) => ({ token, line, column: lines[line - 1]!.indexOf(token, from) + 1 });
    expect(result.nonIntegerTokens).toEqual([
      at(1, '1.0'),
      at(1, '1e2'),
      at(1, '9007199254740992'),
      at(2, '-9007199254740992'),
      at(2, '-0', 55),
      at(2, '1E+2'),
      at(2, '0.5'),
    ]);
    expect(result.nonIntegerTokens.map((t) => t.column)).toEqual([2, 7, 12, 39, 61, 65, 75]);
    expect(result.value).toEqual([1, 100, 9007199254740992, 9007199254740991, -9007199254740991, -9007199254740992, 0, -0, 100, 12, 0.5]);
  });

  it('-0 is reported (FORMAT.md 1: jq prints -0, RFC 8785 writes 0), and so are -0.0 and -0e0 (fraction, exponent); 0 is not', () => {
    for (const token of ['-0', '-0.0', '-0e0', '-0E+0', '0.0', '0e0']) {
      const result = parse(`{"seed":${token}}`);
      expect(result.ok && result.nonIntegerTokens.map((t) => t.token), token).toEqual([token]);
    }
    const zero = parse('{"seed":0,"n":[-1,10,-10]}');
    expect(zero.ok && zero.nonIntegerTokens).toEqual([]);
  });

  it('integer tokens inside strings and member names are not numbers', () => {
    const result = parse('{"1.5": "2e3"}');
    expect(result.ok && result.nonIntegerTokens).toEqual([]);
  });

  it('-0 parses to -0 as JSON.parse gives it, and canonicalizes to 0', () => {
    const value = valueOf(parse('-0'));
    expect(Object.is(value, -0)).toBe(true);
    expect(Object.is(JSON.parse('-0'), -0)).toBe(true);
    expect(canonicalJson(value)).toBe('0');
  });
});

describe('parseStrictText', () => {
  it('parses decoded text as parseStrictJson parses bytes', () => {
    const text = '{"a":[1,"\u00e9",{"b":null}]}';
    expect(parseStrictText(text)).toEqual(parse(text));
  });
});

// Regression: a string still open at the end of the text once looped forever
// (charCodeAt past the end is NaN). FORMAT.md section 6: such a file "does not
// parse" (BAD_JSON). Run in a child process, killed after a few seconds, so a
// regression fails instead of hanging the suite.
describe('an unterminated string at the end of the text', () => {
  it('is an error, not an endless loop ("abc, {"a":"b, ["x\\n, {"key)', async () => {
    const runs = await Promise.all(
      ['"abc', '{"a":"b', '["x\\n', '{"key'].map((text) =>
        runIsolatedAsync(
          `import { parseStrictText } from ${JSON.stringify(repoUrl('src/json/strict-json.ts'))};\n` +
            `process.stdout.write(JSON.stringify(parseStrictText(${JSON.stringify(text)}).ok));`,
          4_000,
        ),
      ),
    );
    expect(runs.map((r) => r.timedOut), 'the parser did not return').toEqual([false, false, false, false]);
    expect(runs.map((r) => r.stdout)).toEqual(['false', 'false', 'false', 'false']);
  });

  it('(control) the isolated runner returns promptly for a terminated string', async () => {
    const run = await runIsolatedAsync(
      `import { parseStrictText } from ${JSON.stringify(repoUrl('src/json/strict-json.ts'))};\n` +
        `process.stdout.write(JSON.stringify(parseStrictText('"abc"').ok));`,
      30_000,
    );
    expect(run).toMatchObject({ timedOut: false, status: 0, stdout: 'true' });
  });

  it('a backslash at the very end is an error (this path does return)', () => {
    expect(parse('"abc\\').ok).toBe(false);
  });
});

/** True when a value holds a string (or member name) with a lone surrogate or a noncharacter. */
function holdsForbiddenText(value: unknown): boolean {
  const bad = (s: string): boolean => {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff) {
        const d = s.charCodeAt(i + 1);
        if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
        if (isNoncharacter(s.codePointAt(i)!)) return true;
        i++;
      } else if (c >= 0xdc00 && c <= 0xdfff) {
        return true;
      } else if (isNoncharacter(c)) {
        return true;
      }
    }
    return false;
  };
  if (typeof value === 'string') return bad(value);
  if (Array.isArray(value)) return value.some(holdsForbiddenText);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => bad(k) || holdsForbiddenText(v));
  return false;
}

/** Deep equality with Object.is on numbers and member order compared. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && sameJson(ra[k], rb[k]));
}

describe('agreement with JSON.parse', () => {
  it('on random valid JSON: the same value, unless a string holds what I-JSON forbids', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8, stringUnit: 'binary' }), fc.constantFrom(undefined, 1, 2, '\t'), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        const ours = parseStrictJson(encoder.encode(text));
        const theirs: unknown = JSON.parse(text);
        if (holdsForbiddenText(theirs)) {
          expect(ours.ok).toBe(false);
        } else {
          expect(ours.ok).toBe(true);
          expect(ours.ok && sameJson(ours.value, theirs)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('on random ASCII-heavy JSON with __proto__-like names', () => {
    const key = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a', '1', '10', '');
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie('node')), fc.dictionary(key, tie('node'))),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v);
        const ours = parseStrictJson(encoder.encode(text));
        expect(ours.ok).toBe(true);
        expect(ours.ok && sameJson(ours.value, JSON.parse(text))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
