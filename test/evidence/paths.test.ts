/** Path rules of FORMAT.md section 2.1 and the manifest's byte order. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collisionKey, quotePath, unsafePathReason } from '../../src/evidence/paths.ts';
import { compareUtf8 } from '../../src/json/compare.ts';

fc.configureGlobal({ seed: 20261129 });

describe('unsafePathReason', () => {
  const safe = [
    'plan.json',
    'artifacts/patches/a-000001.diff',
    'grades/1.json',
    '.hidden',
    'a/.b',
    'a/..b',
    'a/b..',
    '...',
    'a b/c d',
    'é/\u{1F600}.txt',
    'x'.repeat(255),
    `a/${'é'.repeat(126)}x`, // 2 + 252 + 1 = 255 bytes
  ];
  for (const path of safe) {
    it(`accepts ${JSON.stringify(path).slice(0, 60)}`, () => {
      expect(unsafePathReason(path)).toBeNull();
    });
  }

  const unsafe: [string, string][] = [
    ['empty', ''],
    ['absolute', '/abs'],
    ['absolute root', '/'],
    ['empty segment', 'a//b'],
    ['trailing slash', 'a/'],
    ['dot segment first', './a'],
    ['dot segment inside', 'a/./b'],
    ['dot alone', '.'],
    ['dot-dot inside', 'a/../b'],
    ['dot-dot first', '../a'],
    ['dot-dot last', 'a/..'],
    ['dot-dot alone', '..'],
    ['backslash', 'a\\b'],
    ['backslash dot-dot', '..\\a'],
    ['NUL', 'a\u0000b'],
    ['256 ASCII bytes', 'x'.repeat(256)],
    ['256 bytes of two-byte characters', 'é'.repeat(128)],
    ['256 bytes with an astral character', `${'x'.repeat(252)}\u{1F600}`],
  ];
  for (const [name, path] of unsafe) {
    it(`rejects ${name}`, () => {
      expect(unsafePathReason(path)).not.toBeNull();
    });
  }

  it('the byte limit counts UTF-8 bytes, not characters', () => {
    expect(unsafePathReason('é'.repeat(127))).toBeNull(); // 254 bytes
    expect(unsafePathReason('é'.repeat(128))).not.toBeNull(); // 256 bytes, 128 characters
  });
});

describe('compareUtf8 (the manifest sort order)', () => {
  it('orders a BMP private-use character before an astral one (UTF-16 order says the opposite)', () => {
    const privateUse = '\uE000';
    const astral = '\u{1F600}';
    expect(compareUtf8(privateUse, astral)).toBeLessThan(0);
    expect(compareUtf8(astral, privateUse)).toBeGreaterThan(0);
    expect(astral < privateUse).toBe(true); // JavaScript's default order
    expect(compareUtf8('\uFFFD', '\u{10000}')).toBeLessThan(0);
    expect(compareUtf8('\uFB33', '\u{1F602}')).toBeLessThan(0);
  });

  it('orders by bytes: a prefix first, "-" < "." < "/" < digits < upper < "_" < lower', () => {
    const sorted = ['a/b', 'a', 'a.b', 'a-b', 'a0', 'aB', 'a_', 'ab'].sort(compareUtf8);
    expect(sorted).toEqual(['a', 'a-b', 'a.b', 'a/b', 'a0', 'aB', 'a_', 'ab']);
    expect(compareUtf8('same', 'same')).toBe(0);
  });

  it('agrees with code point order on well-formed strings', () => {
    const byCodePoints = (a: string, b: string): number => {
      const x = Array.from(a, (c) => c.codePointAt(0)!);
      const y = Array.from(b, (c) => c.codePointAt(0)!);
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
      return x.length - y.length;
    };
    const text = fc.string({ unit: 'grapheme', maxLength: 6 });
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(byCodePoints(a, b)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('quotePath', () => {
  it('shows control characters escaped', () => {
    expect(quotePath('a\nb\u0000')).toBe('"a\\nb\\u0000"');
  });
});

describe('collisionKey (names a macOS or Windows checkout cannot keep apart)', () => {
  it.each([
    ['NOTES.md', 'notes.md'],
    ['caf\u00e9', 'cafe\u0301'],
    ['CAF\u00c9', 'cafe\u0301'],
    ['Stra\u00dfe', 'STRASSE'],
    ['\u212a', 'k'],
    ['dir/\u00c5', 'DIR/A\u030a'],
  ])('%s and %s collide', (a, b) => {
    expect(collisionKey(a)).toBe(collisionKey(b));
  });

  it.each([
    ['\uff46ile', 'file'],
    ['fi\u200ble', 'file'],
    ['a/b', 'a\u2215b'],
    ['1', '\u2460'],
  ])('%s and %s do not', (a, b) => {
    expect(collisionKey(a)).not.toBe(collisionKey(b));
  });

  it('never merges two different ASCII names other than by case, and keeps "/" where it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aAbB/.-_'.split('')) }), fc.string({ unit: 'grapheme' }), (ascii, any) => {
        expect(collisionKey(ascii)).toBe(ascii.toLowerCase());
        expect(collisionKey(any).split('/').length).toBe(any.split('/').length);
      }),
    );
  });
});
