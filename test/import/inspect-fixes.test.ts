/**
 * Issue 15, "Inspect fixes": logs seen in the wild that the importer read
 * wrongly. Each case is a real public log (test/fixtures/SOURCES.md) or a
 * minimal log reproducing the shape.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { mapInspectLog, NO_USABLE_GRADES, type ImportOptions } from '../../src/import/inspect/map.ts';
import { isChunkedSampleEntry, isFlatSampleEntry, readInspectLog } from '../../src/import/inspect/read-log.ts';
import type { Plan } from '../../src/schema/index.ts';
import { evalLog, header, jsonLog, REAL_LOGS, rejection, sample, zip } from './helpers.ts';

const OPTIONS: ImportOptions = { license: 'MIT', passThreshold: 1, scorer: null };
const VITALS = new URL('../fixtures/inspect-vitals/simple-addition.trimmed.json', import.meta.url);

async function mapBytes(bytes: Buffer, options: ImportOptions = OPTIONS) {
  const mapped = mapInspectLog(await readInspectLog(bytes), bytes, options);
  const text = (path: string) => Buffer.from(mapped.files.get(path)!).toString('utf8');
  return {
    mapped,
    plan: JSON.parse(text('plan.json')) as Plan,
    notes: text('NOTES.md'),
    results: (JSON.parse(text('grades/1.json')) as { results: { attempt_id: string; verdict: string }[] }).results,
  };
}

describe('1. a flat .eval whose sample ids hold "/" is not the chunked layout', () => {
  it('tells the names apart', () => {
    expect(isFlatSampleEntry('samples/1_epoch_1.json')).toBe(true);
    expect(isFlatSampleEntry('samples/org/task/7_epoch_2.json')).toBe(true);
    expect(isChunkedSampleEntry('samples/org/task/7_epoch_2.json')).toBe(false);
    expect(isChunkedSampleEntry('samples/7_epoch_2/sample.json')).toBe(true);
    expect(isChunkedSampleEntry('samples/org/task/7_epoch_2/sample.json')).toBe(true);
    expect(isFlatSampleEntry('samples/7_epoch_2/sample.json')).toBe(false);
  });

  it('imports a flat archive with ids "a/b" as Inspect writes it (samples/<a>/<b>_epoch_1.json)', async () => {
    const samples = [sample('math/1', 1), sample('math/2', 1)];
    const h = header({}, { dataset: { name: 'synthetic', sample_ids: ['math/1', 'math/2'] } });
    const bytes = zip([
      { name: 'header.json', data: Buffer.from(JSON.stringify(h)) },
      ...samples.map((s) => ({ name: `samples/${String(s.id)}_epoch_1.json`, data: Buffer.from(JSON.stringify(s)) })),
    ]);
    const log = await readInspectLog(bytes);
    expect(log.samples.map((s) => s.id)).toEqual(['math/1', 'math/2']);
    const { results, notes } = await mapBytes(bytes);
    expect(results.map((r) => r.verdict)).toEqual(['pass', 'pass']);
    expect(notes).not.toMatch(/not in the log/);
  });

  it('still refuses the chunked layout, and an entry under samples/ that is neither', async () => {
    const data = Buffer.from(JSON.stringify(header()));
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data }, { name: 'samples/a/b_epoch_1/sample.json', data }])))).toMatch(/chunked per-sample layout/);
    expect(await rejection(readInspectLog(zip([{ name: 'header.json', data }, { name: 'samples/a/b.json', data }])))).toMatch(/neither a sample/);
  });
});

describe('2. the scorer name declared is not the key the samples carry (R vitals)', () => {
  it('grades by the key the samples carry: the real vitals log keeps its grades', async () => {
    const bytes = await readFile(VITALS);
    const { plan, results, notes, mapped } = await mapBytes(bytes);
    expect(plan.grader.id).toBe('model_graded_qa() (claude-sonnet-4-5-20250929)');
    expect(results.map((r) => r.verdict)).toEqual(['pass', 'pass']); // the log's own accuracy: 100
    expect(notes).toContain('the samples key their scores under a name that eval.scorers does not declare');
    expect(notes).not.toContain('without a score from the scorer');
    // Asking for the key itself (the site's re-run command) gives the same bundle files.
    const again = await mapBytes(bytes, { ...OPTIONS, scorer: 'model_graded_qa() (claude-sonnet-4-5-20250929)' });
    expect(again.plan.plan_id).toBe(plan.plan_id);
    expect([...again.mapped.files.keys()]).toEqual([...mapped.files.keys()]);
    for (const [path, data] of mapped.files) expect(Buffer.compare(Buffer.from(again.mapped.files.get(path)!), Buffer.from(data)), path).toBe(0);
  });

  it('the one key that begins with the declared name, among several', async () => {
    const scores = { 'match (judge-a)': { value: 'C' }, 'other (judge-b)': { value: 'I' } };
    const h = header({ results: null }, { scorers: [{ name: 'match' }, { name: 'other' }], dataset: { sample_ids: [1] } });
    const { plan } = await mapBytes(jsonLog([sample(1, 1, { scores })], h));
    expect(plan.grader.id).toBe('match (judge-a)');
  });

  it('refuses, listing the keys, when the key is ambiguous', async () => {
    const scores = { 'judge-a': { value: 'C' }, 'judge-b': { value: 'I' } };
    const h = header({ results: null }, { scorers: [{ name: 'match' }], dataset: { sample_ids: [1] } });
    const bytes = jsonLog([sample(1, 1, { scores })], h);
    expect(await rejection(mapBytes(bytes))).toBe(
      'no sample carries a score under the scorer name "match", and which of the keys the samples carry is its score is ambiguous ("judge-a", "judge-b"): choose one with --scorer',
    );
    expect((await mapBytes(bytes, { ...OPTIONS, scorer: 'judge-b' })).results[0]!.verdict).toBe('fail');
  });
});

describe('4. dataset.sample_ids as strings, sample ids as integers', () => {
  it('compares ids as task ids (strings): a present sample is not called missing', async () => {
    const h = header({}, { dataset: { name: 'synthetic', sample_ids: ['0', '1', '2'] } });
    const { notes, mapped } = await mapBytes(jsonLog([sample(0, 1), sample(1, 1)], h));
    expect(mapped.summary.missing).toContain('1 of 3 planned sample runs (dataset sample_ids x epochs) are not in the log');
    expect(notes).not.toContain('not among dataset.sample_ids');
    const all = await mapBytes(jsonLog([sample(0, 1), sample(1, 1), sample(2, 1)], h));
    expect(all.notes).not.toMatch(/planned sample runs|not among/);
  });
});

describe('3. a log with no usable grades does not read as a measured 0%', () => {
  it('no scorer (real logs: log_tool_call_error.json, retry-2-then-success, the 2025-02-11 popularity run)', async () => {
    for (const name of ['log_tool_call_error.json', 'retry-2-then-success.postfix.zstd.eval', '2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval']) {
      const { notes, mapped } = await mapBytes(await readFile(`${REAL_LOGS}${name}`));
      expect(mapped.summary.missing[0], name).toBe(NO_USABLE_GRADES);
      expect(notes).toContain(`\n## No usable grades\n\nNo usable grades: no completed sample`);
      expect(notes.endsWith('(its 0 resolved is not 0%).\n')).toBe(true);
    }
  });

  it('dict-valued scores (verdict error) and every sample errored; one completed fail is a measured 0%', async () => {
    const h = header();
    const dicts = [sample(1, 1, { scores: { match: { value: { a: 1 } } } }), sample(2, 1, { scores: { match: { value: { a: 0 } } } })];
    expect((await mapBytes(jsonLog(dicts, h))).mapped.summary.missing[0]).toBe(NO_USABLE_GRADES);
    const errored = [sample(1, 1, { error: { message: 'boom' } }), sample(2, 1, { error: { message: 'boom' }, scores: { match: { value: 'I' } } })];
    expect((await mapBytes(jsonLog(errored, h))).mapped.summary.missing[0]).toBe(NO_USABLE_GRADES);
    const measured = [sample(1, 1, { scores: { match: { value: 'I' } } }), sample(2, 1, { error: { message: 'boom' } })];
    expect((await mapBytes(jsonLog(measured, h))).mapped.summary.missing).not.toContain(NO_USABLE_GRADES);
  });
});

// evalLog is the helpers' writer; kept in use here so a flat nested name is also read through it.
describe('flat names written by the helpers', () => {
  it('reads them', async () => {
    expect((await readInspectLog(evalLog([sample(1, 1), sample(2, 1)]))).samples).toHaveLength(2);
  });
});
