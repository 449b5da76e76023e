/**
 * The two string orders of the code, in one place. They differ only for
 * strings holding characters past U+FFFF next to U+E000..U+FFFF (and lone
 * surrogates, which UTF-8 encodes as U+FFFD), so each sort keeps the one it
 * has always used:
 * - compareUtf8: the byte order of the UTF-8 encodings (the manifest's sort
 *   order, FORMAT.md; paths, ids and names an importer writes);
 * - compareCodeUnits: JavaScript's own `<` on strings (UTF-16 code units),
 *   as report members, board ids and output paths have always been sorted.
 */

/** Compares two strings by the byte order of their UTF-8 encodings (the manifest's sort order). */
export function compareUtf8(a: string, b: string): number {
  // Plain UTF-16 comparison agrees with UTF-8 byte order except across surrogates and U+E000..U+FFFF.
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Compares two strings by their UTF-16 code units (JavaScript's `<`): -1, 0 or 1. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
