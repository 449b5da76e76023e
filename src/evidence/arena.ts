/**
 * Memory for the structured files of one bundle at a time, reused bundle
 * after bundle. Reading a file into fresh memory costs the first touch of
 * every page, and on a virtual machine that can cost more than reading the
 * bytes (2-3 ms per MB measured on the bench VM, against well under 1 ms to
 * copy them; docs/benchmarks.md, "Scale"). A directory of bundles is read
 * one bundle at a time, so the same buffers can serve them all.
 *
 * A buffer handed out by {@link ContentArena.take} is valid until the next
 * `take` for the same path: the caller must be done with one bundle's bytes
 * (verified it, keeping only parsed values) before reading the next bundle
 * into the same arena.
 */
export class ContentArena {
  private readonly buffers = new Map<string, Buffer>();

  /** Memory for `size` bytes of the file at `path` (bundle-relative); reused for the same path. */
  take(path: string, size: number): Buffer {
    const wanted = Math.max(size, 1);
    const known = this.buffers.get(path);
    if (known !== undefined && known.length >= wanted) return known.subarray(0, wanted);
    // Some room to grow: the next bundle's file of the same name is often a little bigger.
    const buffer = Buffer.allocUnsafeSlow(wanted + (wanted >>> 3));
    this.buffers.set(path, buffer);
    return buffer.subarray(0, wanted);
  }
}
