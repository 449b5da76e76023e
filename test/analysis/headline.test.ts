/**
 * The headline set (FORMAT.md 7.3): "the first holdout task of each
 * cluster_id in ledger order. Its siblings form the leakage watch list and
 * never enter the headline rate. Non-holdout tasks are reported apart."
 */
import { describe, expect, it } from 'vitest';
import { splitLedger } from '../../src/analysis/headline.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import type { LedgerRecord } from '../../src/schema/index.ts';

function task(task_id: string, holdout: boolean, cluster_id: string): LedgerRecord {
  return {
    task_id,
    repo: null,
    base_sha: null,
    prompt_sha256: digestBytes(task_id),
    failing_tests: null,
    failing_assertion: null,
    oracle_sha256: null,
    license: 'MIT',
    difficulty: null,
    holdout,
    cluster_id,
    created_at: '2026-09-14T00:00:00Z',
  };
}

describe('splitLedger', () => {
  it('first holdout task per cluster, in ledger order, is headline; its holdout siblings are the watch list; non-holdout is public', () => {
    const ledger = [
      task('t-09', true, 'queue'), // first holdout of "queue": headline
      task('t-01', true, 'queue'), // sibling: watch list (ledger order, not id order)
      task('t-05', false, 'parse'), // public
      task('t-02', true, 'parse'), // first holdout of "parse" (the public t-05 came first): headline
      task('t-03', true, 'cache'), // headline
      task('t-04', true, 'queue'), // second sibling of "queue": watch list
      task('t-06', false, 'cache'), // public, even after its cluster's headline
      task('t-07', true, 'parse'), // watch list
    ];
    const s = splitLedger(ledger);
    expect(s.headline).toEqual(['t-09', 't-02', 't-03']);
    expect(s.watch_list).toEqual(['t-01', 't-04', 't-07']);
    expect(s.public).toEqual(['t-05', 't-06']);
    expect([...s.splitOf]).toEqual([
      ['t-09', 'headline'],
      ['t-01', 'watch_list'],
      ['t-05', 'public'],
      ['t-02', 'headline'],
      ['t-03', 'headline'],
      ['t-04', 'watch_list'],
      ['t-06', 'public'],
      ['t-07', 'watch_list'],
    ]);
  });

  it("a cluster whose first task is public and second holdout: the holdout one is the cluster's headline", () => {
    const s = splitLedger([task('p', false, 'c'), task('h', true, 'c'), task('w', true, 'c')]);
    expect(s.headline).toEqual(['h']);
    expect(s.public).toEqual(['p']);
    expect(s.watch_list).toEqual(['w']);
  });

  it('a cluster with no holdout task has no headline task; an all-public ledger has an empty headline', () => {
    const s = splitLedger([task('p1', false, 'c'), task('p2', false, 'c')]);
    expect(s).toMatchObject({ headline: [], watch_list: [], public: ['p1', 'p2'] });
  });

  it('the same tasks in another ledger order pick another headline task', () => {
    const a = splitLedger([task('x', true, 'c'), task('y', true, 'c')]);
    const b = splitLedger([task('y', true, 'c'), task('x', true, 'c')]);
    expect([a.headline, a.watch_list]).toEqual([['x'], ['y']]);
    expect([b.headline, b.watch_list]).toEqual([['y'], ['x']]);
  });

  it('cluster ids are compared exactly (case and whitespace matter)', () => {
    const s = splitLedger([task('a', true, 'Queue'), task('b', true, 'queue'), task('c', true, 'queue '), task('d', true, 'queue')]);
    expect(s.headline).toEqual(['a', 'b', 'c']);
    expect(s.watch_list).toEqual(['d']);
  });

  it('an empty ledger has empty splits', () => {
    const s = splitLedger([]);
    expect(s).toMatchObject({ headline: [], watch_list: [], public: [] });
    expect(s.splitOf.size).toBe(0);
  });
});
