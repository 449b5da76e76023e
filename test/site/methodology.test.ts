/**
 * /methodology/ is written once (src/site/methodology-text.ts); this holds it
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
import { placeholderLike } from '../../src/site/format.ts';
import { acceptanceText, allTerms, BOOTSTRAP_RESAMPLES, CLASS_TERMS, METHODOLOGY, VERDICT_TERMS } from '../../src/site/methodology-text.ts';

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

  it('ranks as docs/analysis.md says (competition ranking, 1, 2, 2, 4), and names the coming rank ranges of FORMAT.md 7.6', () => {
    expect(analysis).toContain('competition ranking (equal rates share a rank: 1, 2, 2, 4)');
    expect(page).toContain('competition ranking');
    expect(page).toContain('1, 2, 2, 4');
    expect(page).toContain('cohort id');
    expect(format).toContain('### 7.6 Pairs and rank ranges');
    expect(page).toContain('FORMAT.md 7.6');
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
