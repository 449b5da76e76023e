/**
 * Fuzzing the per-task flags and higher_is_better (issue 26): random
 * `--metric` / `--filter` / `--pass-threshold` texts (entries, task names,
 * separators, hostile strings) and random higher_is_better values either
 * map to a bundle whose grader id the re-run flags reproduce, or throw an
 * ImportError; never another error. Fixed seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../../src/evidence/seal.ts';
import { ImportError } from '../../../src/import/errors.ts';
import { lmEvalImporter } from '../../../src/import/lmeval/importer.ts';
import { line, mapRun, results, run, STAMP } from './helpers.ts';

const R = `results_${STAMP}.json`;
const S = (task: string) => `samples_${task}_${STAMP}.jsonl`;

const piece = fc.constantFrom('a', 'b', 'c', 'acc', 'mae', 'none', 'strict', '=', ',', '0.5', '10', '-1', '', ' ', '<', ';', '\u0000', 'é', 'x'.repeat(70), '1e3', '..', '/');
const noise = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
const metricText = fc.oneof(noise, fc.constantFrom('acc,b=mae', 'a=acc,b=mae', 'b=mae', 'mae', 'acc', 'b=acc', 'a=mae'));
const filterText = fc.oneof(noise, fc.constantFrom('none', 'a=none', 'none,b=none', 'b=strict'));
const thresholdText = fc.oneof(noise, fc.constantFrom('b=5', '5', 'a=0.5,b=5', '0.5', 'b=-1', '0', 'a=1'));
const hib = fc.oneof(
  fc.constantFrom<unknown>(undefined, null, true, 'x', 0, [], {}),
  fc.record({ a: fc.constantFrom<unknown>(undefined, null, { acc: true }, { acc: false }, { acc: null }, { acc: 'no' }, []), b: fc.constantFrom<unknown>(undefined, { mae: false }, { mae: true }, { mae: 1 }) }),
);

function input(higherIsBetter: unknown) {
  const res = results({ a: {}, b: {} });
  (res.results as Record<string, unknown>).b = { 'mae,none': 4 };
  if (higherIsBetter !== undefined) res.higher_is_better = higherIsBetter;
  return run({
    [R]: res,
    [S('a')]: [line(0), line(1, { acc: 0 })],
    [S('b')]: [line(0, { metrics: ['mae'], mae: 2, acc: undefined }), line(1, { metrics: ['mae'], mae: 6, acc: undefined })],
  });
}

describe('lm-eval per-task flags and higher_is_better, fuzzed', () => {
  it('map to a bundle the re-run flags reproduce, or refuse with an ImportError', async () => {
    let mapped = 0;
    await fc.assert(
      fc.asyncProperty(fc.option(metricText), fc.option(filterText), fc.option(thresholdText), hib, async (metric, filter, threshold, h) => {
        const flags: Record<string, string> = {};
        if (metric !== null) flags.metric = metric;
        if (filter !== null) flags.filter = filter;
        if (threshold !== null) flags['pass-threshold'] = threshold;
        try {
          const b = await mapRun(input(h), flags, { maxStringBytes: 64 });
          mapped++;
          const id = (JSON.parse(Buffer.from(b.files.get('plan.json')!).toString('utf8')) as { grader: { id: string } }).grader.id;
          const again = Object.fromEntries(lmEvalImporter.rerunFlags!({ grader: { id } }).map(([f, v]) => [f!.slice(2), v!]));
          const b2 = await mapRun(input(h), again, { maxStringBytes: 64 });
          expect(sealManifest(b2.files, b2.planId).equals(sealManifest(b.files, b.planId))).toBe(true);
          expect(lmEvalImporter.passRule!({ grader: { id } })).toMatch(/^Each doc/);
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
        }
      }),
      { seed: 26_4, numRuns: 300 },
    );
    // The generator reaches the mapping, not only the refusals.
    expect(mapped).toBeGreaterThan(0);
  });
});
