/**
 * The mapping of Inspect fields onto the evidence format, on small
 * synthesised logs (the real ones have no errors, limits or costs): scores,
 * outcomes, tokens and cost, identity, time, and hostile strings that must
 * stay inside JSON and never reach a path.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unsafePathReason } from '../../src/evidence/paths.ts';
import { ImportError } from '../../src/import/errors.ts';
import { mapInspectLog, sampleOutcome, scoreVerdict, type ImportOptions } from '../../src/import/inspect/map.ts';
import { readInspectLog } from '../../src/import/inspect/read-log.ts';
import { InspectSample } from '../../src/import/inspect/schema.ts';
import { toUtcTimestamp } from '../../src/import/time.ts';
import type { Attempt, LedgerRecord, Plan } from '../../src/schema/index.ts';
import { evalLog, importLogFile, header, jsonLog, listTree, sample, tempDirs, verifyDir } from './helpers.ts';
import { writeFile } from 'node:fs/promises';

const OPTIONS: ImportOptions = { license: 'MIT', passThreshold: 1, scorer: null };
const temp = tempDirs();

/** Maps log bytes in memory; returns the parsed plan, ledger, attempts and grade results. */
async function mapBytes(bytes: Buffer, options: ImportOptions = OPTIONS) {
  const mapped = mapInspectLog(await readInspectLog(bytes), bytes, options);
  const text = (path: string) => Buffer.from(mapped.files.get(path)!).toString('utf8');
  const lines = <T>(path: string) =>
    text(path)
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as T);
  return {
    mapped,
    plan: JSON.parse(text('plan.json')) as Plan,
    ledger: lines<LedgerRecord>('ledger.jsonl'),
    attempts: lines<Attempt>('attempts.jsonl'),
    results: (JSON.parse(text('grades/1.json')) as { results: { attempt_id: string; verdict: string }[] }).results,
  };
}

/** Imports log bytes through a file into a fresh parent, and verifies the bundle. */
async function importBytes(bytes: Buffer, name = 'log.json', options: ImportOptions = OPTIONS) {
  const dir = await temp();
  const file = join(dir, name);
  await writeFile(file, bytes);
  const r = await importLogFile(file, join(dir, 'out'), options);
  return { r, v: await verifyDir(r.dir), parent: join(dir, 'out') };
}

describe('scores', () => {
  it('C passes; I, P and N fail; booleans; numbers against the threshold; anything else is an error', () => {
    expect(['C', 'I', 'P', 'N'].map((v) => scoreVerdict(v, 1))).toEqual(['pass', 'fail', 'fail', 'fail']);
    expect([true, false].map((v) => scoreVerdict(v, 1))).toEqual(['pass', 'fail']);
    expect([1, 1.0, 0.999, 0, 2].map((v) => scoreVerdict(v, 1))).toEqual(['pass', 'pass', 'fail', 'fail', 'pass']);
    expect([0.5, 0.49].map((v) => scoreVerdict(v, 0.5))).toEqual(['pass', 'fail']);
    expect(['C', 'I', 'P', 'N'].map((v) => scoreVerdict(v, 0.5))).toEqual(['pass', 'fail', 'pass', 'fail']);
    expect(['C', 'I', 'P', 'N', true, false].map((v) => scoreVerdict(v, 0))).toEqual(['pass', 'fail', 'pass', 'fail', 'pass', 'fail']);
    expect(['c', 'yes', '1', null, [1], { a: 1 }].map((v) => scoreVerdict(v, 1))).toEqual(['error', 'error', 'error', 'error', 'error', 'error']);
  });

  it('grade each attempt with the scorer, keeping the value in the receipt', async () => {
    const values = ['C', 'I', 'P', 'N', 1, 0.5, { x: 1 }];
    const samples = values.map((value, i) => sample(i + 1, 1, { scores: { match: { value, answer: 'a' } } }));
    const h = header({}, { dataset: { name: 'synthetic', sample_ids: values.map((_, i) => i + 1) } });
    const { results, mapped } = await mapBytes(jsonLog(samples, h));
    expect(results.map((r) => r.verdict)).toEqual(['pass', 'fail', 'fail', 'fail', 'pass', 'fail', 'error']);
    const receipt = (results[3] as unknown as { receipt: string }).receipt.slice(7);
    expect(JSON.parse(Buffer.from(mapped.files.get(`artifacts/${receipt}.json`)!).toString('utf8'))).toEqual({ value: 'N', answer: 'a' });
    expect(mapped.summary.missing).toContain('1 score with a value that is not C, I, P, N, a boolean or a number: verdict error');
    const lower = await mapBytes(jsonLog(samples, h), { ...OPTIONS, passThreshold: 0.5 });
    // At 0.5, P (partial credit, 0.5 as Inspect's accuracy counts it) passes too; I and N never do.
    expect(lower.results.map((r) => r.verdict)).toEqual(['pass', 'fail', 'pass', 'fail', 'pass', 'pass', 'error']);
    // The threshold is part of the grader's identity: two thresholds never share a grading layer.
    expect(lower.plan.grader.executable).not.toBe((await mapBytes(jsonLog(samples, h))).plan.grader.executable);
  });

  it('--scorer picks another score; an unknown one is an error', async () => {
    const samples = [sample(1, 1, { scores: { match: { value: 'I' }, includes: { value: 'C' } } })];
    const h = header({}, { scorers: [{ name: 'match' }, { name: 'includes' }], dataset: { sample_ids: [1] } });
    const first = await mapBytes(jsonLog(samples, h));
    expect(first.plan.grader.id).toBe('match');
    expect(first.results[0]!.verdict).toBe('fail');
    expect(first.mapped.summary.missing).toContain('1 other scorer not imported (one grading generation grades with one scorer; see --scorer)');
    const other = await mapBytes(jsonLog(samples, h), { ...OPTIONS, scorer: 'includes' });
    expect(other.plan.grader.id).toBe('includes');
    expect(other.results[0]!.verdict).toBe('pass');
    await expect(mapBytes(jsonLog(samples, h), { ...OPTIONS, scorer: 'nope' })).rejects.toThrow('the log has no scorer named "nope" (it has "match", "includes")');
  });
});

describe('outcomes', () => {
  const parse = (overrides: Record<string, unknown>) => InspectSample.parse(sample(1, 1, overrides));

  it('error, limit and invalidation decide the outcome before the score', () => {
    expect(sampleOutcome(parse({}))).toBe('completed');
    expect(sampleOutcome(parse({ error: { message: 'boom', traceback: '' } }))).toBe('harness_failure');
    expect(sampleOutcome(parse({ limit: { type: 'time', limit: 60 } }))).toBe('timeout');
    expect(sampleOutcome(parse({ limit: { type: 'working', limit: 60 } }))).toBe('timeout');
    expect(sampleOutcome(parse({ limit: { type: 'operator', limit: 1 } }))).toBe('cancelled');
    for (const type of ['token', 'message', 'context', 'cost', 'custom']) expect(sampleOutcome(parse({ limit: { type, limit: 1 } }))).toBe('model_failure');
    expect(sampleOutcome(parse({ invalidation: { author: 'x' }, error: { message: 'boom' } }))).toBe('invalid_case');
  });

  it('an error and a limit sample import, verify, and are said', async () => {
    const samples = [
      sample(1, 1, { error: { message: 'sandbox failed', traceback: 'tb' }, scores: null, output: { model: '', choices: [] }, error_retries: [{ message: 'x' }, { message: 'y' }] }),
      sample(2, 1, { limit: { type: 'token', limit: 1000 }, scores: { match: { value: 'C' } } }),
    ];
    const { r, v } = await importBytes(jsonLog(samples, header({ status: 'error', error: { message: 'too many errors' } })));
    expect(r.status).toBe('verified');
    const attempts = v.evidence.attempts.lines().map((a) => a.attempt);
    expect(attempts.map((a) => [a.outcome, a.retries, a.observed_model])).toEqual([
      ['harness_failure', 2, 'acme-model-2026-01-01'],
      ['model_failure', 0, 'acme-model-2026-01-01'],
    ]);
    expect(r.summary.missing).toEqual(
      expect.arrayContaining([
        'the run ended with status "error": samples it did not complete are missing',
        '1 sample halted by an error: outcome harness_failure',
        '1 sample halted by a limit: outcome timeout, cancelled or model_failure',
        "1 sample without a model reported by its output: attributed to the run's model",
        '1 sample without a score from the scorer: no grade (fails closed as grader_failure)',
      ]),
    );
  });
});

describe('tokens, cost and time', () => {
  it('total_cost present is complete micros; 0 is zero; absent is unavailable, never 0', async () => {
    const usage = (cost?: number) => ({ 'acme/model': { input_tokens: 100, output_tokens: 20, total_tokens: 120, ...(cost === undefined ? {} : { total_cost: cost }) } });
    const samples = [sample(1, 1, { model_usage: usage(0.0123456) }), sample(2, 1, { model_usage: usage(0) }), sample(3, 1, { model_usage: usage() }), sample(4, 1, { model_usage: {} })];
    const { attempts, mapped } = await mapBytes(jsonLog(samples, header({}, { dataset: { sample_ids: [1, 2, 3, 4] } })));
    expect(attempts.map((a) => a.cost)).toEqual([
      { state: 'complete', micros: 12346 },
      { state: 'zero', micros: 0 },
      { state: 'unavailable', micros: null },
      { state: 'unavailable', micros: null },
    ]);
    expect(attempts.map((a) => a.tokens)).toEqual([{ input: 100, output: 20 }, { input: 100, output: 20 }, { input: 100, output: 20 }, null]);
    expect(mapped.summary.missing).toContain('2 samples without total_cost: cost unavailable');
    expect(mapped.summary.missing).toContain("1 sample without model usage for the run's model: tokens unknown (null)");
  });

  it('usage of another model (a grader, a role) is not the attempt\'s', async () => {
    const s = sample(1, 1, { model_usage: { 'acme/model': { input_tokens: 5, output_tokens: 1 }, 'other/judge': { input_tokens: 500, output_tokens: 50, total_cost: 9 } } });
    const { attempts, mapped } = await mapBytes(jsonLog([s], header({}, { dataset: { sample_ids: [1] } })));
    expect(attempts[0]!.tokens).toEqual({ input: 5, output: 1 });
    expect(attempts[0]!.cost).toEqual({ state: 'unavailable', micros: null });
    expect(mapped.summary.missing).toContain('1 sample with usage of other models: not attributed to the attempt');
  });

  it('times are normalised to UTC; wall seconds from total_time, else the sample\'s own times, else 0 (said)', async () => {
    const samples = [sample(1, 1), sample(2, 1, { total_time: null }), sample(3, 1, { total_time: null, started_at: null, completed_at: null })];
    const { plan, attempts, ledger, mapped } = await mapBytes(jsonLog(samples, header({}, { dataset: { sample_ids: [1, 2, 3] } })));
    expect(plan.created_at).toBe('2026-02-01T09:00:00Z');
    expect(ledger.every((t) => t.created_at === plan.created_at)).toBe(true);
    expect(attempts.map((a) => [a.started_at, a.ended_at, a.wall_seconds])).toEqual([
      ['2026-02-01T09:00:01.250000Z', '2026-02-01T09:00:03.500000Z', 2.25],
      ['2026-02-01T09:00:01.250000Z', '2026-02-01T09:00:03.500000Z', 2.25],
      ['2026-02-01T09:00:00Z', '2026-02-01T09:00:05Z', 0],
    ]);
    expect(mapped.summary.missing).toContain('1 sample without total_time or start and end: wall_seconds 0');
  });

  it('toUtcTimestamp: offsets, fractions kept, day and year boundaries; no offset is refused', () => {
    expect(toUtcTimestamp('2025-05-12T20:27:36-04:00')).toBe('2025-05-13T00:27:36Z');
    expect(toUtcTimestamp('2024-12-31T23:30:00.000100-01:00')).toBe('2025-01-01T00:30:00.000100Z');
    expect(toUtcTimestamp('2024-03-01T00:15:00+05:45')).toBe('2024-02-29T18:30:00Z');
    expect(toUtcTimestamp('2026-05-06T18:00:11.526663+00:00')).toBe('2026-05-06T18:00:11.526663Z');
    expect(toUtcTimestamp('2026-05-06T18:00:11Z')).toBe('2026-05-06T18:00:11Z');
    expect(toUtcTimestamp('2026-05-06T18:00:11')).toBeNull();
    expect(toUtcTimestamp('2026-02-30T18:00:11Z')).toBeNull();
    expect(toUtcTimestamp('yesterday')).toBeNull();
  });

  it('a timestamp without an offset is an error, not a guess', async () => {
    await expect(mapBytes(jsonLog([sample(1, 1, { started_at: '2026-02-01 10:00:01' })]))).rejects.toThrow(
      'sample 1 started_at "2026-02-01 10:00:01" is not a timestamp with a UTC offset',
    );
  });
});

describe('identity, tasks and epochs', () => {
  it('the plan model is what the outputs report; a run that mixes models does not verify', async () => {
    const mixed = [sample(1, 1), sample(2, 1), sample(3, 1, { output: { model: 'acme-model-2027-01-01' } })];
    const { r, v } = await importBytes(jsonLog(mixed, header({}, { dataset: { sample_ids: [1, 2, 3] } })));
    expect(v.evidence.plan?.subjects[0]).toMatchObject({ selector: 'acme/model', model: 'acme-model-2026-01-01' });
    expect(r.status).toBe('invalid');
    expect(r.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['IDENTITY_MISMATCH']);
    expect(r.summary.missing).toContain(
      "the outputs report 2 different models: the plan's model is the one most samples report (2 of 3); attempts reporting another fail IDENTITY_MISMATCH",
    );
  });

  it('tasks are sample ids in order (numbers, then strings); attempts are samples x epochs, index = epoch', async () => {
    const samples = [sample('b', 2), sample(10, 1), sample('b', 1), sample(2, 1), sample(2, 2), sample(10, 2)];
    const { plan, ledger, attempts } = await mapBytes(jsonLog(samples, header({}, { config: { epochs: 2 }, dataset: { sample_ids: [2, 10, 'b'] } })));
    expect(ledger.map((t) => t.task_id)).toEqual(['2', '10', 'b']);
    expect(ledger[0]).toMatchObject({ repo: null, base_sha: null, failing_tests: null, failing_assertion: null, oracle_sha256: null, difficulty: null, holdout: true, cluster_id: '2', license: 'MIT' });
    expect(plan.attempts).toBe(2);
    expect(attempts.map((a) => [a.attempt_id, a.task_id, a.index])).toEqual([
      ['a-000001', '2', 1],
      ['a-000002', '2', 2],
      ['a-000003', '10', 1],
      ['a-000004', '10', 2],
      ['a-000005', 'b', 1],
      ['a-000006', 'b', 2],
    ]);
  });

  it('prompt_sha256 is the digest of the input\'s canonical JSON', async () => {
    const input = [{ role: 'user', content: 'hi', id: 'x' }];
    const { ledger } = await mapBytes(jsonLog([sample(1, 1, { input })], header({}, { dataset: { sample_ids: [1] } })));
    const { digestCanonical } = await import('../../src/json/canonical.ts');
    expect(ledger[0]!.prompt_sha256).toBe(digestCanonical([{ content: 'hi', id: 'x', role: 'user' }]));
  });

  it('refuses a log whose samples cannot be one ledger', async () => {
    await expect(mapBytes(jsonLog([sample(1, 1), sample(1, 1)]))).rejects.toThrow('the log holds sample 1 epoch 1 twice');
    await expect(mapBytes(jsonLog([sample(1, 1), sample('1', 1)]))).rejects.toThrow('two sample ids, 1 and "1", name one task id "1"');
    await expect(mapBytes(jsonLog([sample(1, 1), sample(1, 2, { input: 'other' })]))).rejects.toThrow('sample 1 has different inputs in different epochs');
    await expect(mapBytes(jsonLog([]))).rejects.toThrow(ImportError);
  });

  it('missing samples are said and their slots left unaccounted (a warning, still verified)', async () => {
    const { r, v } = await importBytes(jsonLog([sample(1, 1)], header({ status: 'cancelled' }, { config: { epochs: 2 } })));
    expect(r.status).toBe('verified');
    // Task 2 never ran: it has no input to pin, so it is not in the ledger; task 1's second epoch is an empty slot.
    expect(v.evidence.ledger.map((t) => t.task_id)).toEqual(['1']);
    expect(v.findings.filter((f) => f.code === 'UNACCOUNTED_SLOT')).toHaveLength(1);
    expect(r.summary.missing).toContain('3 of 4 planned sample runs (dataset sample_ids x epochs) are not in the log');
    expect(r.summary.missing).toContain('1 slot (task x epoch) without a sample: left unaccounted');
  });
});

describe('hostile strings stay in JSON, never in a path', () => {
  const HOSTILE = ['../../etc/passwd', '/abs', 'a\\b', 'NUL\u0000x', '..', 'CON', '<script>alert(1)</script>', 'e\u0301\u202e', '💥'.repeat(200)];

  it.each(['json', 'eval'] as const)('sample ids and model names (%s)', async (format) => {
    const samples = HOSTILE.map((id, i) => sample(id, 1, { output: { model: '../../model\u0000' }, scores: { [`../s${i}`]: { value: 'C' } } }));
    const h = header({}, { model: '../../selector', task: '../../task', dataset: { name: '../x', sample_ids: HOSTILE }, scorers: [{ name: '../s0' }] });
    const bytes = format === 'json' ? jsonLog(samples, h) : evalLog(samples, h);
    const { r, v, parent } = await importBytes(bytes, `../hostile name\u202e.${format}`);
    expect(r.status).toBe('verified');
    expect(v.evidence.ledger.map((t) => t.task_id).sort()).toEqual([...HOSTILE].sort());
    expect(v.evidence.plan?.subjects[0]?.model).toBe('../../model\u0000');
    const tree = await listTree(parent);
    const bundleDir = tree.filter((p) => !p.includes('/'));
    expect(bundleDir).toEqual([expect.stringMatching(/^hostile-name-[0-9a-f]{12}$/)]);
    for (const path of tree.filter((p) => p.includes('/'))) {
      const inner = path.slice(bundleDir[0]!.length + 1);
      expect(inner).toMatch(/^(manifest\.json|plan\.json|ledger\.jsonl|attempts\.jsonl|NOTES\.md|grades|grades\/1\.json|source|source\/inspect-log\.(json|eval)|artifacts|artifacts\/[0-9a-f]{64}\.json)$/);
      expect(unsafePathReason(inner)).toBeNull();
    }
  });
});
