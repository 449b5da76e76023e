/**
 * The lm-eval mapping on small synthetic runs, hand-checked: tasks, attempts,
 * verdicts per value type, created_at from `date`, unknown time, tokens and
 * cost, NOTES lines, flags, and every refusal (with its stable message start).
 */
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../../src/evidence/seal.ts';
import { lmEvalImporter } from '../../../src/import/lmeval/importer.ts';
import { metricVerdict, parseGraderId } from '../../../src/import/lmeval/map.ts';
import { unixToUtc } from '../../../src/import/lmeval/time.ts';
import { rejection } from '../helpers.ts';
import { basicRun, jsonlOf, jsonOf, line, mapRun, notesOf, results, run, STAMP, verdicts } from './helpers.ts';

const R = `results_${STAMP}.json`;
const S = (task: string) => `samples_${task}_${STAMP}.jsonl`;

describe('one run, mapped', () => {
  it('one task per (task, doc_id) in doc order; one completed attempt each; unknown time, tokens and cost', async () => {
    const b = await mapRun(basicRun());
    const ledger = jsonlOf(b, 'ledger.jsonl');
    expect(ledger.map((l) => l.task_id)).toEqual(['t/0', 't/1']);
    expect(ledger[0]).toMatchObject({ license: 'MIT', holdout: true, cluster_id: 't/0', created_at: '2026-02-01T09:00:00.5Z', repo: null });
    // The prompt digest is lm-eval's own prompt_hash (the SHA-256 of the first request's context), checked.
    expect(ledger[0]!.prompt_sha256).toBe(`sha256:${line(0).prompt_hash as string}`);
    const attempts = jsonlOf(b, 'attempts.jsonl');
    expect(attempts[0]).toEqual({
      attempt_id: 'a-000001',
      task_id: 't/0',
      model: 'acme/tiny@abc123',
      agent: { name: 'lm-evaluation-harness hf', version: '0.4.9' },
      index: 1,
      observed_model: 'acme/tiny@abc123',
      outcome: 'completed',
      started_at: '2026-02-01T09:00:00.5Z',
      ended_at: '2026-02-01T09:00:00.5Z',
      wall_seconds: 0,
      tokens: null,
      retries: 0,
      cost: { state: 'unavailable', micros: null },
      patch: null,
    });
    expect(verdicts(b)).toEqual(['pass', 'fail']);
    const plan = jsonOf(b, 'plan.json');
    expect(plan).toMatchObject({
      title: 't (imported lm-eval run)',
      created_at: '2026-02-01T09:00:00.5Z',
      budget: null,
      attempts: 1,
      seed: 0,
      subjects: [{ selector: 'acme/tiny', model: 'acme/tiny@abc123', role: 'candidate' }],
      grader: { profile: 'lm-eval-metric', id: 'acc,none', version: '0.4.9' },
      origin: { kind: 'imported', format: 'lm-eval-harness' },
    });
    // The originals are kept, the results file first; origin.source is its digest.
    expect([...b.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual([`source/${R}`, `source/${S('t')}`]);
    expect(b.summary).toMatchObject({ tasks: 2, attempts: 2, epochs: 1, scorer: 'acc,none', status: 'not recorded' });
    const notes = notesOf(b);
    expect(notes).toContain('- 2 docs without token counts: tokens unknown (null)');
    expect(notes).toContain('- 2 docs without a cost: cost unavailable');
    expect(notes).toContain('wall_seconds 0');
    expect(notes).not.toContain('No usable grades');
  });

  it('several tasks: byte order of task names, every subtask its own docs; groups and tasks without samples are said', async () => {
    const res = results({ b: {}, a: {}, c: {} }, { group_subtasks: { g: ['a', 'b', 'c'] } });
    (res.results as Record<string, unknown>).g = { 'acc,none': 1 };
    const b = await mapRun(run({ [R]: res, [S('b')]: [line(0), line(1)], [S('a')]: [line(1), line(0)] }));
    expect(jsonlOf(b, 'ledger.jsonl').map((l) => l.task_id)).toEqual(['a/0', 'a/1', 'b/0', 'b/1']);
    expect(jsonOf(b, 'plan.json').title).toBe('a and 1 more task (imported lm-eval run)');
    expect(notesOf(b)).toContain('- 1 task in the results without a samples file: not imported');
    expect(notesOf(b)).toContain('- 1 group in the results (aggregates over subtasks)');
  });

  it('only the chosen filter is imported; other filters and metrics are said', async () => {
    const lines = [line(0, { filter: 'strict', exact_match: 1, metrics: ['exact_match'] }), line(0, { filter: 'flex', exact_match: 0, metrics: ['exact_match'] })];
    const input = run({ [R]: results({ t: { effective: 1 } }), [S('t')]: [...lines, line(1, { filter: 'strict', exact_match: 0, metrics: ['exact_match', 'other'] })] });
    expect(await rejection(mapRun(input))).toBe('task "t" has samples under 2 filters and none is "none" (it has: "flex", "strict"): choose one with --filter (for this task: --filter t=NAME)');
    // effective 1 but the strict filter holds 2 docs: not one run.
    expect(await rejection(mapRun(input, { filter: 'strict', metric: 'exact_match' }))).toMatch(/^samples_t_.*holds 2 docs under the filter "strict", but .* evaluated 1 \(n-samples effective\)/);
    const ok = run({ [R]: results({ t: { effective: 1 } }), [S('t')]: lines });
    const b = await mapRun(ok, { filter: 'flex', metric: 'exact_match' });
    expect(verdicts(b)).toEqual(['fail']);
    expect(jsonOf(b, 'plan.json').grader).toMatchObject({ id: 'exact_match,flex' });
    expect(notesOf(b)).toContain('- 1 sample line under other filters not imported');
    const strict = await mapRun(ok, { filter: 'strict', metric: 'exact_match' });
    expect(verdicts(strict)).toEqual(['pass']);
    expect(lmEvalImporter.rerunFlags!({ grader: { id: 'exact_match,flex' } })).toEqual([['--metric', 'exact_match'], ['--filter', 'flex']]);
    // The metric is always given: the default metric depends on the results file, the grader id alone cannot say it was the default.
    expect(lmEvalImporter.rerunFlags!({ grader: { id: 'acc,none' } })).toEqual([['--metric', 'acc']]);
    expect(lmEvalImporter.rerunFlags!({ grader: { id: 'f1,none>=0.5' } })).toEqual([['--metric', 'f1'], ['--pass-threshold', '0.5']]);
  });
});

describe('the pass rule', () => {
  it('booleans and 0/1 numbers are pass/fail; anything else is error', () => {
    expect([true, false, 1, 0, 1.0, 0.5, null, 'C', [1], Number.NaN].map((v) => metricVerdict(v, null))).toEqual([
      'pass', 'fail', 'pass', 'fail', 'pass', 'error', 'error', 'error', 'error', 'error',
    ]);
    expect([0.5, 0.49, 1, 0, true, 'x'].map((v) => metricVerdict(v, 0.5))).toEqual(['pass', 'fail', 'pass', 'fail', 'pass', 'error']);
  });

  it('a continuous metric is refused without --pass-threshold, graded with it; the threshold is in the grader', async () => {
    const input = run({ [R]: results({ t: {} }), [S('t')]: [line(0, { f1: 0.75 }), line(1, { f1: 0.25 })] });
    expect(await rejection(mapRun(input, { metric: 'f1' }))).toBe(
      'the metric f1 of task "t" (filter none) is continuous (2 docs with a value other than 0 or 1): give --pass-threshold N (a value >= N passes), or choose a 0/1 metric with --metric',
    );
    const b = await mapRun(input, { metric: 'f1', 'pass-threshold': '0.5' });
    expect(verdicts(b)).toEqual(['pass', 'fail']);
    const grader = jsonOf(b, 'plan.json').grader as { id: string; executable: string };
    expect(grader.id).toBe('f1,none>=0.5');
    expect(parseGraderId(grader.id)).toEqual({ all: { metric: 'f1', filter: 'none', direction: 'higher', threshold: '0.5' }, tasks: null });
    const other = await mapRun(input, { metric: 'f1', 'pass-threshold': '0.8' });
    expect((jsonOf(other, 'plan.json').grader as { executable: string }).executable).not.toBe(grader.executable);
    expect(verdicts(other)).toEqual(['fail', 'fail']);
  });

  it('a corpus-level metric (lists per doc) is refused; a few non-numbers grade error and are said', async () => {
    const corpus = run({ [R]: results({ t: {} }), [S('t')]: [line(0, { f1: ['gold', ['pred']] }), line(1, { f1: ['gold', ['x']] })] });
    expect(await rejection(mapRun(corpus, { metric: 'f1' }))).toMatch(/^no doc of task "t" has a number or a boolean as its f1 value \(filter none\): lm-eval aggregates/);
    const some = run({ [R]: results({ t: {} }), [S('t')]: [line(0, { acc: 'N/A' }), line(1, { acc: true })] });
    const b = await mapRun(some);
    expect(verdicts(b)).toEqual(['error', 'pass']);
    expect(notesOf(b)).toContain('- 1 doc whose metric value the rule cannot read (not a number or a boolean; a boolean under a lower-is-better metric): verdict error');
  });

  it('NaN (read as null) grades error and is counted; a run with no number or boolean at all is refused, so an import always has a usable grade', async () => {
    const b = await mapRun(run({ [R]: results({ t: {} }), [S('t')]: `${JSON.stringify(line(0)).replace('"acc":1', '"acc":NaN')}\n${JSON.stringify(line(1, { acc: false }))}\n` }));
    expect(verdicts(b)).toEqual(['error', 'fail']);
    expect(notesOf(b)).toContain('1 non-finite number (NaN or Infinity) in the files read as null');
  });
});

describe('created_at from the run date', () => {
  it('Unix seconds to RFC 3339 UTC, to the microsecond, by arithmetic', () => {
    expect(unixToUtc(1790921714.0712206)).toBe('2026-10-02T06:15:14.071221Z');
    expect(unixToUtc(1737419939.4888458)).toBe('2025-01-21T00:38:59.488846Z');
    expect(unixToUtc(0)).toBe('1970-01-01T00:00:00Z');
    expect(unixToUtc(-1)).toBeNull();
    expect(unixToUtc(1e15)).toBeNull();
    expect(unixToUtc(Number.NaN)).toBeNull();
  });

  it('a run without date is refused: no start is invented', async () => {
    expect(await rejection(mapRun(run({ [R]: results({ t: {} }, { date: null }), [S('t')]: [line(0), line(1)] })))).toMatch(/^results_.*\.json records no run start \(date\)/);
    expect(await rejection(mapRun(run({ [R]: results({ t: {} }, { date: -5 }), [S('t')]: [line(0), line(1)] })))).toMatch(/date -5 is not a Unix time/);
  });

  it('the same bytes in any time zone', async () => {
    const saved = process.env.TZ;
    const ids: string[] = [];
    try {
      for (const tz of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
        process.env.TZ = tz;
        const b = await mapRun(basicRun());
        ids.push(JSON.parse(sealManifest(b.files, b.planId).toString('utf8')).bundle_id as string);
      }
    } finally {
      process.env.TZ = saved;
    }
    expect(new Set(ids).size).toBe(1);
  });
});

describe('which files are the run', () => {
  it('several results files are refused with the list, or one is chosen with --results; the rest is not kept and is said', async () => {
    const other = 'results_2026-03-01T00-00-00.json';
    const input = basicRun({ [other]: results({ t: {} }), 'samples_t_2026-03-01T00-00-00.jsonl': [line(0)], 'README.md': '# x', 'sub/results_x.json': '{}' });
    expect(await rejection(mapRun(input))).toBe(`the directory holds 2 runs ("${R}", "${other}"): choose one with --results FILE`);
    const b = await mapRun(input, { results: R });
    expect([...b.files.keys()].filter((p) => p.startsWith('source/'))).toEqual([`source/${R}`, `source/${S('t')}`]);
    // Said on the command line (summary.unkept), never in the bundle: a re-import from the kept files has no other file.
    expect(notesOf(b)).not.toContain('other file');
    expect(b.summary.unkept).toEqual([expect.stringMatching(/^4 other files of the directory not read/)]);
    expect(await rejection(mapRun(input, { results: 'results_nope.json' }))).toMatch(/^--results "results_nope.json" is not a results file at the top of the directory/);
    expect(await rejection(mapRun(input, { results: '../results_x.json' }))).toMatch(/^--results must name a results file at the top of the directory/);
  });

  it('no results file, no samples file, a file input: refused with the reason', async () => {
    expect(await rejection(mapRun(run({ [S('t')]: [line(0)] })))).toMatch(/^the directory holds no results_<timestamp>\.json at its top/);
    expect(await rejection(mapRun(run({ [R]: results({ t: {} }) })))).toMatch(/^results_.*\.json has no samples files \(samples_<task>_.*\.jsonl\) beside it/);
    const file = { name: 'r.json', kind: 'file' as const, files: new Map([['r.json', Buffer.from('{}')]]), skipped: [] };
    expect(await rejection(lmEvalImporter.map(file, { license: '', flags: {}, limits: (await import('../../../src/import/limits.ts')).DEFAULT_IMPORT_LIMITS }))).toMatch(/^an lm-eval run is a directory/);
  });

  it('a samples file of a task the results do not list, a duplicate doc, a missing metric: refused', async () => {
    expect(await rejection(mapRun(basicRun({ [S('z')]: [line(0)] })))).toMatch(/^samples_z_.* is the samples file of task "z", which results_.* does not list in its results/);
    expect(await rejection(mapRun(run({ [R]: results({ t: {} }), [S('t')]: [line(0), line(0)] })))).toMatch(/^samples_t_.* holds doc_id 0 twice under the filter "none" \(line 2\)/);
    expect(await rejection(mapRun(basicRun(), { metric: 'bleu' }))).toMatch(/^samples_t_.* line 1 has no value for the metric "bleu" \(its metrics: "acc,none"\): choose one with --metric and --filter$/);
  });
});

describe('hostile input', () => {
  it('truncated and wrongly typed files are refused with the line', async () => {
    expect(await rejection(mapRun(basicRun({ [S('t')]: '{"doc_id": 0, "doc": {}\n' })))).toMatch(/^samples_t_.*\.jsonl line 1 is not readable JSON/);
    expect(await rejection(mapRun(basicRun({ [S('t')]: `${JSON.stringify(line(0))}\n\n${JSON.stringify(line(1))}\n` })))).toMatch(/line 2 is blank/);
    expect(await rejection(mapRun(basicRun({ [S('t')]: [line(0, { doc_id: '0' }), line(1)] })))).toMatch(/^not lm-eval output: samples_t_.* line 1: doc_id:/);
    expect(await rejection(mapRun(basicRun({ [R]: '{"results": [1]}' })))).toMatch(/^not lm-eval output: results_.*: results:/);
    expect(await rejection(mapRun(basicRun({ [R]: '{"results": {}, "results": {}}' })))).toMatch(/is not readable JSON/);
    expect(await rejection(mapRun(basicRun({ [S('t')]: '[1]\n' })))).toMatch(/line 1 is not a JSON object/);
    expect(await rejection(mapRun(basicRun({ [S('t')]: '' })))).toMatch(/is empty/);
  });

  it('a prompt_hash that is not its prompt is refused; a missing one falls back to the doc and arguments, said', async () => {
    expect(await rejection(mapRun(basicRun({ [S('t')]: [line(0, { prompt_hash: 'a'.repeat(64) }), line(1)] })))).toMatch(/^doc "t\/0": its prompt_hash is not the SHA-256 of its prompt/);
    const b = await mapRun(basicRun({ [S('t')]: [line(0, { prompt_hash: null }), line(1, { acc: 0 })] }));
    expect(notesOf(b)).toContain('- 1 doc without a usable prompt_hash');
  });

  it('markup and shell text in model names, task names and docs is carried as data, never in a path', async () => {
    const evil = '<script>alert(1)</script> $(rm -rf /) "\'\n';
    const res = results({ 'x<y': {} }, { model_name: evil });
    const b = await mapRun(run({ [R]: res, [S('x<y')]: [line(0, { doc: { q: evil } }), line(1)] }));
    expect((jsonOf(b, 'plan.json').subjects as { model: string }[])[0]!.model).toBe(`${evil}@abc123`);
    expect(jsonlOf(b, 'ledger.jsonl')[0]!.task_id).toBe('x<y/0');
    for (const path of b.files.keys()) expect(path).toMatch(/^(plan\.json|ledger\.jsonl|attempts\.jsonl|NOTES\.md|grades\/1\.json|artifacts\/[0-9a-f]{64}\.json|source\/(results|samples)_[^<>$ ]*)$|^source\/samples_x<y_/);
    expect(notesOf(b)).not.toContain('script');
  });

  it('strings over maxStringBytes are refused, never cut; records over maxRecords are refused', async () => {
    expect(await rejection(mapRun(basicRun({ [R]: results({ t: {} }, { model_name: 'm'.repeat(100) }) }), {}, { maxStringBytes: 50 }))).toBe(
      'the model name is 100 bytes long, more than the 50 an import keeps (import_limits.maxStringBytes)',
    );
    expect(await rejection(mapRun(basicRun(), {}, { maxRecords: 1 }))).toBe('the samples files hold more than 1 lines (import_limits.maxRecords)');
  });

  it('bad flag values are usage errors before anything is read', () => {
    expect(() => lmEvalImporter.checkFlags!({ metric: 'acc;rm' })).toThrow(/^--metric must be a metric or filter name/);
    expect(() => lmEvalImporter.checkFlags!({ filter: '' })).toThrow(/^--filter has an empty entry/);
    expect(() => lmEvalImporter.checkFlags!({ filter: 'a b' })).toThrow(/^--filter must be a metric or filter name/);
    expect(() => lmEvalImporter.checkFlags!({ 'pass-threshold': '1e0' })).toThrow(/^--pass-threshold must be a decimal number/);
    expect(() => lmEvalImporter.checkFlags!({ results: 'a/results_x.json' })).toThrow(/^--results must name a results file/);
    expect(() => lmEvalImporter.checkFlags!({ metric: 'pass@1', filter: 'maj@64', 'pass-threshold': '0.5', results: 'results_x.json' })).not.toThrow();
  });
});

describe('sourceMetrics', () => {
  it("the results file's value of the graded metric and its stderr, per imported task ('N/A' is no value)", async () => {
    const b = await mapRun(basicRun());
    const sources = new Map([...b.files].filter(([p]) => p.startsWith('source/')));
    expect(await lmEvalImporter.sourceMetrics!(sources, 'acc,none')).toEqual([
      { name: 't acc,none', value: 0.5 },
      { name: 't acc_stderr,none', value: 0.1 },
    ]);
    expect(await lmEvalImporter.sourceMetrics!(sources, 'bleu,none')).toBeNull();
    expect(await lmEvalImporter.sourceMetrics!(sources, 'none')).toBeNull();
  });
});
