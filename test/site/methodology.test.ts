/**
 * /methodology/ is written once (src/site/views/methodology-text.ts); this holds it
 * to docs/analysis.md, docs/formulas.md and the code, so the page cannot drift:
 * every class and verdict the report schema knows is defined on the page and
 * named in the docs, the verdicts are tried in the order the docs state, the
 * constants are the analysis's own and appear in the docs, and the acceptance
 * sentence renders the config's number. Also format.ts placeholderLike.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRIFT_ALPHA } from '../../src/analysis/drift.ts';
import { pairedBootstrapDelta, Z95 } from '../../src/analysis/stats.ts';
import { ReportCohort } from '../../src/report/schema.ts';
import { placeholderLike } from '../../src/site/views/format.ts';
import { acceptanceText, allTerms, BOOTSTRAP_RESAMPLES, CLASS_TERMS, METHODOLOGY, VERDICT_TERMS } from '../../src/site/views/methodology-text.ts';

const ROOT = join(import.meta.dirname, '..', '..');
// The docs with their line breaks as spaces (a phrase may wrap anywhere in the Markdown).
const doc = (name: string): string => readFileSync(join(ROOT, 'docs', name), 'utf8').replace(/\s+/g, ' ');
const analysis = doc('analysis.md');
const formulas = doc('formulas.md');
const format = doc('format.md');
const page = allTerms()
  .flatMap((t) => [t.term, ...t.text])
  .join('\n');

describe('methodology text against the docs and the code', () => {
  it('defines every task class and verdict of the report schema, each named in the docs', () => {
    const shape = ReportCohort.shape as unknown as { verdict: { unwrap: () => { options: string[] } }; tasks: { element: { shape: { class: { options: string[] } } } } };
    const verdicts = shape.verdict.unwrap().options;
    const classes = shape.tasks.element.shape.class.options;
    expect(VERDICT_TERMS.map((t) => t.term).sort()).toEqual([...verdicts].sort());
    expect(CLASS_TERMS.map((t) => t.term).sort()).toEqual([...classes].sort());
    for (const name of [...verdicts, ...classes]) {
      expect(format + analysis + formulas, name).toContain(name);
      expect(allTerms().some((t) => t.id === (verdicts.includes(name) ? `verdict-${name}` : `class-${name}`)), name).toBe(true);
    }
  });

  it('tries the verdicts in the order docs/analysis.md states', () => {
    const stated = /\*\*Verdicts\.\*\* The first that applies: (.*?)\. Because/.exec(analysis)![1]!;
    const order = ['REGRESSION', 'NO_VERDICT', 'PASS', 'NO_GAIN'].sort((a, b) => stated.indexOf(a) - stated.indexOf(b));
    expect(VERDICT_TERMS.map((t) => t.term)).toEqual(order);
  });

  it('the constants are the analysis code\'s and the docs\'', () => {
    expect(page).toContain(String(Z95));
    expect(formulas).toContain(String(Z95));
    expect(pairedBootstrapDelta([{ candidate: { resolved: 1, graded: 1 }, baseline: { resolved: 0, graded: 1 } }], 'seed').resamples).toBe(BOOTSTRAP_RESAMPLES);
    expect(formulas).toContain(`resamples (default ${BOOTSTRAP_RESAMPLES})`);
    expect(page).toContain(`${BOOTSTRAP_RESAMPLES} resamples`);
    // Nearest-rank percentiles: s[49] and s[1949] for B = 2000 in the docs are the 50th and 1950th smallest on the page.
    expect(formulas).toContain('`s[49]` and `s[1949]`');
    expect(page).toContain('the 50th and 1950th smallest');
    expect(page).toContain(`p < ${DRIFT_ALPHA}`);
    expect(analysis).toContain(`p < ${DRIFT_ALPHA}`);
  });

  it('ranks as docs/analysis.md says (competition ranking, 1, 2, 2, 4), and the rank ranges as FORMAT.md 7.6 and docs/formulas.md define them', () => {
    expect(analysis).toContain('competition ranking (equal rates share a rank: 1, 2, 2, 4)');
    expect(page).toContain('competition ranking');
    expect(page).toContain('1, 2, 2, 4');
    expect(page).toContain('cohort id');
    expect(format).toContain('### 7.6 Pairs and rank ranges');
    expect(page).toContain('FORMAT.md 7.6');
    // The range: the docs' formula, word for word, and what "1-4" on a board of four means.
    expect(analysis).toContain('[1 + the cohorts that beat it, N - the cohorts it beats]: "1-4" on a board of four means no pair could be told apart');
    expect(page).toContain('[1 + the cohorts that beat it, N - the cohorts it beats] on a board of N cohorts: "1-4" on a board of four means no pair could be told apart');
    expect(format).toContain('[1 + the number of cohorts that beat it, N - the number it beats]');
    // The test behind it: exact two-sided sign test, ties dropped, Holm over the board's pairs, adjusted p below 0.05.
    expect(format).toContain('The exact two-sided sign test');
    expect(page).toContain('exact two-sided sign test');
    expect(format).toContain('(ties drop out)');
    expect(page).toContain('ties drop out');
    expect(format).toContain("Holm's step-down adjustment");
    expect(page).toContain('Holm\u2019s step-down adjustment');
    expect(format).toContain('When the adjusted p < 0.05 and n_a != n_b, the side with more tasks in its favour beats the other');
    expect(page).toContain('when the adjusted p is below 0.05 the side with more tasks in its favour beats the other');
    // The resolution: 6 tasks one way before the adjustment (2 / 64 < 0.05 < 2 / 32).
    expect(formulas).toContain('at least 6 tasks in one direction and none in the other to reach `p < 0.05` before adjustment');
    expect(page).toContain('at least 6 tasks in one direction to reach p < 0.05 before the adjustment');
    expect(2 / 2 ** 6).toBeLessThan(0.05);
    expect(2 / 2 ** 5).toBeGreaterThan(0.05);
    // The table's caption links to the section (src/components/BoardTable.astro).
    expect(METHODOLOGY.some((s) => s.id === 'ranks' && s.terms.some((t) => t.id === 'rank') && s.terms.some((t) => t.id === 'rank-by-rate'))).toBe(true);
  });

  it('the cost words are the ones pages print (unavailable (N), not applicable, >= for a lower bound)', () => {
    expect(analysis).toContain('`unavailable (N)`');
    expect(analysis).toContain('`not applicable`');
    for (const words of ['unavailable (72)', 'not applicable', '>= USD', 'never added as zero']) expect(page).toContain(words);
    expect(analysis).toContain('Unavailable cost is never added as zero');
  });

  it('anchors are unique and stable (letters, digits, -, _)', () => {
    const ids = [...METHODOLOGY.map((s) => s.id), ...allTerms().map((t) => t.id), 'acceptance'];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z][A-Za-z0-9_-]*$/);
    for (const id of ['board', 'cohort', 'headline', 'delta', 'bootstrap', 'wilson', 'rank', 'cost', 'imported', 'verdict-PASS', 'verdict-NO_GAIN', 'verdict-REGRESSION', 'verdict-NO_VERDICT', 'class-IMPROVED']) {
      expect(ids).toContain(id);
    }
  });

  it('the acceptance sentence renders the config number, as the analysis states the rule', () => {
    expect(acceptanceText({ min_improved: 1 })).toBe('PASS needs regressed = 0 and improved >= 1: no headline task regressed and at least 1 headline task improved.');
    expect(acceptanceText({ min_improved: 3 })).toContain('improved >= 3');
    expect(acceptanceText({ min_improved: 0 })).toContain('improved >= 0');
    expect(analysis).toContain('PASS needs regressed = 0 and improved >= `min_improved`');
  });
});

describe('placeholderLike', () => {
  it('empty, whitespace, invisible-only and punctuation-only values look like placeholders', () => {
    for (const v of ['', ' ', '   ', '\t\n', '\u200b', '...', '…', '-', '---', '?', '???', '*', '_', ' ... ']) expect(placeholderLike(v), JSON.stringify(v)).toBe(true);
  });
  it('names do not', () => {
    for (const v of ['acme/mini', 'a', '.x', '1.0', 'v...', '...a', 'loop', '0']) expect(placeholderLike(v), JSON.stringify(v)).toBe(false);
  });
});
