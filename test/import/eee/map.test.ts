/**
 * The Every Eval Ever mapping on minimal synthetic inputs (hand-checked):
 * tasks, attempts, verdicts per pass rule, tokens / cost / time as recorded
 * or unknown, created_at, NOTES.md lines, and every refusal with its stable
 * message start (hostile input included).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { eeeImporter } from '../../../src/import/eee/importer.ts';
import { eeeTimestamp } from '../../../src/import/eee/time.ts';
import { rejection } from '../helpers.ts';
import { AGG_PATH, aggregate, bundleIdOf, dirInput, json, jsonl, lines, mapInput, notes, row, SIDECAR_PATH, standardInput, standardRows, verifyMapped } from './helpers.ts';

describe('the mapping (binary metric: is_correct decides)', () => {
  it('one task per sample id, one attempt each, graded by the chosen metric', async () => {
    const mapped = await mapInput(standardInput(), { metric: 'r-acc' });
    expect(verifyMapped(mapped).status).toBe('verified');
    const plan = json(mapped, 'plan.json');
    expect(plan).toMatchObject({
      title: 'synthetic-qa (imported Every Eval Ever record, source: Acme Evals)',
      created_at: '2025-05-15T12:32:25.25Z',
      ledger: { name: 'synthetic-qa', tasks: 3 },
      harness: { name: 'acme-eval', version: '1.2.3' },
      grader: { profile: 'every-eval-ever is_correct', id: 'r-acc', version: '0.2.2' },
      subjects: [{ selector: 'Acme Model 1', model: 'acme/model-1', agent: { name: 'acme-eval', version: '1.2.3' }, role: 'candidate' }],
      attempts: 1,
      budget: null,
      seed: 0,
      origin: { kind: 'imported', format: 'every-eval-ever' },
    });
    expect((plan.environment as { isolation: string }).isolation).toBe('every-eval-ever sandbox: docker');
    const ledger = lines(mapped, 'ledger.jsonl');
    expect(ledger.map((t) => [t.task_id, t.license, t.created_at])).toEqual([
      ['s1', 'CC-BY-4.0', '2025-05-15T12:32:25.25Z'],
      ['s2', 'CC-BY-4.0', '2025-05-15T12:32:25.25Z'],
      ['s3', 'CC-BY-4.0', '2025-05-15T12:32:25.25Z'],
    ]);
    const attempts = lines(mapped, 'attempts.jsonl');
    expect(attempts.map((a) => [a.attempt_id, a.task_id, a.index, a.outcome, a.wall_seconds, a.tokens, a.cost, a.retries, a.started_at, a.ended_at])).toEqual([
      ['a-000001', 's1', 1, 'completed', 1.5, { input: 10, output: 2 }, { state: 'unavailable', micros: null }, 0, '2025-05-15T12:32:25.25Z', '2025-05-15T12:32:25.25Z'],
      ['a-000002', 's2', 1, 'completed', 0, { input: 10, output: 2 }, { state: 'unavailable', micros: null }, 0, '2025-05-15T12:32:25.25Z', '2025-05-15T12:32:25.25Z'],
      ['a-000003', 's3', 1, 'completed', 1.5, null, { state: 'unavailable', micros: null }, 0, '2025-05-15T12:32:25.25Z', '2025-05-15T12:32:25.25Z'],
    ]);
    const grades = json(mapped, 'grades/1.json') as { created_at: string; results: { attempt_id: string; verdict: string }[] };
    expect(grades.created_at).toBe('2025-05-15T12:32:25.25Z');
    expect(grades.results.map((r) => [r.attempt_id, r.verdict])).toEqual([
      ['a-000001', 'pass'],
      ['a-000002', 'fail'],
      ['a-000003', 'pass'],
    ]);
    // The originals, byte for byte, the aggregate first under source/.
    const sources = [...mapped.files.keys()].filter((p) => p.startsWith('source/')).sort();
    expect(sources).toEqual([`source/${AGG_PATH}`, `source/${SIDECAR_PATH}`]);
    const text = notes(mapped);
    expect(text).toContain('- 1 other metric (3 rows) of the sidecar not graded: one grading generation grades with one metric (see --metric)');
    expect(text).toContain('- 3 samples without a cost (the schema records none per sample): cost unavailable');
    expect(text).toContain('- 1 sample without token_usage: tokens unknown (null)');
    expect(text).toContain('- 1 sample without latency_ms or generation_time_ms: wall_seconds 0');
    expect(text).toContain('- no seed recorded: plan seed 0');
    expect(text).not.toContain('No usable grades');
    expect(mapped.summary).toMatchObject({ tasks: 3, attempts: 3, epochs: 1, scorer: 'r-acc' });
  });

  it('--metric is needed when the sidecar holds several; the candidates are listed', async () => {
    expect(await rejection(mapInput(standardInput()))).toBe('the sidecar scores its samples with 2 metrics ("r-acc", "r-f1"): choose the one that grades with --metric NAME');
    expect(await rejection(mapInput(standardInput(), { metric: 'nope' }))).toBe('--metric "nope" scores no row of the sidecar; its metrics are "r-acc", "r-f1"');
  });

  it('a row with an error is harness_failure (its grade kept); a sample without the graded row has no grade', async () => {
    const rows = [row('s1', 'r-acc', { error: 'API timeout' }), row('s2', 'r-f1', { evaluation: { score: 1, is_correct: true } }), row('s3', 'r-acc')];
    const mapped = await mapInput(standardInput(rows), { metric: 'r-acc' });
    expect(verifyMapped(mapped).status).toBe('verified');
    expect(lines(mapped, 'attempts.jsonl').map((a) => a.outcome)).toEqual(['harness_failure', 'completed', 'completed']);
    expect((json(mapped, 'grades/1.json').results as { attempt_id: string }[]).map((r) => r.attempt_id)).toEqual(['a-000001', 'a-000003']);
    expect(notes(mapped)).toContain('- 1 sample with an error recorded: outcome harness_failure');
    expect(notes(mapped)).toContain('- 1 sample without a row for the graded metric: no grade (fails closed as grader_failure)');
  });

  it('no usable grade says so', async () => {
    const mapped = await mapInput(standardInput([row('s1', 'r-acc', { error: 'refused' })]), { metric: 'r-acc' });
    expect(notes(mapped)).toContain('## No usable grades');
    expect(mapped.summary.missing[0]).toMatch(/^no usable grades/);
  });
});

describe('continuous and levels metrics: the threshold decides', () => {
  it('a continuous metric needs --pass-threshold; score >= N passes', async () => {
    expect(await rejection(mapInput(standardInput(), { metric: 'r-f1' }))).toBe(
      'the graded metric "r-f1" is score_type "continuous": give --pass-threshold N (a score >= N passes)',
    );
    const mapped = await mapInput(standardInput(), { metric: 'r-f1', 'pass-threshold': '0.85' });
    expect((json(mapped, 'grades/1.json').results as { verdict: string }[]).map((r) => r.verdict)).toEqual(['pass', 'fail', 'fail']);
    expect(json(mapped, 'plan.json').grader).toMatchObject({ profile: 'every-eval-ever score >= 0.85', id: 'r-f1' });
    // s3 scores 0.8 but is_correct says true: the verdict follows the threshold, and the import says how many disagree.
    expect(notes(mapped)).toContain('- 1 row whose is_correct disagrees with the pass threshold: the verdict follows the threshold');
    expect(eeeImporter.rerunFlags!(json(mapped, 'plan.json') as never)).toEqual([
      ['--metric', 'r-f1'],
      ['--pass-threshold', '0.85'],
    ]);
  });

  it('lower_is_better: score <= N passes; the threshold changes the grader digest', async () => {
    const side = jsonl([row('s1', 'r-err', { evaluation: { score: 0.1, is_correct: true } }), row('s2', 'r-err', { evaluation: { score: 0.3, is_correct: false } })]);
    const agg = aggregate(side, {
      evaluation_results: [{ evaluation_result_id: 'r-err', evaluation_name: 'error rate', metric_config: { lower_is_better: true, score_type: 'continuous', min_score: 0, max_score: 1 }, score_details: { score: 0.2 } }],
    });
    const input = dirInput({ [AGG_PATH]: agg, [SIDECAR_PATH]: side });
    expect(await rejection(mapInput(input))).toMatch(/this metric is lower_is_better, so a score <= N passes\)$/);
    const a = await mapInput(input, { 'pass-threshold': '0.2' });
    const b = await mapInput(input, { 'pass-threshold': '0.25' });
    expect((json(a, 'grades/1.json').results as { verdict: string }[]).map((r) => r.verdict)).toEqual(['pass', 'fail']);
    expect((json(a, 'plan.json').grader as { executable: string }).executable).not.toBe((json(b, 'plan.json').grader as { executable: string }).executable);
    expect(json(a, 'plan.json').title).toBe('r-err (imported Every Eval Ever record, source: Acme Evals)');
  });

  it('levels with an unknown level: -1 is an error verdict, never a guess', async () => {
    const side = jsonl([row('s1', 'r-lvl', { evaluation: { score: -1, is_correct: false } }), row('s2', 'r-lvl', { evaluation: { score: 2, is_correct: true } })]);
    const agg = aggregate(side, {
      evaluation_results: [
        {
          evaluation_result_id: 'r-lvl',
          evaluation_name: 'harm',
          metric_config: { lower_is_better: false, score_type: 'levels', level_names: ['low', 'mid', 'high'], has_unknown_level: true },
          score_details: { score: 1 },
        },
      ],
    });
    const mapped = await mapInput(dirInput({ [AGG_PATH]: agg, [SIDECAR_PATH]: side }), { 'pass-threshold': '2' });
    expect((json(mapped, 'grades/1.json').results as { verdict: string }[]).map((r) => r.verdict)).toEqual(['error', 'pass']);
    expect(notes(mapped)).toContain('- 1 score at the unknown level (-1): verdict error');
  });

  it('a binary metric ignores --pass-threshold: the same bundle with or without it', async () => {
    const a = await mapInput(standardInput(), { metric: 'r-acc' });
    const b = await mapInput(standardInput(), { metric: 'r-acc', 'pass-threshold': '0.3' });
    expect(bundleIdOf(a)).toBe(bundleIdOf(b));
  });
});

describe('times', () => {
  it('epoch seconds and offset timestamps convert with plain arithmetic', () => {
    expect(eeeTimestamp('1761000045.0')).toBe('2025-10-20T22:40:45.0Z');
    expect(eeeTimestamp('0')).toBe('1970-01-01T00:00:00Z');
    expect(eeeTimestamp('2025-05-12T20:27:36-04:00')).toBe('2025-05-13T00:27:36Z');
    expect(eeeTimestamp('2025-05-12T20:27:36')).toBeNull();
    expect(eeeTimestamp('yesterday')).toBeNull();
    expect(eeeTimestamp('99999999999999')).toBeNull();
  });

  it('without evaluation_timestamp: the result timestamp, else retrieved_timestamp, said', async () => {
    const side = jsonl(standardRows());
    const base = aggregate(side);
    delete base.evaluation_timestamp;
    const viaRetrieved = await mapInput(dirInput({ [AGG_PATH]: base, [SIDECAR_PATH]: side }), { metric: 'r-acc' });
    expect(json(viaRetrieved, 'plan.json').created_at).toBe('2025-05-16T12:53:19.0Z');
    expect(notes(viaRetrieved)).toContain("- no evaluation_timestamp: the run's start is retrieved_timestamp, when the record was written, not when the evaluation ran");
    const results = base.evaluation_results as Record<string, unknown>[];
    results[0]!.evaluation_timestamp = '2025-05-12T20:27:36-04:00';
    const viaResult = await mapInput(dirInput({ [AGG_PATH]: base, [SIDECAR_PATH]: side }), { metric: 'r-acc' });
    expect(json(viaResult, 'plan.json').created_at).toBe('2025-05-13T00:27:36Z');
    expect(await rejection(mapInput(standardInput(standardRows(), { evaluation_timestamp: 'last tuesday' }), { metric: 'r-acc' }))).toBe(
      'evaluation_timestamp "last tuesday" is neither Unix epoch seconds nor a timestamp with a UTC offset',
    );
  });

  it('the same bytes whatever the time zone', async () => {
    const saved = process.env.TZ;
    const ids: string[] = [];
    try {
      for (const tz of ['UTC', 'Asia/Kolkata', 'America/St_Johns']) {
        process.env.TZ = tz;
        ids.push(bundleIdOf(await mapInput(standardInput(), { metric: 'r-acc' })));
      }
    } finally {
      process.env.TZ = saved;
    }
    expect(new Set(ids).size).toBe(1);
  });
});

describe('the link between the aggregate and its sidecar', () => {
  it('resolves the reference from the input root, else beside the aggregate', async () => {
    const side = jsonl([row('s1', 'r-acc')]);
    const beside = dirInput({ 'u.json': aggregate(side, {}, { file_path: 'data/x/y/z/u_samples.jsonl' }), 'u_samples.jsonl': side });
    const mapped = await mapInput(beside);
    expect([...mapped.files.keys()].filter((p) => p.startsWith('source/'))).toEqual(['source/u.json', 'source/u_samples.jsonl']);
  });

  it('refuses a reference outside the input, before looking anything up', async () => {
    const side = jsonl([row('s1', 'r-acc')]);
    for (const [ref, why] of [
      ['../samples.jsonl', 'it climbs out with ".."'],
      ['data/../../etc/passwd', 'it climbs out with ".."'],
      ['/etc/passwd', 'it is absolute'],
      ['C:/x.jsonl', 'it is absolute'],
      ['a\\b.jsonl', 'it holds a backslash'],
      ['a/./b.jsonl', 'it holds an empty or "." segment'],
      ['', 'it is empty'],
    ]) {
      const input = dirInput({ 'u.json': aggregate(side, {}, { file_path: ref }), 'u_samples.jsonl': side });
      expect(await rejection(mapInput(input))).toBe(
        `the aggregate's sidecar reference (detailed_evaluation_results.file_path) is refused: ${why}; an import only reads files inside its input`,
      );
    }
  });

  it('refuses a missing sidecar, and an aggregate without instance-level data', async () => {
    const side = jsonl([row('s1', 'r-acc')]);
    expect(await rejection(mapInput(dirInput({ [AGG_PATH]: aggregate(side) })))).toMatch(/^the sidecar the aggregate references is not in the input \(looked for /);
    const bare = aggregate(side);
    delete bare.detailed_evaluation_results;
    expect(await rejection(mapInput(dirInput({ [AGG_PATH]: bare })))).toMatch(/^the aggregate holds no instance-level data \(no detailed_evaluation_results\)/);
  });

  it('re-derives the checksum (naming both digests) and the row count', async () => {
    const side = jsonl(standardRows());
    const good = createHash('sha256').update(side).digest('hex');
    const tampered = Buffer.concat([side.subarray(0, side.length - 3), Buffer.from('}}\n')]);
    const bad = createHash('sha256').update(tampered).digest('hex');
    expect(await rejection(mapInput(dirInput({ [AGG_PATH]: aggregate(side), [SIDECAR_PATH]: tampered }), { metric: 'r-acc' }))).toBe(
      `the sidecar's sha256 is ${bad}, but the aggregate records ${good}: the sidecar is not the file the aggregate was made with`,
    );
    expect(await rejection(mapInput(standardInput(standardRows(), {}, { total_rows: 7 }), { metric: 'r-acc' }))).toBe(
      'the aggregate declares total_rows 7, but the sidecar holds 6 rows',
    );
    const md5 = createHash('md5').update(side).digest('hex');
    expect(verifyMapped(await mapInput(standardInput(standardRows(), {}, { hash_algorithm: 'md5', checksum: md5 }), { metric: 'r-acc' })).status).toBe('verified');
    expect(await rejection(mapInput(standardInput(standardRows(), {}, { hash_algorithm: 'crc32' }), { metric: 'r-acc' }))).toMatch(/^the aggregate's hash_algorithm "crc32" is not sha256 or md5/);
  });

  it('without a checksum or total_rows it imports and says so', async () => {
    const mapped = await mapInput(standardInput(standardRows(), {}, { checksum: undefined, total_rows: undefined }), { metric: 'r-acc' });
    expect(notes(mapped)).toContain('- the aggregate records no checksum of the sidecar: its bytes were not checked against one');
    expect(notes(mapped)).toContain("- the aggregate declares no total_rows: the sidecar's row count was not checked");
  });

  it("says when the rows' evaluation_id is not the aggregate's; refuses rows of two evaluations", async () => {
    const mapped = await mapInput(standardInput(standardRows().map((r) => ({ ...r, evaluation_id: 'other' }))), { metric: 'r-acc' });
    expect(notes(mapped)).toContain("the sidecar's rows carry another evaluation_id than the aggregate");
    const mixed = standardRows();
    mixed[0] = { ...mixed[0], evaluation_id: 'other' };
    expect(await rejection(mapInput(standardInput(mixed), { metric: 'r-acc' }))).toBe("the sidecar's rows carry 2 different evaluation_id values: one sidecar belongs to one evaluation");
  });

  it('refuses a metric no aggregate result names (when it holds several), and a duplicate graded row', async () => {
    expect(await rejection(mapInput(standardInput([row('s1', 'r-zzz')])))).toMatch(/^the graded metric "r-zzz" names no result of the aggregate/);
    expect(await rejection(mapInput(standardInput([row('s1', 'r-acc'), row('s1', 'r-acc')])))).toMatch(/^sample "s1" has two rows for the graded metric: the schema records no repetitions/);
    expect(await rejection(mapInput(standardInput([row(1, 'r-acc'), row('1', 'r-acc')])))).toBe('two sample ids, 1 and "1", name one task id "1"');
    expect(await rejection(mapInput(standardInput([row('s1', 'r-acc'), row('s1', 'r-f1', { input: { raw: 'other', reference: [] } })]), { metric: 'r-acc' }))).toBe(
      'sample "s1" has different inputs in different rows: one task cannot have two prompts',
    );
  });

  it('a row reporting another model fails IDENTITY_MISMATCH, and NOTES says how many', async () => {
    const mapped = await mapInput(standardInput([row('s1', 'r-acc', { model_id: 'acme/model-2' }), row('s2', 'r-acc')]));
    expect(notes(mapped)).toContain('- 1 sample whose model_id is not model_info.id: those attempts fail IDENTITY_MISMATCH');
    const v = verifyMapped(mapped);
    expect(v.status).toBe('invalid');
    expect(v.findings.map((f) => f.code)).toContain('IDENTITY_MISMATCH');
  });
});

describe('hostile input', () => {
  it('shell metacharacters, markup, quotes and newlines are carried as data, never in a path', async () => {
    const nasty = '<script>alert(1)</script> $(rm -rf /) "quoted" \'single\'\nnewline';
    const side = jsonl([row(nasty, 'r-acc', { model_id: nasty })]);
    const agg = aggregate(side, { model_info: { name: nasty, id: nasty }, eval_library: { name: nasty, version: '$(id)' } });
    const mapped = await mapInput(dirInput({ [AGG_PATH]: agg, [SIDECAR_PATH]: side }));
    expect(verifyMapped(mapped).status).toBe('verified');
    expect(lines(mapped, 'attempts.jsonl')[0]).toMatchObject({ task_id: nasty, model: nasty, observed_model: nasty });
    for (const path of mapped.files.keys()) expect(path).toMatch(/^(?:plan\.json|ledger\.jsonl|attempts\.jsonl|grades\/1\.json|NOTES\.md|artifacts\/[0-9a-f]{64}\.json|source\/[A-Za-z0-9._/-]+)$/);
    expect(notes(mapped)).not.toContain('<script>');
  });

  it('a string over maxStringBytes is refused, never cut', async () => {
    const long = 'x'.repeat(300);
    expect(await rejection(mapInput(standardInput([row(long, 'r-acc')]), {}, { maxStringBytes: 256 }))).toBe(
      'a sample_id is 300 bytes long, more than the 256 an import keeps (import_limits.maxStringBytes)',
    );
    const side = jsonl([row('s1', 'r-acc', { model_id: long })]);
    expect(await rejection(mapInput(dirInput({ [AGG_PATH]: aggregate(side, { model_info: { name: 'm', id: long } }), [SIDECAR_PATH]: side }), {}, { maxStringBytes: 256 }))).toMatch(
      /^model_info\.id is 300 bytes long/,
    );
  });

  it('more rows than maxRecords is refused', async () => {
    expect(await rejection(mapInput(standardInput(), { metric: 'r-acc' }, { maxRecords: 5 }))).toBe('the sidecar holds more than 5 rows (import_limits.maxRecords)');
  });

  it('truncated files, wrong types, blank lines: each refused with where', async () => {
    const side = jsonl(standardRows());
    const agg = Buffer.from(JSON.stringify(aggregate(side), null, 4));
    // A truncated aggregate is refused with its own reason (before issue 25: passed over, "the directory holds no ... aggregate").
    const truncated = await rejection(mapInput(dirInput({ [AGG_PATH]: agg.subarray(0, agg.length - 10), [SIDECAR_PATH]: side })));
    expect(truncated.startsWith(`the file ${JSON.stringify(AGG_PATH)} (a possible aggregate: it names "evaluation_results") is not readable JSON: unexpected end of input`)).toBe(true);
    // A second aggregate with a duplicate member (or NaN) beside a good one is refused naming it, never passed over while the good one imports.
    for (const bad of ['{"schema_version": "0.2.0", "schema_version": "x", "evaluation_results": []}', '{"schema_version": "0.2.0", "evaluation_results": [NaN]}']) {
      expect(await rejection(mapInput(dirInput({ [AGG_PATH]: aggregate(side), [SIDECAR_PATH]: side, 'other.json': bad }), { metric: 'r-acc' }))).toMatch(
        /^the file "other\.json" \(a possible aggregate: it names "evaluation_results"\) is not readable JSON: (duplicate member name "schema_version"|unexpected character "N")/,
      );
    }
    const noCheck = (rows: Buffer) => dirInput({ [AGG_PATH]: aggregate(rows, {}, { checksum: undefined, total_rows: undefined }), [SIDECAR_PATH]: rows });
    expect(await rejection(mapInput(noCheck(side.subarray(0, side.length - 20)), { metric: 'r-acc' }))).toMatch(/^the sidecar's line 6 is not readable JSON: /);
    expect(await rejection(mapInput(noCheck(jsonl([row('s1', 'r-acc', { evaluation: { score: '1', is_correct: true } })]))))).toBe(
      "the sidecar's line 1 does not match the Every Eval Ever schema: evaluation.score: Invalid input: expected number, received string",
    );
    expect(await rejection(mapInput(noCheck(Buffer.concat([jsonl([row('s1', 'r-acc')]), Buffer.from('\n'), jsonl([row('s2', 'r-acc')])]))))).toBe(
      "the sidecar's line 2 is blank: a JSONL row per line, no blank lines",
    );
    expect(await rejection(mapInput(noCheck(Buffer.from('[1]\n'))))).toBe("the sidecar's line 1 is not a JSON object");
    expect(await rejection(mapInput(noCheck(Buffer.from(''))))).toMatch(/^the sidecar holds no rows/);
    const dup = Buffer.from(`{"a":1,"a":2}\n`);
    expect(await rejection(mapInput(noCheck(dup)))).toMatch(/^the sidecar's line 1 is not readable JSON: /);
    const wrongAgg = aggregate(side, { model_info: { name: 'm', id: 7 } });
    expect(await rejection(mapInput(dirInput({ [AGG_PATH]: wrongAgg, [SIDECAR_PATH]: side })))).toBe(
      'the aggregate does not match the Every Eval Ever schema: model_info.id: Invalid input: expected string, received number',
    );
  });

  it('a file input, two aggregates, or none are refused', async () => {
    const one = { name: 'x.json', kind: 'file' as const, files: new Map([['x.json', Buffer.from('{}')]]), skipped: [] };
    expect(await rejection(eeeImporter.map(one, { license: '', flags: {}, limits: (await import('../../../src/import/limits.ts')).DEFAULT_IMPORT_LIMITS }))).toMatch(
      /^an Every Eval Ever input is a directory/,
    );
    const side = jsonl([row('s1', 'r-acc')]);
    expect(await rejection(mapInput(dirInput({ 'a.json': aggregate(side), 'b.json': aggregate(side), [SIDECAR_PATH]: side })))).toBe(
      'the directory holds 2 Every Eval Ever aggregates: give a directory that holds one aggregate and its sidecar',
    );
    expect(await rejection(mapInput(dirInput({ 'notes.json': { hello: 'world' } })))).toMatch(/^the directory holds no Every Eval Ever aggregate/);
  });

  it('a bad --pass-threshold or --metric is a usage error before anything is read', () => {
    expect(() => eeeImporter.checkFlags!({ 'pass-threshold': '1e0' })).toThrow('--pass-threshold must be a decimal number, not "1e0"');
    expect(() => eeeImporter.checkFlags!({ metric: '' })).toThrow('--metric needs a metric name');
  });
});
