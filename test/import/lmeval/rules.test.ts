/**
 * The lm-eval pass rule per task (issue 26): the results file's
 * higher_is_better decides the direction (a lower-is-better metric passes at
 * or below --pass-threshold), each task's metric by default when its
 * results name exactly one, `task=value` flag entries, the grader id that
 * records it all, the re-run flags that give back the same bundle id, and
 * the plan page's sentence.
 */
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../../src/evidence/seal.ts';
import type { MappedBundle } from '../../../src/import/importer.ts';
import { lmEvalImporter } from '../../../src/import/lmeval/importer.ts';
import { metricVerdict } from '../../../src/import/lmeval/map.ts';
import { parseGraderId, passRuleSentence } from '../../../src/import/lmeval/rules.ts';
import { rejection } from '../helpers.ts';
import { jsonlOf, jsonOf, line, mapRun, notesOf, results, run, STAMP, verdicts } from './helpers.ts';

const R = `results_${STAMP}.json`;
const S = (task: string) => `samples_${task}_${STAMP}.jsonl`;

const bundleId = (b: MappedBundle): string => JSON.parse(sealManifest(b.files, b.planId).toString('utf8')).bundle_id as string;
const graderId = (b: MappedBundle): string => (jsonOf(b, 'plan.json').grader as { id: string }).id;

/** The re-run flags of a bundle as a flags record (what the command line would parse). */
function rerunRecord(b: MappedBundle): Record<string, string> {
  return Object.fromEntries(lmEvalImporter.rerunFlags!({ grader: { id: graderId(b) } }).map(([flag, value]) => [flag!.slice(2), value!]));
}

/** A run of one task `reg` whose per-doc metric is `mae` (an error: lower is better), with the given higher_is_better block. */
function maeRun(higherIsBetter: unknown) {
  const res = results({ reg: {} });
  (res.results as Record<string, unknown>).reg = { alias: 'reg', 'mae,none': 50001.5, 'mae_stderr,none': 'N/A' };
  if (higherIsBetter !== undefined) res.higher_is_better = higherIsBetter;
  return run({ [R]: res, [S('reg')]: [line(0, { metrics: ['mae'], mae: 100000, acc: undefined }), line(1, { metrics: ['mae'], mae: 3, acc: undefined })] });
}

describe('direction: the results file higher_is_better', () => {
  it('a lower-is-better metric passes at or below --pass-threshold: error 1e5 fails, 3 passes, 10 passes', async () => {
    const b = await mapRun(maeRun({ reg: { mae: false } }), { metric: 'mae', 'pass-threshold': '10' });
    expect(verdicts(b)).toEqual(['fail', 'pass']);
    expect(graderId(b)).toBe('mae,none<=10');
    const grades = jsonOf(b, 'grades/1.json').results as { verdict: string }[];
    expect(grades).toHaveLength(2);
    expect(notesOf(b)).toContain("- 1 task graded lower-is-better, as the results file's higher_is_better (false) says for the metric: a value at or below --pass-threshold passes");
    expect(notesOf(b)).not.toContain('by default');
    // At the threshold itself: passes.
    expect([10, 10.000001, 9.99, -1].map((v) => metricVerdict(v, 10, 'lower'))).toEqual(['pass', 'fail', 'pass', 'pass']);
    // A boolean has no order against a lower-is-better threshold.
    expect([true, false, 'x', null, [1]].map((v) => metricVerdict(v, 10, 'lower'))).toEqual(['error', 'error', 'error', 'error', 'error']);
  });

  it('the direction is in the grader id, the re-run flags give back the same bundle id, and the pass rule says it', async () => {
    const input = maeRun({ reg: { mae: false } });
    const b = await mapRun(input, { metric: 'mae', 'pass-threshold': '10' });
    expect(lmEvalImporter.rerunFlags!({ grader: { id: graderId(b) } })).toEqual([['--metric', 'mae'], ['--pass-threshold', '10']]);
    expect(bundleId(await mapRun(input, rerunRecord(b)))).toBe(bundleId(b));
    expect(lmEvalImporter.passRule!({ grader: { id: graderId(b) } })).toBe(
      "Each doc's mae (filter none): resolved at or below 10 (lower is better, as the results file's higher_is_better says); any other value (a list, a string, null, a boolean under a lower-is-better metric) is an error.",
    );
    // The receipt of each doc records the direction and the threshold.
    const receipt = (jsonOf(b, 'grades/1.json').results as { receipt: string }[])[0]!.receipt;
    expect(JSON.parse(Buffer.from(b.files.get(`artifacts/${receipt.slice(7)}.json`)!).toString('utf8'))).toMatchObject({ metric: 'mae', higher_is_better: false, pass_threshold: 10, value: 100000 });
  });

  it('lower is better without --pass-threshold is refused (no 0/1 reading of an error metric)', async () => {
    expect(await rejection(mapRun(maeRun({ reg: { mae: false } }), { metric: 'mae' }))).toBe(
      `the metric mae of task "reg" is lower-is-better (the results file's higher_is_better is false): give --pass-threshold N (a value <= N passes; for this task: --pass-threshold reg=N)`,
    );
  });

  it('higher_is_better true, null (a group whose subtasks disagree) or absent: higher is better, and NOTES says which and why', async () => {
    const recorded = await mapRun(maeRun({ reg: { mae: true } }), { metric: 'mae', 'pass-threshold': '10' });
    expect(verdicts(recorded)).toEqual(['pass', 'fail']);
    expect(graderId(recorded)).toBe('mae,none>=10');
    expect(notesOf(recorded)).toContain("- 1 task graded higher-is-better, as the results file's higher_is_better says for the metric");
    for (const hib of [{ reg: { mae: null } }, { reg: {} }, {}, undefined, null]) {
      const b = await mapRun(maeRun(hib), { metric: 'mae', 'pass-threshold': '10' });
      expect(verdicts(b)).toEqual(['pass', 'fail']);
      expect(notesOf(b)).toContain('- 1 task graded higher-is-better by default: the results file records no higher_is_better for the metric');
    }
  });

  it('higher_is_better of the wrong type is refused: not lm-eval output', async () => {
    for (const hib of ['yes', 5, [], { reg: 'false' }, { reg: { mae: 'false' } }, { reg: { mae: 0 } }, { reg: [false] }]) {
      expect(await rejection(mapRun(maeRun(hib), { metric: 'mae', 'pass-threshold': '10' }))).toMatch(/^not lm-eval output: results_.*\.json: higher_is_better/);
    }
  });
});

/** Two tasks: `a` graded by acc (0/1), `b` by mae (lower is better); each results entry names one metric. */
function mixedRun(extra: { bMetrics?: Record<string, unknown> } = {}) {
  const res = results({ a: {}, b: {} }, { higher_is_better: { a: { acc: true }, b: { mae: false } } });
  (res.results as Record<string, unknown>).b = { alias: 'b', 'mae,none': 4, 'mae_stderr,none': 1, ...extra.bMetrics };
  return run({
    [R]: res,
    [S('a')]: [line(0), line(1, { acc: 0 })],
    [S('b')]: [line(0, { metrics: ['mae'], mae: 2, acc: undefined }), line(1, { metrics: ['mae'], mae: 6, acc: undefined })],
  });
}

describe('per-task metrics', () => {
  it('by default each task is graded by its only metric; the rules differ, so the grader id names each task', async () => {
    const b = await mapRun(mixedRun(), { 'pass-threshold': 'b=5' });
    expect(jsonlOf(b, 'ledger.jsonl').map((l) => l.task_id)).toEqual(['a/0', 'a/1', 'b/0', 'b/1']);
    expect(verdicts(b)).toEqual(['pass', 'fail', 'pass', 'fail']);
    expect(graderId(b)).toBe('a=acc,none; b=mae,none<=5');
    expect(parseGraderId(graderId(b))).toEqual({
      all: null,
      tasks: new Map([
        ['a', { metric: 'acc', filter: 'none', direction: 'higher', threshold: null }],
        ['b', { metric: 'mae', filter: 'none', direction: 'lower', threshold: '5' }],
      ]),
    });
    expect(notesOf(b)).toContain("- 1 task graded higher-is-better, as the results file's higher_is_better says for the metric");
    expect(notesOf(b)).toContain("- 1 task graded lower-is-better, as the results file's higher_is_better (false) says for the metric");
    expect(b.summary).toMatchObject({ tasks: 4, attempts: 4, scorer: 'a=acc,none; b=mae,none<=5' });
  });

  it('the re-run flags are the per-task flags that give back the same bundle id; the pass rule names each task', async () => {
    const input = mixedRun();
    const b = await mapRun(input, { 'pass-threshold': 'b=5' });
    expect(lmEvalImporter.rerunFlags!({ grader: { id: graderId(b) } })).toEqual([['--metric', 'a=acc,b=mae'], ['--pass-threshold', 'b=5']]);
    expect(bundleId(await mapRun(input, rerunRecord(b)))).toBe(bundleId(b));
    // Written another way (a value for every task and one entry), the same rules: the same bundle.
    expect(bundleId(await mapRun(input, { metric: 'acc,b=mae', 'pass-threshold': 'b=5' }))).toBe(bundleId(b));
    expect(lmEvalImporter.passRule!({ grader: { id: graderId(b) } })).toBe(
      "Each doc by its task's metric: a: acc (filter none): 1 or true is resolved, 0 or false is not; b: mae (filter none): resolved at or below 5 (lower is better, as the results file's higher_is_better says); any other value (a list, a string, null, a boolean under a lower-is-better metric) is an error.",
    );
    expect(passRuleSentence('a=acc,none; b=acc,none; c=acc,none; d=acc,none; e=f1,strict>=0.5')).toBe(
      "Each doc by its task's metric: 4 tasks: acc (filter none): 1 or true is resolved, 0 or false is not; e: f1 (filter strict): resolved at or above 0.5 (higher is better); any other value (a list, a string, null, a boolean under a lower-is-better metric) is an error.",
    );
  });

  it('one threshold for every task applies in each task own direction', async () => {
    const b = await mapRun(mixedRun(), { 'pass-threshold': '0.5' });
    // a: acc >= 0.5 (1 pass, 0 fail); b: mae <= 0.5 (2 and 6 fail).
    expect(verdicts(b)).toEqual(['pass', 'fail', 'fail', 'fail']);
    expect(graderId(b)).toBe('a=acc,none>=0.5; b=mae,none<=0.5');
    expect(lmEvalImporter.rerunFlags!({ grader: { id: graderId(b) } })).toEqual([['--metric', 'a=acc,b=mae'], ['--pass-threshold', 'a=0.5,b=0.5']]);
  });

  it('a task whose results name several metrics is refused with the list; the default is never a name the results file lacks', async () => {
    const ambiguous = mixedRun({ bMetrics: { 'rmse,none': 3 } });
    expect(await rejection(mapRun(ambiguous, { 'pass-threshold': 'b=5' }))).toBe(
      'task "b" has 2 metrics in the results file ("mae", "rmse") under the filter "none": choose one with --metric (for this task: --metric b=NAME)',
    );
    expect(verdicts(await mapRun(ambiguous, { metric: 'b=mae', 'pass-threshold': 'b=5' }))).toEqual(['pass', 'fail', 'pass', 'fail']);
    // The results name acc_norm only; the lines also log acc: the default is acc_norm, never acc.
    const res = results({ t: {} });
    (res.results as Record<string, unknown>).t = { 'acc_norm,none': 0.5, 'acc_norm_stderr,none': 0.1 };
    const normOnly = run({ [R]: res, [S('t')]: [line(0, { acc_norm: 0, metrics: ['acc', 'acc_norm'] }), line(1, { acc_norm: 1, metrics: ['acc', 'acc_norm'] })] });
    const b = await mapRun(normOnly);
    expect(graderId(b)).toBe('acc_norm,none');
    expect(verdicts(b)).toEqual(['fail', 'pass']);
    // No metric at all under the filter: refused, never "acc" by default.
    (res.results as Record<string, unknown>).t = { alias: 't' };
    expect(await rejection(mapRun(run({ [R]: res, [S('t')]: [line(0), line(1)] })))).toBe(
      'the results file names no metric of task "t" under the filter "none": choose one with --metric (for this task: --metric t=NAME)',
    );
  });

  it('per-task filters: the default is "none" where a task has it, else its only filter; several without "none" need --filter', async () => {
    const res = results({ g: { effective: 2 }, a: {} });
    (res.results as Record<string, unknown>).g = { 'exact_match,strict-match': 0.5, 'exact_match,flexible-extract': 1 };
    const gLines = [0, 1].flatMap((i) => [
      line(i, { filter: 'strict-match', metrics: ['exact_match'], exact_match: i === 0 ? 1 : 0, acc: undefined }),
      line(i, { filter: 'flexible-extract', metrics: ['exact_match'], exact_match: 1, acc: undefined }),
    ]);
    const input = run({ [R]: res, [S('g')]: gLines, [S('a')]: [line(0), line(1, { acc: 0 })] });
    expect(await rejection(mapRun(input))).toBe(
      'task "g" has samples under 2 filters and none is "none" (it has: "flexible-extract", "strict-match"): choose one with --filter (for this task: --filter g=NAME)',
    );
    const b = await mapRun(input, { filter: 'g=strict-match' });
    expect(graderId(b)).toBe('a=acc,none; g=exact_match,strict-match');
    expect(verdicts(b)).toEqual(['pass', 'fail', 'pass', 'fail']);
    expect(lmEvalImporter.rerunFlags!({ grader: { id: graderId(b) } })).toEqual([['--metric', 'a=acc,g=exact_match'], ['--filter', 'g=strict-match']]);
    expect(bundleId(await mapRun(input, rerunRecord(b)))).toBe(bundleId(b));
    expect(notesOf(b)).toContain('- 2 sample lines under other filters not imported');
  });
});

describe('per-task flags: hostile values', () => {
  const mapped = (flags: Record<string, string>, limits = {}) => rejection(mapRun(mixedRun(), flags, limits));

  it('a task the run does not have, a task named twice, empty entries, tasks and values: refused with the reason', async () => {
    expect(await mapped({ metric: 'zz=acc', 'pass-threshold': 'b=5' })).toBe('--metric names the task "zz", which this run has no samples file for (its tasks: "a", "b")');
    expect(await mapped({ 'pass-threshold': 'b=5,c=1' })).toBe('--pass-threshold names the task "c", which this run has no samples file for (its tasks: "a", "b")');
    expect(await mapped({ filter: 'A=none', 'pass-threshold': 'b=5' })).toMatch(/^--filter names the task "A", which this run has no samples file for/);
    const usage = (flags: Record<string, string>) => {
      try {
        lmEvalImporter.checkFlags!(flags);
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(usage({ metric: 'a=acc,a=mae' })).toBe('--metric names the task "a" twice: give each task once');
    expect(usage({ metric: 'acc,mae' })).toBe('--metric gives more than one value for every task: give one VALUE and TASK=VALUE entries for the others');
    expect(usage({ metric: 'a=acc,' })).toBe('--metric has an empty entry: give VALUE or TASK=VALUE, comma-separated, without empty entries');
    expect(usage({ metric: ',a=acc' })).toMatch(/^--metric has an empty entry/);
    expect(usage({ metric: '=acc' })).toBe('--metric has an entry without a task name before "=": give TASK=VALUE');
    expect(usage({ metric: 'a=' })).toBe('--metric gives no value for the task "a": give TASK=VALUE');
    expect(usage({ filter: 'a==x' })).toMatch(/^--filter must be a metric or filter name/);
    expect(usage({ metric: 'a b=acc' })).toBe('--metric names the task "a b": a task name is letters, digits and "_@.+-"');
    expect(usage({ metric: '../x=acc' })).toMatch(/^--metric names the task "..\/x": a task name is letters/);
    expect(usage({ metric: 'a=acc;rm' })).toMatch(/^--metric must be a metric or filter name/);
    expect(usage({ 'pass-threshold': 'b=1e3' })).toMatch(/^--pass-threshold must be a decimal number/);
    expect(usage({ 'pass-threshold': 'b=0.5,b=1' })).toBe('--pass-threshold names the task "b" twice: give each task once');
    expect(usage({ 'pass-threshold': '0.5,b=10', metric: 'acc,b=mae', filter: 'none,a=none' })).toBe('accepted');
  });

  it('a flag or a task name past import_limits.maxStringBytes is refused, never cut', async () => {
    expect(await mapped({ metric: `${'t'.repeat(40)}=acc`, 'pass-threshold': 'b=5' }, { maxStringBytes: 30 })).toBe(
      '--metric is 44 bytes long, more than the 30 an import keeps (import_limits.maxStringBytes)',
    );
  });
});
