import { describe, expect, it } from 'vitest';
import { compareCodeUnits, compareUtf8 } from '../../src/json/compare.ts';
import { formatJsonPath } from '../../src/json/json-path.ts';

describe('the two string orders (src/json/compare.ts)', () => {
  it('agree on ASCII and BMP text below U+D800', () => {
    for (const [a, b] of [['a', 'b'], ['b', 'a'], ['ab', 'a'], ['é', 'z'], ['x', 'x']] as const) {
      expect(compareUtf8(a, b)).toBe(compareCodeUnits(a, b));
    }
    expect([compareCodeUnits('a', 'b'), compareCodeUnits('b', 'a'), compareCodeUnits('a', 'a')]).toEqual([-1, 1, 0]);
  });
  it('differ past U+FFFF against U+E000..U+FFFF: UTF-8 bytes put U+10000 after U+E000, UTF-16 code units before', () => {
    expect(compareUtf8('\u{10000}', '\uE000')).toBe(1);
    expect(compareCodeUnits('\u{10000}', '\uE000')).toBe(-1);
    expect(['\uE000', '\u{10000}', 'a'].sort(compareUtf8)).toEqual(['a', '\uE000', '\u{10000}']);
  });
  it('compareUtf8 orders a lone surrogate as U+FFFD, as the UTF-8 encoder writes it', () => {
    expect(compareUtf8('\uD800', '\uFFFD')).toBe(0);
  });
});

describe('formatJsonPath (src/json/json-path.ts)', () => {
  it('names a place as the findings and config errors do', () => {
    expect(formatJsonPath([])).toBe('(root)');
    expect(formatJsonPath(['budget', 'per_attempt_micros'])).toBe('budget.per_attempt_micros');
    expect(formatJsonPath(['files', 3, 'sha256'])).toBe('files[3].sha256');
    expect(formatJsonPath(['a b'])).toBe('["a b"]');
  });
});
