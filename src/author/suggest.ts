/**
 * "Did you mean": the allowed name closest to a mistyped one, by optimal
 * string alignment distance (Levenshtein plus adjacent transpositions),
 * compared case-insensitively. A suggestion is made only when it is close
 * enough to be a plausible typo, so "replicas" is never "corrected" to
 * something unrelated.
 */

/** Optimal string alignment distance between two strings (UTF-16 code units). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The allowed name a typo most likely meant, or null. Close enough means an
 * edit distance of at most a third of the longer name (at least 1, at most
 * 3), or one name being a prefix of the other (at least 3 characters).
 */
export function didYouMean(typo: string, allowed: readonly string[]): string | null {
  const t = typo.toLowerCase();
  let best: { name: string; distance: number } | null = null;
  for (const name of allowed) {
    const n = name.toLowerCase();
    const distance = editDistance(t, n);
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(t.length, n.length) / 3)));
    const prefix = Math.min(t.length, n.length) >= 3 && (n.startsWith(t) || t.startsWith(n));
    if (distance > limit && !prefix) continue;
    if (best === null || distance < best.distance) best = { name, distance };
  }
  return best?.name ?? null;
}
