/**
 * The Pareto frontier of cost against pass rate: a pure function, no
 * rendering. Lower cost and higher rate are better. A point is on the
 * frontier when no other point is at least as good on both and strictly
 * better on one. Two points with the same cost and the same rate do not
 * dominate each other, so both are on the frontier (or neither).
 */

/** A point of the cost chart: any identifier, its cost and its rate (any units; compared only). */
export interface ParetoPoint<K = string> {
  key: K;
  cost: number;
  rate: number;
}

/**
 * The non-dominated points, in increasing cost (then input order among equal
 * points). Their rates increase strictly from one cost to the next, so a
 * step line through them (step-after) reads "the best rate for at most this
 * cost". Not-finite costs or rates are never on it. Empty for no points.
 */
export function paretoFrontier<K>(points: readonly ParetoPoint<K>[]): ParetoPoint<K>[] {
  const usable = points
    .map((p, i) => ({ p, i }))
    .filter(({ p }) => Number.isFinite(p.cost) && Number.isFinite(p.rate))
    .sort((a, b) => a.p.cost - b.p.cost || b.p.rate - a.p.rate || a.i - b.i);
  const frontier: ParetoPoint<K>[] = [];
  let best = -Infinity;
  for (let g = 0; g < usable.length; ) {
    // One group of equal cost: only its highest rate can be on the frontier, and only if it beats every cheaper point.
    let end = g;
    while (end < usable.length && usable[end]!.p.cost === usable[g]!.p.cost) end += 1;
    const top = usable[g]!.p.rate;
    if (top > best) {
      for (let i = g; i < end && usable[i]!.p.rate === top; i += 1) frontier.push(usable[i]!.p);
      best = top;
    }
    g = end;
  }
  return frontier;
}
