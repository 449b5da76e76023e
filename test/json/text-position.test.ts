/**
 * Where an offset of decoded text is (src/json/text-position.ts): the
 * one-pass `positions` (the fix of a quadratic lookup, docs/benchmarks.md)
 * agrees with counting line feeds before each offset, and `pathAt` names the
 * members and indices down to a string, past escaped quotes in earlier
 * strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathAt, position, positions } from '../../src/json/text-position.ts';

fc.configureGlobal({ seed: 20261129 });

/** Line and column by counting: the reference the one-pass walks must match. */
function counted(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

describe('positions', () => {
  it('gives, for ascending offsets, the line and column counted from the start', () => {
    const texts = fc.array(fc.constantFrom('a', '\n', '"', '\u00e9', ' '), { maxLength: 60 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(
        texts.chain((text) => fc.tuple(fc.constant(text), fc.array(fc.nat({ max: text.length }), { maxLength: 12 }).map((o) => o.sort((a, b) => a - b)))),
        ([text, offsets]) => {
          const expected = offsets.map((offset) => counted(text, offset));
          expect(positions(text, offsets)).toEqual(expected);
          expect(offsets.map((offset) => position(text, offset))).toEqual(expected);
        },
      ),
    );
  });
});

describe('pathAt', () => {
  const at = (text: string, needle: string) => pathAt(text, text.indexOf(needle));

  it('names the members and indices down to a string value, or to the object of a member name', () => {
    const text = '{"a": [1, {"b": "xx"}], "c": "yy"}';
    expect(at(text, '"xx"')).toEqual({ path: ['a', 1, 'b'], memberName: false });
    expect(at(text, '"b"')).toEqual({ path: ['a', 1], memberName: true });
    expect(at(text, '"yy"')).toEqual({ path: ['c'], memberName: false });
    expect(at(text, '"a"')).toEqual({ path: [], memberName: true });
    expect(pathAt('"top"', 0)).toEqual({ path: [], memberName: false });
  });

  it('reads member names with escapes, and skips brackets, commas and quotes inside strings', () => {
    const text = '{"k\\"[,": ["s,]", "t{"], "\\u00e9": {"x": "zz"}}';
    expect(at(text, '"t{"')).toEqual({ path: ['k"[,', 1], memberName: false });
    expect(at(text, '"zz"')).toEqual({ path: ['é', 'x'], memberName: false });
  });
});
