/**
 * subjectKey remembers the keys it made (and its last answer): the key must
 * always be the JSON text of [model, agent name, agent version], however the
 * calls interleave and after the memory starts over.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { subjectKey } from '../../src/bundle/subject.ts';

fc.configureGlobal({ seed: 20261129 });

describe('subjectKey', () => {
  it('is JSON.stringify([model, name, version]) for any sequence of subjects', () => {
    const part = fc.oneof(fc.constantFrom('', 'a', 'acme/mini', '"', '\u0000', 'loop', '3.1.0'), fc.string({ maxLength: 5 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(part, part, part), { minLength: 1, maxLength: 40 }), (subjects) => {
        for (const [model, name, version] of [...subjects, ...subjects.reverse()]) {
          // Fresh string objects, as parsed evidence gives.
          const key = subjectKey(`${model}`, { name: `${name}`, version: `${version}` });
          expect(key).toBe(JSON.stringify([model, name, version]));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('stays right after more than 10,000 distinct subjects', () => {
    for (let i = 0; i < 25_000; i++) {
      const model = `m${i % 12_345}`;
      expect(subjectKey(model, { name: 'n', version: `${i % 3}` })).toBe(JSON.stringify([model, 'n', `${i % 3}`]));
    }
  });
});
