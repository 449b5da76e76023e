/** The Pareto frontier of cost against rate (src/site/charts/chart-pareto.ts): lower cost and higher rate are better. */
import { describe, expect, it } from 'vitest';
import { paretoFrontier, type ParetoPoint } from '../../src/site/charts/chart-pareto.ts';

const keys = (points: readonly ParetoPoint[]): string[] => paretoFrontier(points).map((p) => p.key);
const p = (key: string, cost: number, rate: number): ParetoPoint => ({ key, cost, rate });

describe('paretoFrontier', () => {
  it('keeps the non-dominated points of a synthetic set, in increasing cost', () => {
    const set = [p('a', 1, 40), p('b', 2, 70), p('c', 3, 60), p('d', 4, 90), p('e', 5, 90), p('f', 0.5, 10), p('g', 2.5, 70)];
    // c is beaten by b (cheaper, better); e by d (cheaper, as good); g by b (cheaper, as good).
    expect(keys(set)).toEqual(['f', 'a', 'b', 'd']);
    // Rates rise strictly along the frontier: a step line through it never goes down.
    const rates = paretoFrontier(set).map((x) => x.rate);
    for (let i = 1; i < rates.length; i += 1) expect(rates[i]!).toBeGreaterThan(rates[i - 1]!);
  });

  it('keeps every copy of a tie (same cost, same rate): neither dominates the other', () => {
    expect(keys([p('a', 1, 50), p('b', 1, 50), p('c', 2, 40)])).toEqual(['a', 'b']);
    expect(keys([p('x', 3, 80), p('a', 1, 50), p('b', 1, 50)])).toEqual(['a', 'b', 'x']);
  });

  it('keeps only the best rate among equal costs', () => {
    expect(keys([p('low', 2, 30), p('high', 2, 60), p('mid', 2, 45)])).toEqual(['high']);
  });

  it('drops a point with the same rate at a higher cost', () => {
    expect(keys([p('dear', 5, 60), p('cheap', 1, 60)])).toEqual(['cheap']);
  });

  it('is the point itself for a single point, and empty for none', () => {
    expect(keys([p('only', 3, 20)])).toEqual(['only']);
    expect(keys([])).toEqual([]);
  });

  it('handles zero cost and zero rate, and never places a non-finite value', () => {
    expect(keys([p('free', 0, 0), p('paid', 1, 10)])).toEqual(['free', 'paid']);
    expect(keys([p('nan', Number.NaN, 99), p('inf', Number.POSITIVE_INFINITY, 100), p('ok', 1, 1)])).toEqual(['ok']);
  });

  it('does not depend on input order (up to the order of ties)', () => {
    const set = [p('a', 1, 40), p('b', 2, 70), p('c', 3, 60), p('d', 4, 90)];
    expect(keys([...set].reverse())).toEqual(keys(set));
  });
});
