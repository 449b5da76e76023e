/**
 * pairedBootstrapDelta runs its resampling loop flattened (typed arrays, the
 * generator inlined). This holds it to the algorithm as specified (and as it
 * was written before): for each resample, T draws of SeededRandom.int(T),
 * then the pooled statistic over the drawn tasks; on random inputs the two
 * give the same result, bit for bit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairedBootstrapDelta, SeededRandom, type PairedTask } from '../../src/analysis/stats.ts';

function pooled(tasks: readonly PairedTask[], indices: Iterable<number>): number | null {
  let cr = 0;
  let cg = 0;
  let br = 0;
  let bg = 0;
  for (const i of indices) {
    cr += tasks[i]!.candidate.resolved;
    cg += tasks[i]!.candidate.graded;
    br += tasks[i]!.baseline.resolved;
    bg += tasks[i]!.baseline.graded;
  }
  return cg === 0 || bg === 0 ? null : cr / cg - br / bg;
}

function reference(tasks: readonly PairedTask[], seed: string, resamples: number) {
  const random = new SeededRandom(seed);
  const stats: number[] = [];
  let skipped = 0;
  const drawn = new Array<number>(tasks.length);
  for (let b = 0; b < resamples; b++) {
    for (let t = 0; t < tasks.length; t++) drawn[t] = random.int(tasks.length);
    const stat = pooled(tasks, drawn);
    if (stat === null) skipped++;
    else stats.push(stat);
  }
  const m = stats.length;
  stats.sort((x, y) => x - y);
  const interval = tasks.length > 0 && m > 0 ? [stats[Math.ceil(m / 40) - 1]!, stats[Math.ceil((39 * m) / 40) - 1]!] : null;
  return { delta: pooled(tasks, tasks.keys()), interval, resamples, skipped, seed };
}

const side = fc.nat(12).chain((graded) => fc.record({ resolved: fc.nat(graded), graded: fc.constant(graded) }));
const task = fc.record({ candidate: side, baseline: side });

describe('pairedBootstrapDelta', () => {
  it('gives what the specified loop gives (same draws, same statistics, same interval)', () => {
    fc.assert(
      fc.property(fc.array(task, { maxLength: 40 }), fc.string(), fc.nat(300), (tasks, seed, resamples) => {
        expect(pairedBootstrapDelta(tasks, seed, resamples)).toEqual(reference(tasks, seed, resamples));
      }),
      { seed: 20261130, numRuns: 300 },
    );
  });
});
