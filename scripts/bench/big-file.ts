/**
 * A big artifact for the hashing benchmark: deterministic pseudo-random bytes,
 * written fast. One seeded 1 MiB block is reused for every MiB, rotated by a
 * per-MiB offset and XORed with a per-MiB key derived from the counter, so no
 * two MiB are equal and the file does not compress, yet generation costs one
 * pass of 32-bit XORs. The digest is computed while writing, as a third
 * opinion for the agreement check.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { Prng } from './prng.ts';

const BLOCK_BYTES = 1 << 20;
const BLOCK_WORDS = BLOCK_BYTES >>> 2;

/** Mixes a counter into a well-spread 32-bit word (murmur3 finaliser). */
function mix(counter: number): number {
  let z = Math.imul(counter ^ 0x5bd1e995, 0x9e3779b1);
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Writes `bytes` bytes (a multiple of 1 MiB is fastest) to `path`; returns the sha256:hex digest of what was written. */
export async function writeBigFile(path: string, bytes: number, seed: number, onProgress?: (written: number) => void): Promise<string> {
  const base = new Uint32Array(BLOCK_WORDS);
  const prng = new Prng(seed);
  for (let i = 0; i < BLOCK_WORDS; i++) base[i] = prng.u32();
  const out = new Uint32Array(BLOCK_WORDS);
  const outBytes = new Uint8Array(out.buffer);
  const hash = createHash('sha256');
  const handle = await open(path, 'w');
  try {
    let written = 0;
    for (let block = 0; written < bytes; block++) {
      const key = mix(block);
      const shift = mix(block + 0x10000) & (BLOCK_WORDS - 1);
      for (let i = 0; i < BLOCK_WORDS; i++) out[i] = base[(i + shift) & (BLOCK_WORDS - 1)]! ^ key ^ Math.imul(i, key | 1);
      const length = Math.min(BLOCK_BYTES, bytes - written);
      const chunk = outBytes.subarray(0, length);
      hash.update(chunk);
      let offset = 0;
      while (offset < length) offset += (await handle.write(chunk, offset, length - offset)).bytesWritten;
      written += length;
      if (block % 256 === 255) onProgress?.(written);
    }
  } finally {
    await handle.close();
  }
  return `sha256:${hash.digest('hex')}`;
}
