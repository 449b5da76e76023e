/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) for the benchmark's
 * synthetic evidence: the same seed gives the same bytes on every machine, and
 * nothing reads the clock.
 */

/** splitmix32 step: spreads a 32-bit seed into well-mixed words. */
function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [next, (z ^ (z >>> 16)) >>> 0];
}

/** A deterministic random source. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed | 0;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [next, word] = splitmix32(s);
      s = next;
      words.push(word);
    }
    [this.a, this.b, this.c, this.d] = words as [number, number, number, number];
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform unsigned 32-bit integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** A uniform element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** An element chosen by weight: [[value, weight], ...]. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((sum, [, w]) => sum + w, 0);
    let r = this.float() * total;
    for (const [value, weight] of choices) {
      r -= weight;
      if (r < 0) return value;
    }
    return choices[choices.length - 1]![0];
  }

  /** `digits` lower-case hex digits. */
  hex(digits: number): string {
    let out = '';
    while (out.length < digits) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, digits);
  }

  /** A syntactically valid `sha256:` digest (random, not the digest of any file). */
  digest(): string {
    return `sha256:${this.hex(64)}`;
  }

  /** Fills a buffer with random bytes. */
  fill(bytes: Uint8Array): void {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 2);
    for (let i = 0; i < words.length; i++) words[i] = this.u32();
    for (let i = words.length * 4; i < bytes.length; i++) bytes[i] = this.u32() & 0xff;
  }
}
