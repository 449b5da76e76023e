/**
 * Money computed below the site (src/facts/money.ts, issue 28 item 1): per
 * cohort, how many attempts have a known cost (the pages read it beside the
 * report's cost: an amount, a lower bound, "unavailable (n)" or "not
 * applicable"; the cost chart places only cohorts with one). On the demo the
 * facts agree with the report's figures and with the attempt index, summed
 * attempt by attempt from the verified tables (a second route to the same
 * numbers); the site model carries them for the current and the retained
 * reports; the page texts read them, never the attempts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleDirs, configPath, loadConfigFile } from '../../src/config/config.ts';
import { runPipeline } from '../../src/run/pipeline.ts';
import { cohortMoney, cohortsMoney } from '../../src/facts/money.ts';
import { moneyText } from '../../src/site/views/format.ts';
import { leaderboardCsv } from '../../src/site/build/data-files.ts';
import type { ReportCohort } from '../../src/report/schema.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { readRetained } from '../../src/history/retained-reports.ts';

const root = new URL('../..', import.meta.url).pathname;
const loaded = await loadConfigFile(join(root, 'ledgerboard.config.json'));
const retainedDir = configPath(loaded, loaded.config.retained_reports_dir);

const cost = (over: Partial<ReportCohort['cost']>): ReportCohort['cost'] => ({ currency: 'USD', micros: 0, complete: true, unavailable: 0, partial: 0, not_applicable: 0, zero: 0, ...over });

describe('a cohort\'s money facts', () => {
  it('count the attempts with a known cost (complete or partial), never those unavailable or not applicable; the text reads them', () => {
    const none = { attempts: 80, cost: cost({ micros: 0, complete: false, unavailable: 72, not_applicable: 8 }) };
    expect(cohortMoney(none)).toEqual({ known: 0 });
    expect(moneyText(none.cost, cohortMoney(none).known)).toBe('unavailable (72)');
    const inapplicable = { attempts: 5, cost: cost({ currency: null, not_applicable: 5 }) };
    expect(cohortMoney(inapplicable)).toEqual({ known: 0 });
    expect(moneyText(inapplicable.cost, 0)).toBe('not applicable');
    // 6 attempts: 1 unavailable, 1 partial, 1 not applicable: 4 known, the total a lower bound (rounded down).
    const some = { attempts: 6, cost: cost({ micros: 4_146_678, complete: false, unavailable: 1, partial: 1, not_applicable: 1 }) };
    expect(cohortMoney(some)).toEqual({ known: 4 });
    expect(moneyText(some.cost, cohortMoney(some).known)).toBe('>= USD 4.14 (1 unavailable, 1 partial)');
    expect(moneyText(cost({ micros: 2_500_000 }), 3)).toBe('USD 2.50');
  });

  it('on the demo: the report\'s figures, the attempt index summed attempt by attempt, the model\'s members and the CSV agree', async () => {
    const run = await runPipeline({ paths: bundleDirs(loaded), config: loaded.config, retainedDir, requireBundles: true, siteFacts: true });
    const { report, facts } = { report: run.report, facts: run.facts! };
    expect(facts.cohortMoney).toHaveLength(32);
    expect(facts.cohortMoney).toEqual(report.cohorts.map((c) => ({ known: c.attempts - c.cost.unavailable - c.cost.not_applicable })));
    // 1,388 attempts in 32 cohorts; 651 with a known cost; 26 cohorts with none (the imported ones: the sources record no cost).
    expect(report.cohorts.reduce((n, c) => n + c.attempts, 0)).toBe(1388);
    expect(facts.cohortMoney.reduce((n, m) => n + m.known, 0)).toBe(651);
    expect(facts.cohortMoney.filter((m) => m.known === 0)).toHaveLength(26);
    // A second route: the attempt index (src/facts/attempt-index.ts) sums each cohort's cells task by task from the tables.
    const index = facts.attemptIndex!;
    expect(index).toBeDefined();
    for (const [i, c] of report.cohorts.entries()) {
      const board = report.boards.find((b) => b.cohorts.includes(c.cohort_id))!;
      const at = board.cohorts.indexOf(c.cohort_id);
      const cells = index.boards[board.board_id]!.tasks.map((t) => t.cells[at]!);
      const attempts = cells.reduce((n, cell) => n + cell.classes.reduce((a, b) => a + b, 0), 0);
      const unknown = cells.reduce((n, cell) => n + cell.cost.unavailable + cell.cost.not_applicable, 0);
      expect({ attempts, known: attempts - unknown, micros: cells.reduce((n, cell) => n + cell.cost.micros, 0) }, c.cohort_id).toEqual({ attempts: c.attempts, known: facts.cohortMoney[i]!.known, micros: c.cost.micros });
    }
    // The model carries them (the pages read them): the current report's, and each retained report's from the same function.
    const model = await modelOf(report, run.results, publishedOf(report, run.results), loaded.config, { retained: await readRetained(retainedDir), sourceDate: null, history: run.history!, facts });
    expect(model.cohortMoney).toEqual(facts.cohortMoney);
    expect(model.retained.map((r) => r.cohortMoney.length)).toEqual([10, 21]);
    for (const r of model.retained) expect(r.cohortMoney).toEqual(cohortsMoney(r.report!));
    // The CSV's cost column reads the facts: other facts, other text (the attempts are not counted again).
    const csv = leaderboardCsv(model);
    const firstKnown = facts.cohortMoney.findIndex((m) => m.known > 0);
    const cohort = report.cohorts[firstKnown]!;
    const zeroed = { ...model, cohortMoney: model.cohortMoney.map((m, j) => (j === firstKnown ? { known: 0 } : m)) };
    const changed = leaderboardCsv(zeroed);
    expect(changed).not.toBe(csv);
    const row = (text: string) => text.split('\n').find((l) => l.includes(cohort.cohort_id))!;
    expect(row(csv)).toContain(moneyText(cohort.cost, facts.cohortMoney[firstKnown]!.known));
    expect(row(changed)).toContain(cohort.cost.unavailable > 0 ? `unavailable (${cohort.cost.unavailable})` : 'not applicable');
  }, 120_000);
});
