/** Small deterministic helpers shared by the benchmark's evidence generators. */
import type { Prng } from './prng.ts';

/** RFC 3339 UTC without a zero millisecond fraction (toISOString of a fixed instant: no clock is read). */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A number padded with zeros to `width` digits. */
export function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** A text artifact of roughly `size` bytes (a unified diff, a grader log). */
export function textArtifact(prng: Prng, title: string, size: number): Buffer {
  const lines = [`# ${title}`];
  let length = lines[0]!.length;
  while (length < size) {
    const line = `${prng.pick(['+', '-', ' '])} value_${prng.hex(6)} = compute(${prng.int(1000)}, "${prng.hex(12)}")`;
    lines.push(line);
    length += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}
