/**
 * Hostile and broken Terminal-Bench inputs: every refusal is an ImportError
 * with a stable message start; markup and shell text in names are carried as
 * data; paths inside the input are never followed.
 */
import { describe, expect, it } from 'vitest';
import type { ImportInput } from '../../../src/import/input.ts';
import { rejection } from '../helpers.ts';
import { harborInput, harborTrial, jsonlOf, jsonOf, mapTb, tb1Input, tb1Trial } from './fixtures.ts';

function withFile(input: ImportInput, path: string, text: string): ImportInput {
  const files = new Map(input.files);
  files.set(path, Buffer.from(text));
  return { ...input, files: new Map([...files].sort(([a], [b]) => Buffer.from(a).compare(Buffer.from(b)))) };
}

describe('refused, with the reason', () => {
  it('a file instead of a directory', async () => {
    const input: ImportInput = { name: 'results.json', kind: 'file', files: new Map([['results.json', Buffer.from('{"results": []}')]]), skipped: [] };
    expect(await rejection(mapTb(input))).toMatch(/^a Terminal-Bench run is a directory/);
  });

  it('a directory without either main file', async () => {
    const input: ImportInput = { name: 'x', kind: 'directory', files: new Map([['README.md', Buffer.from('#')]]), skipped: [] };
    expect(await rejection(mapTb(input))).toMatch(/^not a Terminal-Bench run: the directory has neither/);
  });

  it('truncated JSON, wrong types, duplicate members', async () => {
    const base = tb1Input([tb1Trial('x', 1)]);
    expect(await rejection(mapTb(withFile(base, 'results.json', '{"results": [')))).toMatch(/^the file "results\.json" is not readable JSON/);
    expect(await rejection(mapTb(withFile(base, 'results.json', '{"results": 3}')))).toMatch(/^the run's results\.json is not a Terminal-Bench 1 run result \(results:/);
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1, { is_resolved: 'yes' })], { trialFiles: false })))).toMatch(/^trial 1 of the run's results\.json is not a Terminal-Bench 1 trial \(is_resolved:/);
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1, { total_input_tokens: -1 })], { trialFiles: false })))).toMatch(/^trial 1 of the run's results\.json is not a Terminal-Bench 1 trial \(total_input_tokens:/);
    expect(await rejection(mapTb(withFile(base, 'run_metadata.json', '{"model_name": "a", "model_name": "b"}')))).toMatch(/^the file "run_metadata\.json" is not readable JSON/);
    const job = harborInput([harborTrial('t', 'A')]);
    expect(await rejection(mapTb(withFile(job, 't__A/result.json', '{"task_name": 1}')))).toMatch(/^the trial file "t__A\/result\.json" is not a Harbor trial result \(task_name:/);
    expect(await rejection(mapTb(withFile(job, 't__A/result.json', '{"task_name": "t", "trial_name": "t__A", "agent_result": {"cost_usd": "1"}}')))).toMatch(/^the trial file "t__A\/result\.json" is not a Harbor trial result \(agent_result\.cost_usd:/);
  });

  it('no trials', async () => {
    expect(await rejection(mapTb(tb1Input([])))).toMatch(/^the run's results\.json holds no trials/);
    const job = harborInput([harborTrial('t', 'A')]);
    const files = new Map([...job.files].filter(([p]) => !p.startsWith('t__A/')));
    expect(await rejection(mapTb({ ...job, files }))).toMatch(/^the job holds no trial result\.json/);
  });

  it('an aggregate that disagrees with the trials', async () => {
    const trials = [tb1Trial('x', 1), tb1Trial('y', 1, { is_resolved: false })];
    expect(await rejection(mapTb(tb1Input(trials, { aggregate: { n_resolved: 2 } })))).toMatch(/^the run's aggregate disagrees with its trials: n_resolved is 2, the trials resolve 1/);
    expect(await rejection(mapTb(tb1Input(trials, { aggregate: { n_unresolved: 0 } })))).toMatch(/^the run's aggregate disagrees with its trials: n_unresolved/);
    expect(await rejection(mapTb(tb1Input(trials, { aggregate: { resolved_ids: ['y'] } })))).toMatch(/^the run's aggregate disagrees with its trials: resolved_ids/);
    expect(await rejection(mapTb(tb1Input(trials, { aggregate: { unresolved_ids: [] } })))).toMatch(/^the run's aggregate disagrees with its trials: unresolved_ids/);
    expect(await rejection(mapTb(tb1Input(trials, { aggregate: { accuracy: 1 } })))).toMatch(/^the run's aggregate disagrees with its trials: accuracy is 1, the trials resolve 1 of 2/);
    const job = [harborTrial('t', 'A'), harborTrial('t', 'B', { verifier_result: { rewards: { reward: 0 } } })];
    expect(await rejection(mapTb(harborInput(job, { job: { n_total_trials: 1 } })))).toMatch(/^the job's aggregate disagrees with its trials: n_total_trials is 1/);
    const wrong = { evals: { e: { reward_stats: { reward: { '1.0': ['t__A', 't__B'] } } } } };
    expect(await rejection(mapTb(harborInput(job, { job: { stats: wrong } })))).toMatch(/^the job's aggregate disagrees with its trials: reward_stats give the trial "t__B" the reward "1\.0"/);
    const ghost = { evals: { e: { reward_stats: { reward: { '1.0': ['t__Z'] } } } } };
    expect(await rejection(mapTb(harborInput(job, { job: { stats: ghost } })))).toMatch(/^the job's aggregate disagrees with its trials: reward_stats name the trial "t__Z"/);
  });

  it('a per-trial file that disagrees with the run, or names a trial the run does not list', async () => {
    const base = tb1Input([tb1Trial('x', 1)]);
    const path = [...base.files.keys()].find((p) => p.startsWith('x/'))!;
    expect(await rejection(mapTb(withFile(base, path, JSON.stringify(tb1Trial('x', 1, { is_resolved: false })))))).toMatch(/^the trial file ".*" disagrees with the run's results\.json entry/);
    expect(await rejection(mapTb(withFile(base, 'x/other/results.json', JSON.stringify(tb1Trial('x', 9)))))).toMatch(/^the trial file "x\/other\/results\.json" holds a trial the run's results\.json does not list/);
  });

  it('two trials of one name, two instructions for one task, two subjects in a job', async () => {
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1), tb1Trial('x', 1)], { trialFiles: false })))).toMatch(/^the run's results\.json lists the trial "x\.1-of-2\.run" twice/);
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1), tb1Trial('x', 2, { instruction: 'other' })])))).toMatch(/^the task "x" has trials with different instructions/);
    const mixed = [harborTrial('t', 'A'), harborTrial('t', 'B', { agent_info: { name: 'other', version: '1', model_info: { name: 'm', provider: 'p' } } })];
    expect(await rejection(mapTb(harborInput(mixed)))).toMatch(/^the job's trials name 2 different agents or models/);
  });

  it('timestamps without an offset on a trial, and a trial that ends before it starts', async () => {
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1, { trial_started_at: '2026-03-01T10:00:00' })])))).toMatch(/^trial "x\.1-of-2\.run" trial_started_at "2026-03-01T10:00:00" is not a timestamp with a UTC offset/);
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1, { trial_ended_at: '2026-03-01T09:00:00+01:00' })])))).toMatch(/^the trial "x\.1-of-2\.run" ended before it started/);
    const noStart = [harborTrial('t', 'A', { started_at: null, finished_at: null })];
    expect(await rejection(mapTb(harborInput(noStart, { job: { started_at: null } })))).toMatch(/^the job records no start time with a UTC offset/);
  });

  it('a string over maxStringBytes is refused, never cut; too many trials is refused', async () => {
    const long = 'x'.repeat(300);
    expect(await rejection(mapTb(tb1Input([tb1Trial(long, 1)], { trialFiles: false }), {}, { maxStringBytes: 256 }))).toMatch(/^a task id is 300 bytes long, more than the 256/);
    expect(await rejection(mapTb(tb1Input([tb1Trial('x', 1), tb1Trial('y', 1)]), {}, { maxRecords: 1 }))).toMatch(/^the run holds 2 trials, more than the 1 an import reads/);
    expect(await rejection(mapTb(harborInput([harborTrial('t', 'A'), harborTrial('t', 'B')]), {}, { maxRecords: 1 }))).toMatch(/^the job holds more than 1 trials/);
  });

  it('both layouts at one root', async () => {
    const both = withFile(tb1Input([tb1Trial('x', 1)]), 'result.json', '{"n_total_trials": 0}');
    expect(await rejection(mapTb(both))).toMatch(/^the directory holds both a results\.json/);
  });
});

describe('carried as data', () => {
  it('markup, shell text, quotes and newlines in task ids and model names stay data; no input path is followed', async () => {
    const evil = '<script>alert(1)</script> $(rm -rf /) "q" \n;`x`';
    const trial = tb1Trial(evil, 1, { recording_path: '../../../etc/passwd', trial_name: '../../etc/passwd' });
    const b = await mapTb(tb1Input([trial], { trialFiles: false, metadata: { model_name: evil, agent_name: evil, start_time: '2026-03-01T10:00:00+01:00', run_id: evil } }));
    expect(jsonlOf(b, 'ledger.jsonl')[0]!.task_id).toBe(evil);
    expect(jsonOf(b, 'plan.json')).toMatchObject({ subjects: [{ model: evil, agent: { name: evil } }] });
    // Bundle paths are fixed: nothing from the input names a file, and NOTES.md holds no input text.
    for (const path of b.files.keys()) expect(path).toMatch(/^(plan\.json|ledger\.jsonl|attempts\.jsonl|grades\/1\.json|NOTES\.md|artifacts\/[0-9a-f]{64}\.json|source\/(results|run_metadata)\.json)$/);
    expect(Buffer.from(b.files.get('NOTES.md')!).toString()).not.toContain('script');
  });
});
