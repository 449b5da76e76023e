/**
 * Money per bundle (issue 12, point 2): the report carries each bundle's
 * declared ceiling (plan.budget) and what its attempts spent (cost), summed
 * once from the verifier's attempt columns, so the site reads it and never
 * sums attempts itself.
 */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { Report } from '../../src/report/schema.ts';
import type { Attempt } from '../../src/schema/index.ts';
import { CANDIDATE, validBundle } from '../helpers/bundle-builder.ts';
import { BASE, CAND, gridInput, reportInput, type ModelSpec } from '../helpers/report-fixtures.ts';

const DEFAULTS = Config.parse({});
const GRID: ModelSpec = { tasks: [{ id: 't1' }, { id: 't2' }], grid: { [CAND]: ['PP', 'PF'], [BASE]: ['FF', 'PF'] } };

/** A GRID bundle whose every attempt costs what `cost` says for the candidate and 0 micros, complete, for the baseline. */
function priced(title: string, cost: (a: Attempt, i: number) => Attempt['cost']) {
  let i = 0;
  return gridInput({ ...GRID, title, prefix: title, tweak: (a) => void (a.cost = a.model === CANDIDATE.model ? cost(a, i++) : { state: 'complete', micros: 0 }) });
}

describe('the money of each bundle in report.json', () => {
  it('carries the ceiling the plan declares and what the attempts spent, by cost state', () => {
    const input = reportInput(validBundle());
    const report = Report.parse(buildReport([input], DEFAULTS));
    const bundle = report.bundles[0]!;
    expect(bundle.plan?.budget).toEqual({ currency: 'USD', aggregate_micros: 20_000_000, per_attempt_micros: 3_333_333 });
    // validBundle's six attempts: complete 812,345; partial 1,000; unavailable; not_applicable; zero; complete 3,333,333.
    expect(bundle.cost).toEqual({ currency: 'USD', micros: 812_345 + 1_000 + 3_333_333, complete: false, unavailable: 1, partial: 1, not_applicable: 1, zero: 1 });
  });

  it('is exact up to 2^53 - 1, and null past it (LIMIT_EXCEEDED names the total)', () => {
    // Four candidate attempts: three of 2^51 - 1 and one of 2^51 + 2 sum to 2^53 - 1 exactly.
    const exact = priced('exact', (_a, i) => ({ state: 'complete', micros: i < 3 ? 2 ** 51 - 1 : 2 ** 51 + 2 }));
    const over = priced('over', (_a, i) => ({ state: 'complete', micros: i < 3 ? 2 ** 51 - 1 : 2 ** 51 + 3 }));
    expect(over.verification.findings.some((f) => f.code === 'LIMIT_EXCEEDED')).toBe(true);
    const report = Report.parse(buildReport([exact, over], DEFAULTS));
    const byTitle = new Map(report.bundles.map((b) => [b.plan?.title, b]));
    expect(byTitle.get('exact')!.cost).toMatchObject({ micros: Number.MAX_SAFE_INTEGER, complete: true });
    expect(byTitle.get('over')!.cost).toBeNull();
  });

  it('counts a partial cost without micros as partial, adding nothing', () => {
    const input = priced('partial', (_a, i) => (i === 0 ? { state: 'partial', micros: null } : { state: 'complete', micros: 10 }));
    const report = Report.parse(buildReport([input], DEFAULTS));
    expect(report.bundles[0]!.cost).toEqual({ currency: 'USD', micros: 30, complete: false, unavailable: 0, partial: 1, not_applicable: 0, zero: 0 });
  });

  it('a report retained before the money was reported (no cost, no plan.budget) is still a valid report', () => {
    const report = buildReport([reportInput(validBundle())], DEFAULTS);
    const { cost: _cost, ...bundle } = report.bundles[0]!;
    const { budget: _budget, ...plan } = bundle.plan!;
    expect(Report.safeParse({ ...report, bundles: [{ ...bundle, plan }] }).success).toBe(true);
  });
});
