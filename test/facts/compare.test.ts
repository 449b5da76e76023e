/**
 * The compare pages' facts (src/facts/compare.ts, computed below the site) and
 * the site's compare data made of them (src/site/model/compare.ts) on the demo's report: per-task
 * wins re-derived from the report's sides give the report's pairs, hand-checked
 * numbers for one pair, the paired bootstrap delta (equal to the cohort's own
 * delta when the candidate's id sorts first, the same seed), the board's
 * resolution, the cap and the k nearest neighbours, a board without per-task
 * sides.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareBoardFacts, compareFacts, neighbourPairs } from '../../src/facts/compare.ts';
import { pairSeed } from '../../src/analysis/pair-seed.ts';
import { siteCompare } from '../../src/site/model/compare.ts';
import { comparePath, compareKey, COMPARE_MAX_COHORTS, COMPARE_NEIGHBOURS } from '../../src/site/views/compare-paths.ts';
import { Config } from '../../src/config/config.ts';
import { digestCanonical } from '../../src/json/canonical.ts';
import type { Report, ReportCohort } from '../../src/report/schema.ts';

const report = JSON.parse(readFileSync(new URL('../golden/demo-report.json', import.meta.url), 'utf8')) as Report;
const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
const boardOf = (prefix: string) => report.boards.find((b) => b.board_id.startsWith(`sha256:${prefix}`))!;
const cohortOf = (prefix: string): ReportCohort => report.cohorts.find((c) => c.cohort_id.startsWith(`sha256:${prefix}`))!;

describe('compare pages of the demo', () => {
  const all = siteCompare(report.boards, cohorts, compareFacts(report));

  it('a page for every pair of every board (under the default cap of 50), keyed a-hex/b-hex in id order', () => {
    expect(COMPARE_MAX_COHORTS).toBe(Config.parse({}).compare_max_cohorts);
    for (const board of report.boards) {
      const c = all[board.board_id]!;
      expect(c.full).toBe(true);
      expect(Object.keys(c.pages)).toEqual(board.pairs!.map((p) => compareKey(p.a, p.b)));
      for (const [key, page] of Object.entries(c.pages)) {
        expect(page.a < page.b).toBe(true);
        expect(key).toBe(`${page.a.slice(7)}/${page.b.slice(7)}`);
        expect(comparePath(board.board_id, page.b, page.a)).toBe(`/boards/${board.board_id.slice(7)}/compare/${key}/`);
        const pair = board.pairs![page.pair]!;
        expect([page.a_wins!.length, page.b_wins!.length]).toEqual([pair.a_better, pair.b_better]);
      }
    }
  });

  it('acme/base against acme/mini on board a7bdcfaf: mini better on 7 tasks, base on none, the same as the cohort page', () => {
    const board = boardOf('a7bdcfaf');
    const base = cohortOf('17a74f7f');
    const mini = cohortOf('3b7052e1');
    const page = all[board.board_id]!.pages[compareKey(base.cohort_id, mini.cohort_id)]!;
    expect(page.a).toBe(base.cohort_id);
    expect(page.a_wins).toEqual([]);
    // By hand from mini's tasks: the candidate resolves more of its attempts than the baseline.
    const better = mini.tasks.flatMap((t, i) => (t.candidate.resolved * t.baseline.attempts > t.baseline.resolved * t.candidate.attempts ? [i] : []));
    expect(better).toHaveLength(7);
    expect(page.b_wins).toEqual(better);
    // Both sides' sides: base's are mini's tasks[].baseline.
    expect(all[board.board_id]!.sides[base.cohort_id]!.map((s) => s.resolved)).toEqual(mini.tasks.map((t) => t.baseline.resolved));
    // Delta a - b = base - mini = 22/51 - 42/51 over the 17 tasks, seeded base first.
    expect(page.delta!.rate).toBe(22 / 51 - 42 / 51);
    expect(page.delta!.paired_tasks).toBe(17);
    expect(page.delta!.resamples).toBe(2000);
    const bundles = [...new Set([...base.plans, ...mini.plans].map((p) => p.bundle_id))].sort();
    expect(page.delta!.seed).toBe(`${digestCanonical({ bundles, config_digest: report.config_digest })}/${base.cohort_id}/${mini.cohort_id}`);
    expect(page.delta!.interval![0]).toBeLessThan(page.delta!.rate!);
    expect(page.delta!.interval![1]).toBeGreaterThan(page.delta!.rate!);
  });

  it("a candidate whose id sorts before its baseline's: the page's delta is the cohort's delta, bit for bit", () => {
    const board = boardOf('c895cd60');
    const baseline = board.baseline_cohort_id!;
    const before = board.cohorts.filter((id) => id < baseline);
    expect(before.length).toBeGreaterThan(0);
    for (const id of before) {
      const c = cohorts.get(id)!;
      const page = all[board.board_id]!.pages[compareKey(id, baseline)]!;
      expect(page.a).toBe(id);
      expect(page.delta).toEqual({ rate: c.delta!.rate, interval: c.delta!.interval, paired_tasks: c.delta!.paired_tasks, resamples: c.delta!.resamples, skipped: c.delta!.skipped, seed: c.delta!.seed });
      expect(pairSeed([...c.plans, ...cohorts.get(baseline)!.plans].map((p) => p.bundle_id), report.config_digest, id, baseline)).toBe(c.delta!.seed);
    }
  });

  it("the resolution: 17 headline tasks need 6-0 (13-4 when all differ) before adjustment; Holm's first step over 6 pairs 8-0, over 15 pairs 10-0", () => {
    const small = all[boardOf('a7bdcfaf').board_id]!.resolution;
    expect(small.unadjusted).toEqual({ tasks: 17, factor: 1, smallest: [6, 0], allDiffer: [13, 4] });
    expect(small.holm).toEqual({ tasks: 17, factor: 6, smallest: [8, 0], allDiffer: [15, 2] });
    expect(all[boardOf('c895cd60').board_id]!.resolution.holm).toEqual({ tasks: 17, factor: 15, smallest: [10, 0], allDiffer: [15, 2] });
  });

  it('the pair matrix: one cell each way per pair, with the text alternative', () => {
    const c = all[boardOf('c895cd60').board_id]!;
    expect(c.chart!.compact.match(/<rect /g)!.length).toBe(30 + 6);
    expect(c.chart!.alt.split('\n')).toHaveLength(16);
    expect(c.chart!.svg).toContain('role="img"');
    expect(c.chart!.svg).not.toContain('<a ');
  });
});

describe('the cap', () => {
  it('neighbours by rank: each cohort with its k nearest, the nearer above first', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    expect([...neighbourPairs(ids, 2)].sort()).toEqual(['a b', 'a c', 'b c', 'c d', 'd e', 'e f', 'f g', 'f h', 'g h']);
    // k = 5 on 6 cohorts: everyone is a neighbour of everyone.
    expect(neighbourPairs(ids.slice(0, 6), COMPARE_NEIGHBOURS).size).toBe(15);
    // Ranks (board order) are not id order: pairs are written in id order.
    expect([...neighbourPairs(['c', 'a', 'b'], 1)].sort()).toEqual(['a b', 'a c']);
  });

  it('over the cap, pages only for neighbour pairs (a 12-cohort board over a cap of 11, k = 5)', () => {
    // A board of 12 cohorts made from the demo's: the pairs only need ids in order.
    const board = boardOf('c895cd60');
    const ids = Array.from({ length: 12 }, (_, i) => `sha256:${i.toString(16).padStart(64, '0')}`);
    const base = cohorts.get(board.cohorts[0]!)!;
    const many = new Map(ids.map((id) => [id, { ...base, cohort_id: id, tasks: [], subject: { ...base.subject, role: 'candidate' as const } }]));
    const pairs = ids.flatMap((a, i) => ids.slice(i + 1).map((b) => ({ a, b, tasks: 0, a_better: 0, b_better: 0, p: 1, p_holm: 1, winner: null })));
    const big = { ...board, cohorts: ids, baseline_cohort_id: null, pairs };
    const capped = compareBoardFacts(report, big, many, 11);
    expect(capped.full).toBe(false);
    // Places 0..11, each taking 5 nearest (+-1, +-2, then 3 above; the ends reach further): every pair at
    // distance 1 (11), 2 (10) and 3 (9), at distance 4 (0,4), (1,5), (6,10), (7,11), at 5 (0,5), (6,11): 36 of 66.
    expect(neighbourPairs(ids, 5).size).toBe(11 + 10 + 9 + 4 + 2);
    expect(capped.pages).toHaveLength(36);
    expect(compareBoardFacts(report, big, many, 12).full).toBe(true);
    expect(compareBoardFacts(report, big, many, 12).pages).toHaveLength(66);
    // No baseline: the report holds no per-task sides; the pages still exist, without wins or delta.
    expect(capped.pages.every((p) => p.a_wins === null && p.delta === null)).toBe(true);
    expect(Object.values(capped.sides).every((s) => s === null)).toBe(true);
  });
});

describe('the pair matrix with a winner', () => {
  it('W on sky blue for the row that beats, L on orange for the row beaten, with the counts in each cell title', async () => {
    const { pairChart, PAIR_FILL, pText } = await import('../../src/site/charts/chart-pairs.ts');
    const board = boardOf('a7bdcfaf');
    const [x, y] = [board.cohorts[0]!, board.cohorts[1]!];
    const [a, b] = x < y ? [x, y] : [y, x];
    // One pair of the board given a winner: a beats b 9-0 (p = 2 / 512), the rest left as they are.
    const pairs = board.pairs!.map((p) => (p.a === a && p.b === b ? { ...p, a_better: 9, b_better: 0, p: 2 / 512, p_holm: 6 * (2 / 512), winner: a } : p));
    const chart = pairChart({ ...board, pairs }, cohorts)!;
    const cells = [...chart.compact.matchAll(/<rect fill="([^"]+)"[^>]*><title>([^<]*)<\/title>/g)].map((m) => ({ fill: m[1]!, title: m[2]! }));
    expect(cells).toHaveLength(12);
    expect(cells.filter((c) => c.fill === PAIR_FILL.W)).toHaveLength(1);
    expect(cells.filter((c) => c.fill === PAIR_FILL.L)).toHaveLength(1);
    expect(cells.find((c) => c.fill === PAIR_FILL.W)!.title).toMatch(/ beats .*: 9-0 of 17 tasks, Holm p 0\.0234$/);
    expect(cells.find((c) => c.fill === PAIR_FILL.L)!.title).toMatch(/ is beaten by .*: 0-9 of 17 tasks, Holm p 0\.0234$/);
    expect(chart.compact.match(/>W</g)).toHaveLength(1);
    expect(chart.compact.match(/>L</g)).toHaveLength(1);
    expect(chart.notes.at(-1)).toBe('1 of 6 pairs has a winner.');
    expect(chart.alt).toContain(': 9-0 of 17 tasks, p 0.00391, Holm p 0.0234: ');
    expect([pText(1), pText(0.015625), pText(0.09375), pText(2 ** -20)]).toEqual(['1', '0.0156', '0.0938', '9.5e-7']);
  });
});
