/**
 * Strict JSONL (FORMAT.md section 2): one JSON object per `\n`-separated line,
 * a final newline allowed; a blank line, a line holding a CR or a line whose
 * value is not an object is an error of that line only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countJsonlLines, parseStrictJsonl, type JsonlLine } from '../../src/json/jsonl.ts';

fc.configureGlobal({ seed: 20261129 });

const encoder = new TextEncoder();
const jsonl = (text: string): JsonlLine[] => parseStrictJsonl(encoder.encode(text));

/** Each line as `line:ok` or `line:error`, plus the values of the good lines. */
function shape(lines: JsonlLine[]): string[] {
  return lines.map((l) => `${l.line}:${l.ok ? 'ok' : 'error'}`);
}

function errorLines(lines: JsonlLine[]): number[] {
  return lines.filter((l) => !l.ok).map((l) => (l.ok ? 0 : l.error.line));
}

describe('line splitting', () => {
  it('a final newline is allowed', () => {
    const lines = jsonl('{"a":1}\n{"b":2}\n');
    expect(shape(lines)).toEqual(['1:ok', '2:ok']);
    expect(lines.map((l) => l.ok && l.value)).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('so is its absence', () => {
    expect(shape(jsonl('{"a":1}\n{"b":2}'))).toEqual(['1:ok', '2:ok']);
  });

  it('an empty file has 0 lines', () => {
    expect(jsonl('')).toEqual([]);
    expect(countJsonlLines(new Uint8Array())).toBe(0);
  });

  it('a file holding only a newline has one blank line', () => {
    expect(shape(jsonl('\n'))).toEqual(['1:error']);
  });

  it('a blank line in the middle is an error of that line only', () => {
    const lines = jsonl('{"a":1}\n\n{"b":2}\n');
    expect(shape(lines)).toEqual(['1:ok', '2:error', '3:ok']);
    expect(errorLines(lines)).toEqual([2]);
  });

  it('two final newlines make a blank last line', () => {
    expect(shape(jsonl('{"a":1}\n\n'))).toEqual(['1:ok', '2:error']);
  });

  it('a line of spaces is not blank-but-allowed: it is an error', () => {
    expect(shape(jsonl('{"a":1}\n   \n'))).toEqual(['1:ok', '2:error']);
  });
});

describe('bad lines', () => {
  it('a CR anywhere in a line (CRLF endings) is an error of that line', () => {
    const lines = jsonl('{"a":1}\r\n{"b":2}\n{"c":\r3}\n');
    expect(shape(lines)).toEqual(['1:error', '2:ok', '3:error']);
    expect(errorLines(lines)).toEqual([1, 3]);
  });

  it('an escaped \\r inside a string is fine', () => {
    expect(shape(jsonl('{"a":"x\\r\\ny"}\n'))).toEqual(['1:ok']);
  });

  for (const text of ['[1]', '1', '"s"', 'null', 'true', '[]']) {
    it(`a line holding ${text} is not an object`, () => {
      expect(shape(jsonl(`{"a":1}\n${text}\n{"b":2}\n`))).toEqual(['1:ok', '2:error', '3:ok']);
    });
  }

  it('a BOM at the start of the file is an error of line 1 only', () => {
    const lines = jsonl('\ufeff{"a":1}\n{"b":2}\n');
    expect(shape(lines)).toEqual(['1:error', '2:ok']);
  });

  it('U+FEFF at the start of a later line is not a BOM and not whitespace', () => {
    expect(shape(jsonl('{"a":1}\n\ufeff{"b":2}\n'))).toEqual(['1:ok', '2:error']);
  });

  it('invalid UTF-8 on line 3 keeps lines 1, 2 and 4 parsed', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"n":1}\n{"n":2}\n{"n":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n{"n":4}\n'),
    ]);
    const lines = parseStrictJsonl(bytes);
    expect(shape(lines)).toEqual(['1:ok', '2:ok', '3:error', '4:ok']);
    expect(lines.filter((l) => l.ok).map((l) => l.ok && l.value)).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
    expect(errorLines(lines)).toEqual([3]);
  });

  it('a parse error reports the JSONL line, not line 1 of the line', () => {
    const lines = jsonl('{"a":1}\n{"a":1}\n{"a":1,"a":2}\n');
    expect(errorLines(lines)).toEqual([3]);
    const bad = lines[2]!;
    expect(!bad.ok && bad.error.line).toBe(3);
  });

  it('nesting: 64 deep on a line is accepted, 65 is an error', () => {
    const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    expect(shape(jsonl(`${nested(64)}\n${nested(65)}\n`))).toEqual(['1:ok', '2:error']);
  });

  it('every line is parsed: errors on many lines at once', () => {
    const lines = jsonl('x\n{"a":1}\n[]\n\n{"b":\r2}\n{"c":3}');
    expect(shape(lines)).toEqual(['1:error', '2:ok', '3:error', '4:error', '5:error', '6:ok']);
  });
});

describe('countJsonlLines', () => {
  it('counts as parseStrictJsonl splits', () => {
    for (const text of ['', '\n', '{}', '{}\n', '{}\n{}', '{}\n\n', '\n\n\n', 'a\r\nb']) {
      expect(countJsonlLines(encoder.encode(text)), JSON.stringify(text)).toBe(jsonl(text).length);
    }
  });

  it('round-trips random objects, with or without a final newline', () => {
    const objects = fc.array(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), { maxLength: 8 });
    fc.assert(
      fc.property(objects, fc.boolean(), (values, finalNewline) => {
        const body = values.map((v) => JSON.stringify(v)).join('\n');
        const text = finalNewline && values.length > 0 ? `${body}\n` : body;
        const lines = jsonl(text);
        expect(lines.length).toBe(values.length);
        expect(countJsonlLines(encoder.encode(text))).toBe(values.length);
        lines.forEach((l, i) => {
          expect(l.ok).toBe(true);
          expect(l.line).toBe(i + 1);
          if (l.ok) expect(JSON.stringify(l.value)).toBe(JSON.stringify(JSON.parse(JSON.stringify(values[i]))));
        });
      }),
      { numRuns: 200 },
    );
  });
});
