/**
 * The SWE-bench importer: the mapping on small synthetic runs (every branch
 * of the outcome and pass rule), the real partial run (pinned bundle id, the
 * imported headline against the run report's own figure), determinism,
 * detection, `import auto`, and hostile input.
 */
import { copyFile, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../../src/evidence/seal.ts';
import { digestBytes } from '../../../src/json/canonical.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { importPath } from '../../../src/import/import-input.ts';
import { sweBenchImporter } from '../../../src/import/swebench/importer.ts';
import { inspectImporter } from '../../../src/import/inspect/importer.ts';
import { runCli } from '../../helpers/cli.ts';
import { listTree, REAL_LOGS, rejection, tempDirs, verifyDir } from '../helpers.ts';
import { dirInput, harnessPath, jsonl, jsonOf, linesOf, mapRun, MODEL, notesOf, pred, report, runReport } from './helpers.ts';

const REAL = new URL('../../../content/imported/swe-bench/', import.meta.url).pathname;
const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;

function bundleId(m: { files: Map<string, Uint8Array>; planId: string }): string {
  return JSON.parse(sealManifest(m.files, m.planId).toString('utf8')).bundle_id as string;
}

/** Six instances, one per branch: resolved, unresolved, patch not applied, regression, empty patch, missing report. */
function sixBranches(extraRunReport: Partial<Record<string, unknown>> = {}) {
  const ids = ['a__a-1', 'b__b-2', 'c__c-3', 'd__d-4', 'e__e-5', 'f__f-6'];
  return dirInput({
    'all_preds.jsonl': jsonl([pred(ids[0]!, 'diff a'), pred(ids[1]!, 'diff b'), pred(ids[2]!, 'diff c'), pred(ids[3]!, 'diff d'), pred(ids[4]!, ''), pred(ids[5]!, 'diff f')]),
    [`${MODEL}.r1.json`]: { ...runReport({ submitted: ids, resolved: [ids[0]!], unresolved: [ids[1]!, ids[2]!, ids[3]!], empty: [ids[4]!], error: [ids[5]!] }), ...extraRunReport },
    [harnessPath(ids[0]!)]: report(ids[0]!, { resolved: true }),
    [harnessPath(ids[1]!)]: report(ids[1]!, { resolved: false }),
    [harnessPath(ids[2]!)]: report(ids[2]!, { resolved: false, applied: false }),
    [harnessPath(ids[3]!)]: report(ids[3]!, { resolved: false, p2pFail: ['t::broken'] }),
    [`${harnessPath(ids[0]!).replace('report.json', 'test_output.txt')}`]: 'PASSED t::f2p\n',
  });
}

describe('the mapping, on a synthetic run', () => {
  it('maps each branch: resolved pass, unresolved fail, not applied fail, empty patch model_failure, missing report harness_failure', async () => {
    const m = await mapRun(sixBranches());
    const attempts = linesOf(m, 'attempts.jsonl');
    expect(attempts.map((a) => [a.task_id, a.outcome])).toEqual([
      ['a__a-1', 'completed'],
      ['b__b-2', 'completed'],
      ['c__c-3', 'completed'],
      ['d__d-4', 'completed'],
      ['e__e-5', 'model_failure'],
      ['f__f-6', 'harness_failure'],
    ]);
    const grades = jsonOf(m, 'grades/1.json');
    expect(grades.results.map((r: { attempt_id: string; verdict: string }) => [r.attempt_id, r.verdict])).toEqual([
      ['a-000001', 'pass'],
      ['a-000002', 'fail'],
      ['a-000003', 'fail'],
      ['a-000004', 'fail'],
    ]);
    for (const a of attempts) {
      expect(a).toMatchObject({ model: MODEL, observed_model: MODEL, index: 1, tokens: null, cost: { state: 'unavailable', micros: null }, wall_seconds: 0, started_at: '1970-01-01T00:00:00Z', retries: 0 });
    }
    // The patch artifact is the model_patch's bytes; an empty patch has none.
    expect(attempts[0].patch).toBe(digestBytes(Buffer.from('diff a')));
    expect(Buffer.from(m.files.get(`artifacts/${attempts[0].patch.slice(7)}.patch`)!).toString()).toBe('diff a');
    expect(attempts[4].patch).toBeNull();
    // The regression is in the receipt.
    const receipt = JSON.parse(Buffer.from(m.files.get(`artifacts/${grades.results[3].receipt.slice(7)}.json`)!).toString());
    expect(receipt).toMatchObject({ instance_id: 'd__d-4', regression: true, pass_to_pass_failures: 1 });
    const plan = jsonOf(m, 'plan.json');
    expect(plan).toMatchObject({ created_at: '1970-01-01T00:00:00Z', budget: null, attempts: 1, seed: 0, origin: { kind: 'imported', format: 'swe-bench-run' } });
    expect(plan.origin.source).toBe(digestBytes(m.files.get('source/all_preds.jsonl')!));
    expect(plan.subjects).toEqual([{ selector: MODEL, model: MODEL, agent: { name: 'unknown', version: 'unknown' }, role: 'candidate' }]);
    const ledger = linesOf(m, 'ledger.jsonl');
    expect(ledger[0]).toMatchObject({ task_id: 'a__a-1', repo: null, base_sha: null, license: 'MIT', created_at: '1970-01-01T00:00:00Z' });
    // Only the files read are kept: not the test log.
    expect([...m.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual([
      `source/${MODEL}.r1.json`,
      'source/all_preds.jsonl',
      ...['a__a-1', 'b__b-2', 'c__c-3', 'd__d-4'].map((id) => `source/${harnessPath(id)}`),
    ]);
    const notes = notesOf(m);
    expect(notes).toContain('- 1 instance with an empty patch: outcome model_failure (the model produced nothing), not graded and not "unresolved"');
    expect(notes).toContain('- 1 instance without a report.json and without an empty patch: outcome harness_failure (a missing report is an error), not graded; 1 of them listed as errors by the aggregate');
    expect(notes).toContain('- 1 patch that did not apply: graded fail, as the harness counts them');
    expect(notes).toContain('- 1 graded attempt broke a PASS_TO_PASS test (a regression): noted in the receipt');
    expect(notes).not.toContain('No usable grades');
    expect(m.summary).toMatchObject({ tasks: 6, attempts: 6, epochs: 1, status: 'run report: 1 resolved of 6 submitted' });
  });

  it('states every inconsistency between the run report and the reports', async () => {
    const m = await mapRun(sixBranches({ resolved_ids: ['b__b-2', 'f__f-6'], unresolved_ids: ['a__a-1'], resolved_instances: 5, empty_patch_ids: ['a__a-1'] }));
    const notes = notesOf(m);
    expect(notes).toContain('- the run report contradicts itself: 2 counts (such as resolved_instances) differ from the length of the matching id list');
    expect(notes).toContain('- 1 instance listed as resolved by the aggregate has no report.json here: not graded (harness_failure), not counted as resolved');
    expect(notes).toContain('- 1 instance listed as resolved by the aggregate is not resolved in its report.json: graded by the report.json (fail)');
    expect(notes).toContain('- 1 instance listed as unresolved by the aggregate is resolved in its report.json: graded by the report.json (pass)');
    expect(notes).toContain("- 1 instance resolved in its report.json is not in the aggregate's resolved list: graded by the report.json (pass)");
    expect(notes).toContain('- 1 instance listed as an empty patch by the aggregate has a non-empty patch in the predictions');
    expect(notes).toContain("- 1 instance with an empty patch in the predictions is not in the aggregate's empty-patch list");
    // Two of a kind: the plural (each line reads as a sentence for one instance and for several).
    const two = notesOf(await mapRun(sixBranches({ resolved_ids: ['a__a-1', 'c__c-3', 'd__d-4'] })));
    expect(two).toMatch(/- 2 instances listed as resolved by the aggregate (have no report\.json here|are not resolved in their report\.json)/);
    // The grades come from the report.json files, never from the aggregate.
    expect(jsonOf(m, 'grades/1.json').results.map((r: { verdict: string }) => r.verdict)).toEqual(['pass', 'fail', 'fail', 'fail']);
  });

  it('a run of only empty patches and missing reports has no usable grades... except empty patches, which are measured failures', async () => {
    const onlyMissing = await mapRun(dirInput({ 'preds.jsonl': jsonl([pred('x__x-1', 'diff')]) }));
    expect(notesOf(onlyMissing)).toContain('## No usable grades');
    expect(onlyMissing.summary.missing[0]).toMatch(/^no usable grades/);
    const onlyEmpty = await mapRun(dirInput({ 'preds.jsonl': jsonl([pred('x__x-1', null)]) }));
    expect(notesOf(onlyEmpty)).not.toContain('## No usable grades');
    expect(linesOf(onlyEmpty, 'attempts.jsonl')[0].outcome).toBe('model_failure');
  });

  it('reads the SWE-bench/experiments layout: all_preds.jsonl, results/results.json, logs/<id>/report.json', async () => {
    const m = await mapRun(
      dirInput({
        'all_preds.jsonl': jsonl([pred('a__a-1', 'diff'), pred('b__b-2', ''), pred('c__c-3', 'diff')]),
        'results/results.json': { no_generation: ['b__b-2'], no_logs: ['c__c-3'], resolved: ['a__a-1'] },
        'logs/a__a-1/report.json': report('a__a-1', { resolved: true }),
        'metadata.yaml': 'name: x\n',
      }),
    );
    expect(linesOf(m, 'attempts.jsonl').map((a) => a.outcome)).toEqual(['completed', 'model_failure', 'harness_failure']);
    expect(notesOf(m)).not.toMatch(/listed as resolved|contradicts/);
    expect(await sweBenchImporter.sourceMetrics!(new Map([...m.files].filter(([p]) => p.startsWith('source/'))), 'swe-bench-report')).toEqual([{ name: 'resolved (results.json)', value: 1 }]);
  });

  it('without predictions, takes the model from the harness log folder and the tasks from the run report', async () => {
    const m = await mapRun(
      dirInput({
        'x.r.json': runReport({ submitted: ['a__a-1', 'b__b-2'], resolved: ['a__a-1'], unresolved: ['b__b-2'] }),
        [harnessPath('a__a-1')]: report('a__a-1', { resolved: true }),
      }),
    );
    expect(jsonOf(m, 'plan.json').subjects[0].model).toBe(MODEL);
    expect(linesOf(m, 'attempts.jsonl').map((a) => [a.task_id, a.outcome, a.patch])).toEqual([
      ['a__a-1', 'completed', null],
      ['b__b-2', 'harness_failure', null],
    ]);
    expect(notesOf(m)).toContain('- no predictions file: no patches');
  });
});

describe('the real run (content/imported/swe-bench, MIT)', () => {
  /** The imported headline against the run report's own figure, with the reason they differ. */
  const TABLE = [
    {
      dir: 'tonight',
      bundle: 'd30af66cb7e5',
      imported: { resolved: 1, graded: 37 },
      source: { resolved_instances: 25, submitted_instances: 37, total_instances: 300 },
      reason: 'the copy holds 3 of the 37 per-instance reports: 34 instances are harness_failure (missing report), 24 of the run report\'s resolved ones among them',
    },
  ];

  it.each(TABLE)('$dir imports with its pinned bundle id, verifies, and its headline is stated against the source', async (row) => {
    const r = await importPath(sweBenchImporter, join(REAL, row.dir), await temp(), { license: 'MIT', flags: {}, limits: L });
    expect(r.status).toBe('verified');
    expect(r.bundleId.slice(7, 19)).toBe(row.bundle);
    const v = await verifyDir(r.dir);
    const results = v.evidence.grades.flatMap((g) => g.file().grades.results);
    expect({ resolved: results.filter((g) => g.verdict === 'pass').length, graded: v.evidence.attempts.lines().length }).toEqual(row.imported);
    const sources = new Map<string, Uint8Array>();
    for (const p of (await listTree(join(r.dir, 'source'))).filter((p) => p.endsWith('.json'))) sources.set(`source/${p}`, await readFile(join(r.dir, 'source', p)));
    expect(await sweBenchImporter.sourceMetrics!(sources, 'swe-bench-report')).toEqual([
      { name: 'resolved_instances', value: row.source.resolved_instances },
      { name: 'resolved_instances / total_instances', value: row.source.resolved_instances / row.source.total_instances },
      { name: 'resolved_instances / submitted_instances', value: row.source.resolved_instances / row.source.submitted_instances },
    ]);
    expect(row.reason).not.toBe('');
    // Every kept original is the input file byte for byte.
    for (const p of await listTree(join(r.dir, 'source'))) {
      const kept = await readFile(join(r.dir, 'source', p)).catch(() => null);
      if (kept !== null) expect(kept.equals(await readFile(join(REAL, row.dir, p)))).toBe(true);
    }
  });

  it('the run report alone (tonight-v2c) is refused with its reason', async () => {
    const message = await rejection(importPath(sweBenchImporter, join(REAL, 'tonight-v2c'), await temp(), { license: 'MIT', flags: {}, limits: L }));
    expect(message).toMatch(/^the directory holds a run report but neither predictions nor per-instance reports/);
  });

  it('re-imports to the same bytes in any time zone', async () => {
    const input = await readImportInput(join(REAL, 'tonight'), L);
    const saved = process.env.TZ;
    try {
      const ids: string[] = [];
      for (const tz of ['UTC', 'Asia/Kolkata', 'Pacific/Chatham']) {
        process.env.TZ = tz;
        ids.push(bundleId(await mapRun(input)));
      }
      expect(new Set(ids).size).toBe(1);
    } finally {
      process.env.TZ = saved;
    }
  });

  it('maps the same bundle from only the files it keeps', async () => {
    const input = await readImportInput(join(REAL, 'tonight'), L);
    const m = await mapRun(input);
    const kept = new Map([...m.files].filter(([p]) => p.startsWith('source/')).map(([p, b]) => [p.slice(7), b] as [string, Uint8Array]));
    expect(bundleId(await mapRun({ ...input, files: kept }))).toBe(bundleId(m));
  });
});

describe('detect and import auto', () => {
  it('claims run directories only, by content', async () => {
    expect(await sweBenchImporter.detect(await readImportInput(join(REAL, 'tonight'), L), L)).toBe(true);
    expect(await sweBenchImporter.detect(await readImportInput(join(REAL, 'tonight-v2c'), L), L)).toBe(true);
    expect(await sweBenchImporter.detect(await readImportInput(REAL_LOGS, L), L)).toBe(false);
    expect(await sweBenchImporter.detect(await readImportInput(join(REAL_LOGS, 'log_formats.json'), L), L)).toBe(false);
    expect(await sweBenchImporter.detect(dirInput({ 'a.json': { resolved: true, x: 1 }, 'b.jsonl': '{"a":1}\n' }), L)).toBe(false);
    // A file named like a run report is not one.
    expect(await sweBenchImporter.detect(dirInput({ 'model.run.json': '[1,2]', 'all_preds.jsonl': 'not json' }), L)).toBe(false);
    // Neither does inspect claim a run directory's files.
    for (const f of ['glm-5.3-zcode-campaign.tonight.json']) {
      const input = await readImportInput(join(REAL, 'tonight', f), L);
      expect(await inspectImporter.detect(input, L)).toBe(false);
    }
  });

  it('import auto on a directory holding a run and an Inspect log imports both', async () => {
    const root = await temp();
    await mkdir(join(root, 'mixed'));
    await cp(join(REAL, 'tonight'), join(root, 'mixed', 'run'), { recursive: true });
    await copyFile(join(REAL_LOGS, 'log_streaming.eval'), join(root, 'mixed', 'streaming.eval'));
    const r = await runCli(['import', 'auto', join(root, 'mixed'), '-o', join(root, 'out'), '--license', 'MIT']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verified {3}swe-bench {7}bundle d30af66cb7e5 /m);
    expect(r.stdout).toMatch(/^verified {3}inspect /m);
    expect(r.stdout).toContain('2 inputs: 2 imported and verified, 0 failed');
  });
});

describe('hostile input', () => {
  const ok = { 'all_preds.jsonl': jsonl([pred('a__a-1', 'diff')]) };

  it('refuses a bad predictions line with its number, never a crash', async () => {
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a__a-1', 'd')]) + '{"instance_id": "b", "model_patch": \n' })))).toMatch(/^line 2 of the predictions file "p\.jsonl" is not readable JSON/);
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a__a-1', 'd'), { instance_id: 7, model_name_or_path: 'm', model_patch: 'x' }]) })))).toMatch(
      /^line 2 of the predictions file "p\.jsonl" is not of the SWE-bench shape: instance_id/,
    );
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a__a-1', 'd')]) + '\n' + jsonl([pred('b', 'd')]) })))).toMatch(/^line 2 of the predictions file "p\.jsonl" is blank/);
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a__a-1', 'd'), pred('a__a-1', 'e')]) })))).toMatch(/^the predictions hold instance "a__a-1" twice/);
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a__a-1', 'd'), pred('b__b-1', 'e', 'other')]) })))).toMatch(/^the predictions name 2 models/);
  });

  it('refuses a truncated or mistyped report, and a report outside its instance folder', async () => {
    const bad = { ...report('a__a-1', { resolved: true }) };
    (bad['a__a-1'] as Record<string, unknown>).patch_successfully_applied = 'yes';
    expect(await rejection(mapRun(dirInput({ ...ok, [harnessPath('a__a-1')]: bad })))).toMatch(/^the report ".*" is not of the SWE-bench shape: patch_successfully_applied/);
    expect(await rejection(mapRun(dirInput({ ...ok, 'logs/b__b-9/report.json': report('a__a-1', { resolved: true }) })))).toMatch(/^the report "logs\/b__b-9\/report\.json" is for instance "a__a-1" but does not sit in a folder of that name/);
    expect(await rejection(mapRun(dirInput({ ...ok, 'logs/a__a-1/report.json': report('a__a-1', { resolved: true }), [harnessPath('a__a-1')]: report('a__a-1', { resolved: false }) })))).toMatch(/^two reports for instance "a__a-1"/);
    // A truncated report is refused with its name and reason, never skipped (the instance would silently become a missing report: malformed.test.ts).
    const text = JSON.stringify(report('a__a-1', { resolved: true }));
    expect(await rejection(mapRun(dirInput({ ...ok, [harnessPath('a__a-1')]: text.slice(0, text.length - 5) })))).toMatch(/^the report ".*a__a-1\/report\.json" is not readable JSON: /);
  });

  it('refuses two predictions files, two run reports, and a directory of neither', async () => {
    expect(await rejection(mapRun(dirInput({ ...ok, 'b.jsonl': jsonl([pred('a__a-1', 'diff')]) })))).toMatch(/^the directory holds two predictions files \("all_preds\.jsonl" and "b\.jsonl"\)/);
    const rr = runReport({ submitted: ['a__a-1'], resolved: [], unresolved: ['a__a-1'] });
    expect(await rejection(mapRun(dirInput({ ...ok, 'x.1.json': rr, 'x.2.json': rr })))).toMatch(/^the directory holds two run reports/);
    expect(await rejection(mapRun(dirInput({ 'README.md': '# hi\n', 'x.json': { a: 1 } })))).toMatch(/^not a SWE-bench run/);
  });

  it('refuses over maxRecords and a string over maxStringBytes (never cut)', async () => {
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a', 'd'), pred('b', 'd'), pred('c', 'd')]) }), { maxRecords: 2 }))).toMatch(/^the predictions file holds 3 lines, more than the 2 records/);
    expect(await rejection(mapRun(dirInput({ 'p.jsonl': jsonl([pred('a'.repeat(300), 'd')]) }), { maxStringBytes: 256 }))).toMatch(/^the instance_id on line 1 of the predictions file "p\.jsonl" is 300 bytes long/);
  });

  it('carries markup and shell metacharacters in ids and model names as data, never in a path', async () => {
    const id = '<script>alert(1)</script>$(rm -rf /)"\n\'';
    const model = 'm`whoami`; <b>x</b>';
    const m = await mapRun(dirInput({ 'p.jsonl': jsonl([pred(id, 'diff', model)]) }));
    expect(linesOf(m, 'attempts.jsonl')[0]).toMatchObject({ task_id: id, model });
    for (const path of m.files.keys()) expect(path).toMatch(/^(plan\.json|ledger\.jsonl|attempts\.jsonl|NOTES\.md|grades\/1\.json|source\/p\.jsonl|artifacts\/[0-9a-f]{64}\.(json|patch))$/);
    expect(notesOf(m)).not.toContain('<script>');
    expect(notesOf(m)).not.toContain('whoami');
    // Through the whole import: the bundle verifies.
    const root = await temp();
    await mkdir(join(root, 'run'));
    await writeFile(join(root, 'run', 'p.jsonl'), jsonl([pred(id, 'diff', model)]));
    const r = await importPath(sweBenchImporter, join(root, 'run'), join(root, 'out'), { license: '', flags: {}, limits: L });
    expect(r.status).toBe('verified');
  });

  it('a file input is refused: a run is a directory', async () => {
    const input = await readImportInput(join(REAL, 'tonight', 'glm-5.3-zcode-campaign.tonight.json'), L);
    expect(await sweBenchImporter.detect(input, L)).toBe(false);
    expect(await rejection(mapRun(input))).toMatch(/^a SWE-bench run is a directory/);
  });
});
