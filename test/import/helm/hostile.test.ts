/**
 * Hostile HELM run directories: truncated and mistyped files, strings over
 * the limit, markup and shell metacharacters carried as data (never in a
 * path), path-like ids, too many records, the wrong kind of input. Every
 * refusal is an ImportError with a stable message start.
 */
import { describe, expect, it } from 'vitest';
import { helmImporter } from '../../../src/import/helm/importer.ts';
import { importInput } from '../../../src/import/import-input.ts';
import { rejection, tempDirs, verifyDir } from '../helpers.ts';
import { entry, helmRequest, instanceStats, jsonlOf, jsonOf, mapRun, notesOf, requestState, runInput, runSpec, scenarioState, toyRun } from './fixtures.ts';

const temp = tempDirs();
const FIXED_PATH = /^(?:plan\.json|ledger\.jsonl|attempts\.jsonl|grades\/1\.json|NOTES\.md|artifacts\/[0-9a-f]{64}\.json|source\/(?:per_instance_stats|run_spec|scenario_state|stats)\.json)$/;

describe('malformed files', () => {
  it('a truncated file is not readable JSON, with its name and position', async () => {
    const bytes = Buffer.from(JSON.stringify(toyRun().perInstance));
    expect(await rejection(mapRun(runInput({ ...toyRun(), perInstance: bytes.subarray(0, bytes.length - 7) })))).toMatch(/^per_instance_stats\.json is not readable JSON: .*\(line 1, column \d+\)$/);
    expect(await rejection(mapRun(runInput({ ...toyRun(), runSpec: Buffer.from('{"name": "x",') })))).toMatch(/^run_spec\.json is not readable JSON/);
  });

  it('a member twice is not readable JSON (which reading would win?)', async () => {
    const twice = Buffer.from('[{"instance_id": "id1", "instance_id": "id2", "train_trial_index": 0, "stats": []}]');
    expect(await rejection(mapRun(runInput({ ...toyRun(), perInstance: twice })))).toMatch(/^per_instance_stats\.json is not readable JSON/);
  });

  it('wrong types are refused with the path inside the file', async () => {
    const wrong = [{ ...entry('id1', 0, instanceStats(1)), train_trial_index: '0' }];
    expect(await rejection(mapRun(runInput({ ...toyRun(), perInstance: wrong })))).toMatch(/^per_instance_stats\.json is not a HELM per_instance_stats\.json as the importer reads it \(\[0\]\.train_trial_index: /);
    expect(await rejection(mapRun(runInput({ ...toyRun(), runSpec: runSpec({}, { model: 7 }) })))).toMatch(/^run_spec\.json is not a HELM run_spec\.json as the importer reads it \(adapter_spec\.model: /);
    expect(await rejection(mapRun(runInput({ ...toyRun(), runSpec: { name: 'x' } })))).toMatch(/^run_spec\.json is not a HELM run_spec\.json as the importer reads it \(scenario_spec: /);
    expect(await rejection(mapRun(runInput({ ...toyRun(), scenarioState: { request_states: [{ instance: {}, train_trial_index: -1 }] } })))).toMatch(/^scenario_state\.json is not a HELM scenario_state\.json/);
    expect(await rejection(mapRun(runInput({ ...toyRun(), stats: { not: 'a list' } })))).toMatch(/^stats\.json is not a HELM stats\.json/);
    expect(await rejection(mapRun(runInput({ ...toyRun(), perInstance: [entry('id1', 0, [{ name: { name: 'exact_match', split: 'test' }, count: 1.5 }])] })))).toMatch(/^per_instance_stats\.json is not a HELM/);
  });

  it('a file input, or a directory without the run files at its top, is refused', async () => {
    const file = { name: 'run_spec.json', kind: 'file' as const, files: new Map([['run_spec.json', Buffer.from('{}')]]), skipped: [] };
    expect(await rejection(helmImporter.map(file, helmRequest()))).toBe('a HELM run is a directory (benchmark_output/runs/<suite>/<run>): give the run directory, not a file');
    const nested = runInput({ extra: { 'sub/run_spec.json': JSON.stringify(runSpec()), 'sub/per_instance_stats.json': '[]' } });
    expect(await rejection(mapRun(nested))).toBe('the directory has no run_spec.json at its top: a HELM run directory holds run_spec.json and per_instance_stats.json');
    expect(await rejection(mapRun(runInput({ runSpec: runSpec() })))).toMatch(/^the directory has no per_instance_stats\.json at its top/);
  });

  it('an empty run is refused: nothing to import', async () => {
    expect(await rejection(mapRun(runInput({ runSpec: runSpec(), perInstance: [] })))).toBe('the run has no unperturbed per-instance stats in the test split: there is nothing to import');
  });
});

describe('limits', () => {
  it('a string over maxStringBytes is refused, never cut', async () => {
    const long = 'x'.repeat(300);
    expect(await rejection(mapRun(runInput({ ...toyRun(), perInstance: [entry(long, 0, instanceStats(1))] }), undefined, { maxStringBytes: 256 }))).toBe(
      'an instance_id of per_instance_stats.json is 300 bytes long, more than the 256 an import keeps (import_limits.maxStringBytes)',
    );
    expect(await rejection(mapRun(runInput({ ...toyRun(), runSpec: runSpec({}, { model: long }) }), undefined, { maxStringBytes: 256 }))).toMatch(/^adapter_spec\.model is 300 bytes long/);
    expect(await rejection(mapRun(runInput({ ...toyRun(), runSpec: runSpec({ name: long }) }), undefined, { maxStringBytes: 256 }))).toMatch(/^the run name is 300 bytes long/);
    // Multi-byte: 100 characters of 3 bytes each.
    expect(await rejection(mapRun(runInput({ ...toyRun(), perInstance: [entry('€'.repeat(100), 0, instanceStats(1))] }), undefined, { maxStringBytes: 256 }))).toMatch(/^an instance_id of per_instance_stats\.json is 300 bytes long/);
  });

  it('more records than maxRecords are refused', async () => {
    expect(await rejection(mapRun(runInput(toyRun()), undefined, { maxRecords: 1 }))).toBe('per_instance_stats.json holds 2 records, more than the 1 an import reads (import_limits.maxRecords)');
    const many = { ...toyRun(), perInstance: [entry('id1', 0, instanceStats(1))], scenarioState: scenarioState([requestState('id1', 0), requestState('id1', 0)]) };
    expect(await rejection(mapRun(runInput(many), undefined, { maxRecords: 1 }))).toBe('scenario_state.json holds 2 request states, more than the 1 an import reads (import_limits.maxRecords)');
  });
});

describe('text is data', () => {
  const hostile = ['<script>alert(1)</script>', '$(rm -rf /)', '`id`; "quoted" \'single\'', 'line\nbreak', '../../etc/passwd', '/abs/path', 'C:\\windows'];

  it('markup, shell metacharacters and path-like ids are carried as data, never in a path or in NOTES.md', async () => {
    const model = "acme/$(touch pwned)<img src=x onerror=alert(1)>'\"\n";
    const run = {
      runSpec: runSpec({ name: '<b>run</b>; rm -rf ~' }, { model, model_deployment: '`whoami`' }),
      perInstance: hostile.map((id, i) => entry(id, 0, instanceStats(i % 2))),
      scenarioState: scenarioState(hostile.map((id) => requestState(id, 0, { model }))),
    };
    const m = await mapRun(runInput(run));
    for (const path of m.files.keys()) expect(path, path).toMatch(FIXED_PATH);
    expect(jsonlOf(m.files, 'ledger.jsonl').map((t) => t.task_id)).toEqual([...hostile].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1)));
    expect(jsonOf(m.files, 'plan.json')).toMatchObject({ subjects: [{ model, selector: '`whoami`' }] });
    const notes = notesOf(m.files);
    for (const text of [...hostile, model, '<b>run</b>']) expect(notes).not.toContain(text);
    const r = await importInput(helmImporter, runInput(run), await temp(), helmRequest());
    expect(r.status).toBe('verified');
    expect((await verifyDir(r.dir)).status).toBe('verified');
  });

  it('a metric name with markup is refused with it quoted, not interpreted', async () => {
    expect(await rejection(mapRun(runInput(toyRun()), { metric: '<script>x</script>' }))).toMatch(/^the run has no stat named "<script>x<\/script>" in the test split/);
  });

  it('two instance ids equal only in case are two tasks', async () => {
    const m = await mapRun(runInput({ runSpec: runSpec(), perInstance: [entry('ID1', 0, instanceStats(1)), entry('id1', 0, instanceStats(0))] }));
    expect(jsonlOf(m.files, 'ledger.jsonl').map((t) => t.task_id)).toEqual(['ID1', 'id1']);
  });

  it('a request that reports another model is kept as evidence and fails IDENTITY_MISMATCH', async () => {
    const run = { ...toyRun(), scenarioState: scenarioState([requestState('id1', 0, { model: 'other/model' }), requestState('id2', 0)]) };
    const r = await importInput(helmImporter, runInput(run), await temp(), helmRequest());
    expect(r.status).toBe('invalid');
    expect(r.findings.map((f) => f.code)).toContain('IDENTITY_MISMATCH');
  });
});
