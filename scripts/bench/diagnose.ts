/**
 * Reproduces the performance problems in src/ that the benchmark found, to
 * show they stay fixed (docs/benchmarks.md, "Problems the benchmark found in
 * src/, and their fixes"). Not part of `npm run bench`:
 *
 *   npx tsx scripts/bench/diagnose.ts [--attempts 1e5] [--runs 5] [--max-tokens 30000]
 *
 * 1. src/json/strict-json.ts parseStrictText: number positions used to be
 *    found by scanning from offset 0 per token (quadratic); now one pass.
 * 2. src/schema/timestamp.ts toInstant: used to run a capturing regex and a
 *    Date per call; now integer arithmetic.
 * 3. src/evidence/hash-file.ts hashHandle(keep = true): used to copy kept
 *    bytes twice; now reads into one fstat-sized buffer.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashHandle } from '../../src/evidence/hash-file.ts';
import { parseStrictJson } from '../../src/json/strict-json.ts';
import { compareTimestamps, isValidTimestamp } from '../../src/schema/timestamp.ts';
import { generateBundle } from './generate.ts';
import { interleave, timed } from './measure.ts';
import { ms } from './report.ts';

const { values } = parseArgs({
  options: { attempts: { type: 'string' }, runs: { type: 'string' }, 'max-tokens': { type: 'string' } },
});
const attempts = Number(values.attempts ?? '1e5');
const runs = Number(values.runs ?? '5');
const maxTokens = Number(values['max-tokens'] ?? '30000');
if (![attempts, runs, maxTokens].every((n) => Number.isSafeInteger(n) && n > 0)) {
  console.error('usage: diagnose.ts [--attempts N] [--runs N] [--max-tokens N]');
  process.exit(2);
}

// 1. Quadratic positions of non-integer tokens.
console.log('1. parseStrictJson on a pretty-printed {"results":[...]} (one number per line), single run each');
console.log('   tokens      MB  fractions ms  integers ms  JSON.parse ms');
for (const n of [1000, 3000, 10000, 30000, 100000].filter((count) => count <= maxTokens)) {
  const fractions = Buffer.from(JSON.stringify({ results: Array.from({ length: n }, (_, i) => i + 0.5) }, null, 2));
  const integers = Buffer.from(JSON.stringify({ results: Array.from({ length: n }, (_, i) => i) }, null, 2));
  const slow = await timed(() => parseStrictJson(fractions));
  const fast = await timed(() => parseStrictJson(integers));
  const native = await timed(() => JSON.parse(fractions.toString('utf8')) as unknown);
  if (!slow.value.ok || !fast.value.ok) throw new Error('the diagnostic documents must parse');
  console.log(
    `   ${String(n).padStart(6)}  ${(fractions.length / 1e6).toFixed(2).padStart(6)}  ${ms(slow.ms).padStart(12)}  ${ms(fast.ms).padStart(11)}  ${ms(native.ms).padStart(13)}`,
  );
}

// 2. Timestamp parsing per call.
const stamps = Array.from({ length: 100_000 }, (_, i) => new Date(Date.UTC(2026, 8, 15) + i * 7000).toISOString().replace('.000Z', 'Z'));
const times = await interleave(runs, {
  isValidTimestamp: () => stamps.forEach((s) => isValidTimestamp(s)),
  compareTimestamps: () => stamps.forEach((s) => compareTimestamps(s, '2026-09-14T12:00:00Z')),
});
const valid = times.isValidTimestamp.median / stamps.length;
const compare = times.compareTimestamps.median / stamps.length;
console.log('\n2. timestamps, median of', runs, 'runs over 100,000 timestamps');
console.log(`   isValidTimestamp ${(valid * 1000).toFixed(2)} us/call, compareTimestamps ${(compare * 1000).toFixed(2)} us/call`);
console.log(
  `   per verified attempt: 2 isValidTimestamp (schema) + 3 compareTimestamps (freeze, end >= start, grant) = ` +
    `${((2 * valid + 3 * compare) * 1000).toFixed(2)} us; ${ms((2 * valid + 3 * compare) * attempts)} ms per ${attempts} attempts`,
);

// 3. hashHandle keeping the bytes.
const dir = await mkdtemp(join(tmpdir(), 'ledgerboard-diagnose-'));
try {
  const bundle = await generateBundle(join(dir, 'bundle'), attempts, 20261129);
  const file = join(bundle.dir, 'attempts.jsonl');
  const withHandle = async <T>(work: (h: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> => {
    const handle = await open(file, 'r');
    try {
      return await work(handle);
    } finally {
      await handle.close();
    }
  };
  const hashes = await interleave(runs, {
    keepTrue: () => withHandle((h) => hashHandle(h, true)),
    keepFalse: () => withHandle((h) => hashHandle(h, false)),
    // The alternative: one buffer of the fstat size, read into in place, hashed by subarray.
    oneBuffer: () =>
      withHandle(async (h) => {
        const size = (await h.stat()).size;
        const buffer = Buffer.allocUnsafe(size);
        const hash = createHash('sha256');
        let offset = 0;
        while (offset < size) {
          const { bytesRead } = await h.read(buffer, offset, Math.min(1 << 20, size - offset), null);
          if (bytesRead === 0) break;
          hash.update(buffer.subarray(offset, offset + bytesRead));
          offset += bytesRead;
        }
        return hash.digest('hex');
      }),
    freshMemory: () => Buffer.allocUnsafe(bundle.attemptsBytes).fill(1),
  });
  console.log(`\n3. hashing attempts.jsonl (${(bundle.attemptsBytes / 1e6).toFixed(1)} MB), median of ${runs} runs`);
  console.log(`   hashHandle(keep=true)  ${ms(hashes.keepTrue.median)} ms`);
  console.log(`   hashHandle(keep=false) ${ms(hashes.keepFalse.median)} ms`);
  console.log(`   one fstat-sized buffer ${ms(hashes.oneBuffer.median)} ms`);
  console.log(`   allocUnsafe + fill of the same size (first touch of fresh memory) ${ms(hashes.freshMemory.median)} ms`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
