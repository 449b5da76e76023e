/**
 * The strict parser stays linear in the size of hostile input: a
 * pretty-printed document with one fractional number per line once took
 * quadratic time (53 s for 1.3 MB). Asserted as a ratio against the same
 * document with integers, so a slow machine does not make it flaky.
 */
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../src/json/strict-json.ts';

function document(count: number, fractional: boolean): Uint8Array {
  const items = Array.from({ length: count }, (_, i) => (fractional ? `${i}.5` : `${i}`));
  return Buffer.from(`{\n  "results": [\n    ${items.join(',\n    ')}\n  ]\n}\n`);
}

function timeParse(bytes: Uint8Array): number {
  const start = performance.now();
  const result = parseStrictJson(bytes);
  const elapsed = performance.now() - start;
  expect(result.ok).toBe(true);
  return elapsed;
}

describe('strict parser scaling', () => {
  it('parses 100,000 fractional numbers on separate lines about as fast as integers, and reports each', () => {
    const fractional = document(100_000, true);
    const integers = document(100_000, false);
    timeParse(integers); // warm up
    const tInt = Math.min(timeParse(integers), timeParse(integers));
    const tFrac = Math.min(timeParse(fractional), timeParse(fractional));
    // Quadratic behaviour was > 400x here; linear work plus position bookkeeping stays well under 10x.
    expect(tFrac).toBeLessThan(Math.max(10 * tInt, 200));
    const parsed = parseStrictJson(fractional);
    expect(parsed.ok && parsed.nonIntegerTokens.length).toBe(100_000);
    expect(parsed.ok && parsed.nonIntegerTokens[99_999]).toEqual({ token: '99999.5', line: 100_002, column: 5 });
  });
});
