/**
 * Seeded randomness for the demo generator: mulberry32 streams keyed by
 * strings, so each decision (one attempt, one plan's schedule) draws from its
 * own stream and reordering the generator's code never changes the output.
 * No Math.random, no clock.
 */
import { createHash } from 'node:crypto';

/** The demo's one fixed root seed. */
export const DEMO_SEED = 20260914;

/** mulberry32: a small 32-bit PRNG giving floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed derived from the root seed and a key (SHA-256, first four bytes). */
export function seedOf(key: string): number {
  return createHash('sha256').update(`${DEMO_SEED}/${key}`).digest().readUInt32BE(0);
}

/** A seeded stream with the few draws the generator needs. */
export class Rng {
  private readonly next: () => number;

  /** A stream keyed by the given parts (joined with "/"). */
  constructor(...key: (string | number)[]) {
    this.next = mulberry32(seedOf(key.join('/')));
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next();
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element, by weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [value, weight] of entries) {
      roll -= weight;
      if (roll < 0) return value;
    }
    return entries[entries.length - 1]![0];
  }

  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

/** 40 hex digits derived from a key (stand-in git commit / base SHA). */
export function fakeSha1(key: string): string {
  return createHash('sha256').update(`sha1/${key}`).digest('hex').slice(0, 40);
}
