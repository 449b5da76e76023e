/**
 * Incompatibilities at scale (issue 25, high 3): ledgers that share a name
 * were paired, every two of them, and cohorts on one ledger but different
 * boards too, so report.json was 523 MB at 2,000 bundles of one task name
 * (repeated imports of one Inspect task) and ran out of memory at 10^4.
 * Grouped, the report grows with the bundles: measured at 500 and 2,000.
 */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { cohortIncompatibilities, cohortPairCount, expandCohortPairs, expandLedgerPairs, ledgerIncompatibilities } from '../../src/analysis/incompatibilities.ts';
import type { BoardKey } from '../../src/analysis/keys.ts';
import { keyId } from '../../src/analysis/keys.ts';
import { buildReport, type ReportInput } from '../../src/report/build-report.ts';
import { groupedIncompatibilities, Report } from '../../src/report/schema.ts';
import { BASE, CAND, gridInput } from '../helpers/report-fixtures.ts';

const DEFAULTS = Config.parse({});

describe('2,000 bundles of one ledger name, each its own ledger (one task, reworded each time)', () => {
  it('report.json grows linearly: 2,000 bundles make at most 4.5 times the bytes of 500, and under 10 KB a bundle (its board and two cohorts: about 7 KB)', () => {
    const inputs: ReportInput[] = [];
    for (let i = 0; i < 2000; i++) {
      inputs.push(gridInput({ title: `import ${i}`, tasks: [{ id: 'inspect-task', prompt: `prompt, run ${i}` }], grid: { [CAND]: ['P'], [BASE]: ['F'] } }));
    }
    const sizeAt = (n: number): { bytes: number; report: Report } => {
      const report = buildReport(inputs.slice(0, n), DEFAULTS);
      // Pairs of 500 ledgers were 124,750 entries (about 30 MB beside the 3.6 MB of the rest): fail before building 2,000.
      const bytes = Buffer.byteLength(canonicalJson(report));
      expect(bytes, `report of ${n} bundles`).toBeLessThan(n * 10_000);
      return { bytes, report };
    };
    const small = sizeAt(500);
    const large = sizeAt(2000);
    expect(large.bytes / small.bytes).toBeLessThan(4.5);
    expect(Report.safeParse(large.report).success).toBe(true);
    // The one name, its 2,000 digests once, and the one task with its 2,000 versions, one ledger each.
    const { by_name, by_ledger } = groupedIncompatibilities(large.report);
    expect(by_ledger).toEqual([]);
    expect(by_name).toHaveLength(1);
    expect(by_name[0]!.ledgers).toHaveLength(2000);
    expect(by_name[0]!.tasks.map((t) => [t.task_id, t.versions.length, t.versions.every((v) => v.ledgers.length === 1)])).toEqual([['inspect-task', 2000, true]]);
    // Every pair still follows from the groups: spot-check the first ones.
    const first = expandLedgerPairs([{ ...by_name[0]!, ledgers: by_name[0]!.ledgers.slice(0, 3) }]);
    expect(first.map((p) => [p.changed, p.added, p.removed])).toEqual([
      [['inspect-task'], [], []],
      [['inspect-task'], [], []],
      [['inspect-task'], [], []],
    ]);
  }, 180_000);
});

/** A board key on ledger `ledger`, its harness commit `commit`, its budget as given. */
function key(ledger: string, commit: string, budget: BoardKey['budget'] = null): BoardKey {
  return {
    ledger_digest: ledger,
    environment: { tool_policy: 'sha256:policy', wiki: [], isolation: 'container', session_topology: 'single' },
    harness: { name: 'h', version: '1', commit },
    budget,
    grading: { id: 'oracle', version: '1.2.0', executable: 'sha256:exe' },
    origin: 'frozen',
  };
}

describe('cohorts on one ledger spread over many boards', () => {
  /** `boards` boards on one ledger (each its own harness commit), two cohorts each. */
  function spread(boards: number): { cohorts: { cohort_id: string; board_id: string }[]; keys: Map<string, BoardKey> } {
    const keys = new Map<string, BoardKey>();
    const cohorts: { cohort_id: string; board_id: string }[] = [];
    for (let i = 0; i < boards; i++) {
      const k = key('sha256:ledger', `commit-${i}`);
      const id = keyId(k);
      keys.set(id, k);
      cohorts.push({ cohort_id: `${id}/a`, board_id: id }, { cohort_id: `${id}/b`, board_id: id });
    }
    return { cohorts, keys };
  }

  it('grows linearly with the boards (500 and 2,000), where the pairs grow quadratically', () => {
    const small = cohortIncompatibilities(spread(500).cohorts, spread(500).keys);
    const { cohorts, keys } = spread(2000);
    const large = cohortIncompatibilities(cohorts, keys);
    const ratio = canonicalJson(large).length / canonicalJson(small).length;
    expect(ratio).toBeLessThan(4.5);
    // 4,000 cohorts: every two on different boards are a pair, 7,996,000 of them, counted without being listed.
    expect(cohortPairCount(large)).toBe((4000 * 3999) / 2 - 2000);
    expect(large).toHaveLength(1);
    expect(large[0]!.components.map((c) => [c.component, c.values.length])).toEqual([['harness.commit', 2000]]);
  });
});

describe('the grouped form stands for exactly the pairs (FORMAT.md 7.1)', () => {
  it('every pair of cohorts on different boards, with keyDifferences of the two keys, a budget null on one side included', async () => {
    const { keyDifferences } = await import('../../src/analysis/keys.ts');
    const budget = (micros: number) => ({ currency: 'USD', per_attempt_micros: micros, timeout_seconds: 600 });
    const keys = [
      key('sha256:L1', 'c1', null),
      key('sha256:L1', 'c1', budget(5)),
      key('sha256:L1', 'c2', budget(5)),
      key('sha256:L1', 'c2', budget(7)),
      key('sha256:L1', 'c3', { currency: 'EUR', per_attempt_micros: 7, timeout_seconds: 60 }),
      key('sha256:L2', 'c1', null),
    ];
    keys[3]!.environment.wiki = [{ path: 'a.md', sha256: 'sha256:wiki' }];
    const byId = new Map(keys.map((k) => [keyId(k), k]));
    const cohorts = keys.flatMap((k, i) => [{ cohort_id: `c${i}x`, board_id: keyId(k) }, ...(i % 2 === 0 ? [{ cohort_id: `c${i}y`, board_id: keyId(k) }] : [])]);
    const groups = cohortIncompatibilities(cohorts, byId);
    // The pairs as reports before issue 25 listed them: every two cohorts on one ledger and different boards.
    const expected: { a: string; b: string; board_a: string; board_b: string; differences: unknown[] }[] = [];
    const sorted = [...cohorts].sort((x, y) => (x.cohort_id < y.cohort_id ? -1 : 1));
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const [x, y] = [sorted[i]!, sorted[j]!];
        const [kx, ky] = [byId.get(x.board_id)!, byId.get(y.board_id)!];
        if (x.board_id === y.board_id || kx.ledger_digest !== ky.ledger_digest) continue;
        expected.push({ a: x.cohort_id, b: y.cohort_id, board_a: x.board_id, board_b: y.board_id, differences: keyDifferences(kx, ky) });
      }
    }
    expect(expected.length).toBeGreaterThan(20);
    expect(expandCohortPairs(groups)).toEqual(expected);
    expect(cohortPairCount(groups)).toBe(expected.length);
    // budget is listed whole where one board has none; its members below, among the boards that have one.
    expect(groups[0]!.components.map((c) => c.component)).toEqual(['budget', 'budget.currency', 'budget.per_attempt_micros', 'budget.timeout_seconds', 'environment.wiki', 'harness.commit']);
  });

  it('ledgers of one name: changed, added and removed per pair, as the pairs were', () => {
    const rec = (task_id: string, prompt = task_id) => ({
      task_id, repo: null, base_sha: null, prompt_sha256: `sha256:${prompt}`, failing_tests: null, failing_assertion: null, oracle_sha256: null,
      license: 'MIT', difficulty: null, holdout: true, cluster_id: task_id, created_at: '2026-09-14T00:00:00Z',
    });
    const ledgers = new Map([
      ['sha256:3', { name: 'n', records: [rec('x1'), rec('x2'), rec('x3')] }],
      ['sha256:1', { name: 'n', records: [rec('x1', 'other'), rec('x2'), rec('x4')] }],
      ['sha256:2', { name: 'n', records: [rec('x2')] }],
      ['sha256:9', { name: 'alone', records: [rec('x1')] }],
    ]);
    const groups = ledgerIncompatibilities(ledgers);
    expect(groups.map((g) => [g.name, g.ledgers, g.tasks.map((t) => t.task_id)])).toEqual([['n', ['sha256:1', 'sha256:2', 'sha256:3'], ['x1', 'x3', 'x4']]]);
    expect(expandLedgerPairs(groups)).toEqual([
      { name: 'n', a: 'sha256:1', b: 'sha256:2', changed: [], added: [], removed: ['x1', 'x4'] },
      { name: 'n', a: 'sha256:1', b: 'sha256:3', changed: ['x1'], added: ['x3'], removed: ['x4'] },
      { name: 'n', a: 'sha256:2', b: 'sha256:3', changed: [], added: ['x1', 'x3'], removed: [] },
    ]);
  });
});

describe('a report retained before issue 25 (incompatibilities as pairs)', () => {
  it('still checks as a retained report and diffs against a new one; a mix of the two shapes does not', async () => {
    const { checkRetained } = await import('../../src/history/retained-reports.ts');
    const { diffReports } = await import('../../src/history/report-diff.ts');
    const { digestBytes, selfId } = await import('../../src/json/canonical.ts');
    const main = gridInput({ tasks: [{ id: 't1' }, { id: 't2' }], grid: { [CAND]: ['P', 'F'], [BASE]: ['F', 'F'] } });
    const other = gridInput({ title: 'other policy', toolPolicy: digestBytes('tool policy 2'), tasks: [{ id: 't1' }, { id: 't2' }], grid: { [CAND]: ['P', 'P'], [BASE]: ['F', 'F'] } });
    const now = buildReport([main, other], DEFAULTS);
    const grouped = groupedIncompatibilities(now);
    const pairs = expandCohortPairs(grouped.by_ledger);
    expect(pairs).toHaveLength(4);
    // The old shape, as reports were built before: the pairs, and each cohort's incompatible_with.
    const { report_id: _id, schema, ...rest } = now;
    const oldBody = {
      schema,
      ...rest,
      cohorts: now.cohorts.map((c) => ({
        ...c,
        incompatible_with: pairs
          .filter((p) => p.a === c.cohort_id || p.b === c.cohort_id)
          .map((p) => (p.a === c.cohort_id ? { cohort_id: p.b, board_id: p.board_b, differences: p.differences } : { cohort_id: p.a, board_id: p.board_a, differences: p.differences.map((d) => ({ component: d.component, a: d.b, b: d.a })) })),
      })),
      incompatibilities: { cohorts: pairs, ledgers: expandLedgerPairs(grouped.by_name) },
    };
    const { schema: _s, ...oldRest } = oldBody;
    const old = { schema, report_id: selfId(oldBody as Record<string, unknown>, 'report_id'), ...oldRest };
    const bytes = new TextEncoder().encode(`${canonicalJson(old)}\n`);
    const checked = checkRetained(old.report_id.slice(7), bytes);
    expect(checked.problems).toEqual([]);
    expect(checked.report).not.toBeNull();
    expect(() => groupedIncompatibilities(checked.report!)).toThrow(/before issue 25/);
    // Same bundles, same cohorts: nothing changed between the old-shaped report and the new one.
    expect(diffReports(checked.report!, now).changes).toEqual([]);
    // Half of each shape is neither.
    const mixed = { ...oldBody, incompatibilities: { by_ledger: grouped.by_ledger, ledgers: [] } };
    const mixedReport = { ...mixed, report_id: selfId(mixed as Record<string, unknown>, 'report_id') };
    expect(Report.safeParse(mixedReport).success).toBe(false);
  });
});
