/**
 * verifyPaths reads bundle after bundle into the same memory (a
 * ContentArena): nothing it returns may depend on that. Verifying a
 * directory of bundles must give exactly what verifying each bundle on its
 * own, in fresh memory, gives (NOTES.md bytes included, which are handed on).
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { verifyDirectory, verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { resultValue } from '../helpers/evidence-value.ts';

describe('verifyPaths with its arena', () => {
  it('gives, for the demo bundles, what each bundle gives when read on its own', async () => {
    const all = await verifyPaths(['content/bundles']);
    expect(all.length).toBeGreaterThan(1);
    for (const result of all) {
      const alone = await verifyDirectory(result.path);
      expect(isDeepStrictEqual(resultValue({ path: result.path, ...alone }), resultValue(result)), result.path).toBe(true);
      expect(result.verification.evidence.notes?.length ?? 0).toBeGreaterThanOrEqual(0);
    }
    // Read again (the arena is now full of the last bundle's bytes): still the same.
    const again = await verifyPaths(['content/bundles']);
    expect(isDeepStrictEqual(again.map(resultValue), all.map(resultValue))).toBe(true);
  });
});
