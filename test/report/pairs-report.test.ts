/**
 * Pairs and rank ranges in the demo's report (FORMAT.md 7.6; the worked
 * example of docs/formulas.md): every board carries every unordered pair,
 * sorted by (a, b), and every cohort the rank range its pairs give.
 */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { runPipeline } from '../../src/run/pipeline.ts';
import { rankText, reportText } from '../../src/cli/format-report.ts';

const { report } = await runPipeline({ paths: ['content/bundles'], config: Config.parse({}), retainedDir: null, requireBundles: true });

describe('the demo report: pairs and rank ranges', () => {
  it('board sha256:a7bdcfaf...: acme/base against acme/mini, 7 tasks to 0 of 17, p = 2/128, Holm 6 x p; no winner; every range [1, 4]', () => {
    const board = report.boards.find((b) => b.board_id.startsWith('sha256:a7bdcfaf'))!;
    const cohorts = report.cohorts.filter((c) => c.board_id === board.board_id);
    const base = cohorts.find((c) => c.subject.model === 'acme/base-2025-01-01')!;
    const mini = cohorts.find((c) => c.subject.model === 'acme/mini-2026-08-01')!;
    const [a, b] = [base, mini].sort((x, y) => (x.cohort_id < y.cohort_id ? -1 : 1));
    const pair = board.pairs!.find((p) => p.a === a!.cohort_id && p.b === b!.cohort_id)!;
    expect({ tasks: pair.tasks, base: a === base ? pair.a_better : pair.b_better, mini: a === mini ? pair.a_better : pair.b_better }).toEqual({ tasks: 17, base: 0, mini: 7 });
    expect([pair.p, pair.p_holm, pair.winner]).toEqual([0.015625, 0.09375, null]);
    expect(board.pairs!.map((p) => p.p).sort((x, y) => x - y)).toEqual([0.015625, 0.0625, 0.125, 0.125, 0.375, 0.625]);
    expect(board.pairs!.map((p) => p.p_holm).sort((x, y) => x - y)).toEqual([0.09375, 0.3125, 0.5, 0.5, 0.75, 0.75]);
    expect(cohorts.map((c) => c.rank_range)).toEqual(cohorts.map(() => [1, 4]));
  });

  it('every board: N (N - 1) / 2 pairs sorted by (a, b), a < b, ranges from the winners', () => {
    for (const board of report.boards) {
      const ids = board.cohorts;
      const pairs = board.pairs!;
      expect(pairs).toHaveLength((ids.length * (ids.length - 1)) / 2);
      const keys = pairs.map((p) => `${p.a}/${p.b}`);
      expect(keys).toEqual([...keys].sort());
      for (const p of pairs) {
        expect(p.a < p.b).toBe(true);
        expect(ids).toContain(p.a);
        expect(ids).toContain(p.b);
        expect(p.a_better + p.b_better).toBeLessThanOrEqual(p.tasks);
        expect(p.p_holm).toBeGreaterThanOrEqual(p.p);
      }
      for (const id of ids) {
        const beaten = pairs.filter((p) => p.winner !== null && p.winner !== id && (p.a === id || p.b === id)).length;
        const beats = pairs.filter((p) => p.winner === id).length;
        expect(report.cohorts.find((c) => c.cohort_id === id)!.rank_range).toEqual([1 + beaten, ids.length - beats]);
      }
    }
  });
});

describe('the readable report: the rank range as the rank', () => {
  it('"lo-hi", "lo" for one place, the rank by rate for a report retained before ranges', () => {
    expect(rankText({ rank: 2, rank_range: [1, 4] })).toBe('1-4');
    expect(rankText({ rank: 3, rank_range: [3, 3] })).toBe('3');
    expect(rankText({ rank: 2 })).toBe('2');
    const text = reportText(report, (_style, t) => t);
    expect(text).toMatch(/\n {2}1-4 +acme\/mini-2026-08-01 /);
    expect(text).toContain('0 of 6 pairs told apart');
  });
});
