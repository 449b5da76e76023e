/**
 * The fast paths of the strict parser must be invisible: on every input they
 * give exactly what the careful parser gives (same value with members in the
 * same order, same -0, same error with message and position, same
 * non-integer tokens), and the native UTF-8 check decodes exactly as the
 * fatal TextDecoder does. docs/benchmarks.md ("Scale") says why they exist.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { forEachStrictJsonlLine, parseStrictJsonl, type JsonlLine } from '../../src/json/jsonl.ts';
import {
  decodeUtf8,
  parseStrictText,
  parseStrictTextCarefully,
  parseStrictTextFast,
  parseStrictTextValue,
  type StrictParseResult,
} from '../../src/json/strict-json.ts';

fc.configureGlobal({ seed: 20261129 });

/** A faithful picture of a parse result: member order, -0 and the error fields all count. */
function picture(value: unknown): unknown {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return ['array', ...value.map(picture)];
  return ['object', ...Object.keys(value).map((k) => [k, picture((value as Record<string, unknown>)[k])])];
}

function same(fast: StrictParseResult, careful: StrictParseResult, text: string): void {
  expect(picture(fast), text).toEqual(picture(careful));
}

/** Texts near what the fast path must decline: duplicates, escapes, wide characters, deep nesting, odd numbers. */
const tricky = fc.constantFrom(
  '{"a":1,"a":2}',
  '{"a":1,"b":{"a":2,"a":3}}',
  '{"__proto__":1}',
  '{"__proto__":1,"__proto__":2}',
  '{"a":"\\u0041"}',
  '{"a\\u0062":1,"ab":2}',
  '{"a":"\\ud800"}',
  '{"a":"\uFDD0"}',
  '{"a":"\u00e9\u4e2d"}',
  '{"a":"\u2028"}',
  '{"a":1e400}',
  '{"a":-1e400}',
  '{"a":-0}',
  '{"a":0.5e-3,"b":1E+2,"c":12345678901234567890,"d":9007199254740993,"e":-9007199254740991}',
  '{"a":9007199254740991,"b":9007199254740992}',
  '{"a":1.0}',
  '{"1":1,"0":0,"b":2}',
  '{"a":[1,2,{"b":[]}],"c":{}}',
  ' {"a" : 1 , "b" :\t[ true , false , null ] }\n',
  '{"a":1,}',
  '{"a":01}',
  '{"a":"x\ty"}',
  '{"a":"unterminated}',
  '{"a":[1,2}',
  '[]',
  '"text"',
  '12',
  '',
  '  ',
  '{"a":1} {"b":2}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  `${'['.repeat(63)}1${']'.repeat(63)}`,
  `${'['.repeat(64)}1${']'.repeat(64)}`,
  `${'['.repeat(31)}{"a":1}${']'.repeat(31)}`,
  `${'['.repeat(33)}{"a":1}${']'.repeat(33)}`,
);

/** Random JSON texts, compact and pretty, sometimes with a member name repeated. */
const texts = fc.oneof(
  fc.json({ maxDepth: 6 }),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v, null, 2)),
  fc.jsonValue({ maxDepth: 4, stringUnit: 'grapheme' }).map((v) => JSON.stringify(v)),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary' }).map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 5 }), fc.nat())
    .map(([object, pick]) => {
      const text = JSON.stringify(object);
      const keys = Object.keys(object);
      const key = JSON.stringify(keys[pick % keys.length]);
      // The same name once more, at the end: a duplicate JSON.parse would silently merge.
      return `${text.slice(0, -1)},${key}:0}`;
    }),
  tricky,
);

describe('parseStrictText: the JSON.parse fast path', () => {
  it('gives what the careful parser gives, on random and tricky texts', () => {
    fc.assert(
      fc.property(texts, (text) => {
        same(parseStrictText(text), parseStrictTextCarefully(text), text);
      }),
      { numRuns: 3000 },
    );
  });

  it('and with other depth limits', () => {
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 70 }), (text, maxDepth) => {
        same(parseStrictText(text, { maxDepth }), parseStrictTextCarefully(text, { maxDepth }), `${maxDepth}: ${text}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('and with string limits (issue 10, item 4): the same value, or the same string-over-limit error with its path', () => {
    const long = fc.oneof(
      texts,
      fc.tuple(fc.string({ minLength: 0, maxLength: 40, unit: 'grapheme' }), fc.constantFrom('k', 'name', '\u00e9')).map(([value, key]) => JSON.stringify({ a: [1, { [key]: value }], [value]: 2 })),
    );
    fc.assert(
      fc.property(long, fc.integer({ min: 0, max: 60 }), (text, maxStringBytes) => {
        same(parseStrictText(text, { maxStringBytes }), parseStrictTextCarefully(text, { maxStringBytes }), `${maxStringBytes}: ${text}`);
        const value = parseStrictTextValue(text, { maxStringBytes });
        const careful = parseStrictTextCarefully(text, { maxStringBytes });
        expect(picture(value.ok ? value.value : value.error)).toEqual(picture(careful.ok ? careful.value : careful.error));
      }),
      { numRuns: 1500 },
    );
  });

  it('parseStrictTextValue gives the same value or error (number tokens aside)', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const fast = parseStrictTextValue(text);
        const careful = parseStrictTextCarefully(text);
        expect(picture(fast.ok ? fast.value : fast.error), text).toEqual(picture(careful.ok ? careful.value : careful.error));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes evidence-like text, and leaves to the careful parser what JSON.parse would read differently', () => {
    const attempt =
      '{"attempt_id":"a-000017","task_id":"t-1","model":"acme/mini","agent":{"name":"loop","version":"3.1.0"},"index":2,"wall_seconds":402.1,"tokens":{"input":48211,"output":5120},"cost":{"state":"complete","micros":812345},"patch":null,"note":"café"}';
    expect(parseStrictTextFast(attempt)).toBeDefined();
    expect(parseStrictTextFast(JSON.stringify(JSON.parse(attempt), null, 2))).toBeDefined();
    expect(parseStrictTextFast('[1, 2.5, -0, true, null, "x"]')).toBeDefined();
    for (const declined of [
      '{"a":1,"a":2}', // duplicate
      '{"a":{"b":1,"b":1}}',
      '{"a":"\\u0041"}', // escape
      '{"a":"\uFDD0"}', // at or above U+D800
      '{"a":1e400}', // out of range
      '{"a":1,}', // syntax: the careful parser words the error
      `${'['.repeat(33)}1${']'.repeat(33)}`, // nesting left to the careful parser
    ]) {
      expect(parseStrictTextFast(declined), declined).toBeUndefined();
    }
    expect(parseStrictTextFast('[[1]]', { maxDepth: 2 })).toBeUndefined();
  });

  it('reports the non-integer tokens of a pretty-printed document with their positions', () => {
    const text = '{\n  "a": 1.5,\n  "b": [2, 3e2, 12345678901234567890, -0, 0, -01],\n  "c": "1.5"\n}'.replace(', -01', '');
    const fast = parseStrictText(text);
    expect(parseStrictTextFast(text)).toBeDefined();
    expect(fast.ok && fast.nonIntegerTokens).toEqual([
      { token: '1.5', line: 2, column: 8 },
      { token: '3e2', line: 3, column: 12 },
      { token: '12345678901234567890', line: 3, column: 17 },
      { token: '-0', line: 3, column: 39 },
    ]);
    same(fast, parseStrictTextCarefully(text), text);
  });
});

/** parseStrictJsonl as it was before the fast paths: decode the whole file fatally, split, parse each line carefully. */
function referenceJsonl(bytes: Uint8Array): JsonlLine[] {
  let text: string;
  try {
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw new Error('BOM');
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return parseStrictJsonl(bytes); // The undecodable case is the unchanged slow path.
  }
  const lines = text.length === 0 ? [] : text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line, i): JsonlLine => {
    const n = i + 1;
    if (line.length === 0) return { line: n, ok: false, error: { message: 'blank line', line: n, column: 1 } };
    const cr = line.indexOf('\r');
    if (cr !== -1) return { line: n, ok: false, error: { message: 'line holds a carriage return (CR)', line: n, column: cr + 1 } };
    const parsed = parseStrictTextCarefully(line);
    if (!parsed.ok) return { line: n, ok: false, error: { ...parsed.error, line: n } };
    if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      return { line: n, ok: false, error: { message: 'line is not a JSON object', line: n, column: 1 } };
    }
    return { line: n, ok: true, value: parsed.value };
  });
}

describe('parseStrictJsonl: per-line decoding and the fast path', () => {
  const line = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }).map((o) => JSON.stringify(o)),
    fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 4 }), fc.string({ unit: 'grapheme', maxLength: 6 }), { maxKeys: 4 }).map((o) => JSON.stringify(o)),
    tricky,
    fc.constantFrom('', '{"a":1}\r', '\uFEFF{"a":1}', '{"a":"caf\u00e9"}'),
  );

  it('gives what the whole-file careful reading gives', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.boolean(), (lines, finalNewline) => {
        const bytes = encoder.encode(lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : ''));
        const seen: JsonlLine[] = [];
        const count = forEachStrictJsonlLine(bytes, (entry) => seen.push(entry));
        expect(count).toBe(seen.length);
        expect(picture(seen)).toEqual(picture(referenceJsonl(bytes)));
        expect(picture(parseStrictJsonl(bytes))).toEqual(picture(seen));
      }),
      { numRuns: 1500 },
    );
  });

  it('an invalid UTF-8 line is the error of that line only, as before', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('{"a":1}\n'), 0xc3, 0x28, 0x0a, ...new TextEncoder().encode('{"b":2}\n')]);
    const lines = parseStrictJsonl(bytes);
    expect(lines.map((l) => l.ok)).toEqual([true, false, true]);
  });
});

describe('decodeUtf8: native validation', () => {
  const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const bytes = fc.oneof(
    fc.uint8Array({ maxLength: 24 }),
    fc.string({ unit: 'binary', maxLength: 12 }).map((s) => new TextEncoder().encode(s)),
    fc.tuple(fc.string({ unit: 'binary', maxLength: 8 }), fc.uint8Array({ maxLength: 3 })).map(([s, tail]) => new Uint8Array([...new TextEncoder().encode(s), ...tail])),
  );

  it('decodes valid UTF-8 as the fatal decoder does, and rejects what it rejects', () => {
    fc.assert(
      fc.property(bytes, (input) => {
        const result = decodeUtf8(input);
        let expected: string | null;
        try {
          expected = fatal.decode(input);
        } catch {
          expected = null;
        }
        const bom = input.length >= 3 && input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf;
        if (bom || expected === null) expect(result.ok).toBe(false);
        else expect(result).toEqual({ ok: true, text: expected });
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps a byte-order mark that is not at the start, and reads a subarray view', () => {
    const text = 'a\uFEFFb';
    const wrapped = new Uint8Array([0x20, ...new TextEncoder().encode(text), 0x20]);
    expect(decodeUtf8(wrapped.subarray(1, wrapped.length - 1))).toEqual({ ok: true, text });
  });
});
