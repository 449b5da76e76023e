/**
 * SWE-bench/experiments submissions (issue 26): `results/results.json` is the
 * grade where no per-instance report is (grader swe-bench-results-json),
 * reports are used and cross-checked where present, the subject comes from
 * metadata.yaml without predictions, only the files read are kept (a
 * re-import from them gives the same bundle id), NOTES.md says the right
 * thing for results.json (it has no submitted list), passRule and
 * transcripts; a results.json alone (no predictions, no reports) is refused:
 * it does not list the unresolved instances, so the denominator is unknown;
 * and hostile metadata.yaml / results.json.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../../src/evidence/seal.ts';
import { ImportError } from '../../../src/import/errors.ts';
import { importPath } from '../../../src/import/import-input.ts';
import { readImportInput } from '../../../src/import/input.ts';
import type { ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { sweBenchImporter } from '../../../src/import/swebench/importer.ts';
import { transcriptKey, TRANSCRIPT_TEXT_CHARS } from '../../../src/import/transcript.ts';
import { resultsOnlyRefusal } from '../../../src/import/swebench/read-run.ts';
import { rejection, tempDirs } from '../helpers.ts';
import { dirInput, jsonl, jsonOf, linesOf, mapRun, notesOf, pred, report } from './helpers.ts';

const temp = tempDirs();

function bundleId(m: { files: Map<string, Uint8Array>; planId: string }): string {
  return JSON.parse(sealManifest(m.files, m.planId).toString('utf8')).bundle_id as string;
}

function keptOnly(m: { files: Map<string, Uint8Array> }): ImportInput {
  const files = new Map([...m.files].filter(([p]) => p.startsWith('source/')).map(([p, b]) => [p.slice(7), b] as [string, Uint8Array]));
  return { name: 'kept', kind: 'directory', files, skipped: [] };
}

function sources(m: { files: Map<string, Uint8Array> }): Map<string, Uint8Array> {
  return new Map([...m.files].filter(([p]) => p.startsWith('source/')));
}

const METADATA = ['info:', '  name: Acme Agent v2', '  site: https://example.org', 'tags:', '  checked: false', '  model:', '    - acme-model-7', '  os_model: false', '  system:', '    attempts: 1', ''].join('\n');
const RESULTS = { no_generation: ['b__b-2'], no_logs: ['d__d-4'], resolved: ['a__a-1'] };

/** A submission with predictions and results.json, no per-instance reports (four instances, one per outcome). */
function withPredictions(extra: Record<string, unknown> = {}) {
  return dirInput({
    'all_preds.jsonl': jsonl([pred('a__a-1', 'diff a'), pred('b__b-2', ''), pred('c__c-3', 'diff c'), pred('d__d-4', 'diff d')]),
    'results/results.json': RESULTS,
    'metadata.yaml': METADATA,
    'README.md': '# submission\n',
    'results/resolved_by_repo.json': { a: 1 },
    ...extra,
  });
}

describe('NOTES.md on an experiments results.json (the bug: it has no submitted list)', () => {
  it('never says a prediction is "not in the run report\'s submitted list"; says what results.json is instead', async () => {
    const notes = notesOf(await mapRun(withPredictions()));
    expect(notes).not.toContain('submitted list');
    expect(notes).toContain(
      "- 2 attempts graded by the submission's own results/results.json (no report.json here): pass when in its resolved list (1), else fail; an id in a list is weaker evidence than a per-instance report (no test results)",
    );
    expect(notes).toContain("- 1 instance without a report.json in results.json's no_logs list: outcome harness_failure (not evaluated), not graded");
  });

  it('an id results.json lists without a prediction is said as such', async () => {
    const notes = notesOf(await mapRun(withPredictions({ 'results/results.json': { ...RESULTS, resolved: ['a__a-1', 'z__z-9'] } })));
    expect(notes).toContain('- 1 instance listed in results.json has no prediction and no report.json here: not imported as a task');
  });
});

describe('an experiments submission imports, graded by its results.json', () => {
  it('with predictions and no reports: resolved pass, unlisted fail, no_generation model_failure, no_logs harness_failure', async () => {
    const m = await mapRun(withPredictions());
    expect(linesOf(m, 'attempts.jsonl').map((a) => [a.task_id, a.outcome])).toEqual([
      ['a__a-1', 'completed'],
      ['b__b-2', 'model_failure'],
      ['c__c-3', 'completed'],
      ['d__d-4', 'harness_failure'],
    ]);
    const grades = jsonOf(m, 'grades/1.json');
    expect(grades.grader.id).toBe('swe-bench-results-json');
    expect(grades.results.map((r: { attempt_id: string; verdict: string }) => [r.attempt_id, r.verdict])).toEqual([
      ['a-000001', 'pass'],
      ['a-000003', 'fail'],
    ]);
    const receipt = JSON.parse(Buffer.from(m.files.get(`artifacts/${grades.results[0].receipt.slice(7)}.json`)!).toString());
    expect(receipt).toEqual({ instance_id: 'a__a-1', graded_by: 'results/results.json', in_resolved: true, report: null });
    const plan = jsonOf(m, 'plan.json');
    expect(plan.grader).toMatchObject({ id: 'swe-bench-results-json', profile: 'swe-bench-submission-results-json', version: '1' });
    // With predictions the subject is the predictions' model; metadata.yaml is not read, so not kept.
    expect(plan.subjects[0]).toMatchObject({ selector: 'acme__agent-1', model: 'acme__agent-1' });
    expect([...m.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual(['source/all_preds.jsonl', 'source/results/results.json']);
    expect(m.summary.scorer).toBe('swe-bench-results-json');
    expect(m.summary.missing[0]).not.toMatch(/^no usable grades/);
    expect(bundleId(await mapRun(keptOnly(m)))).toBe(bundleId(m));
  });

  it('uses per-instance reports where present and counts every disagreement with results.json', async () => {
    const m = await mapRun(
      withPredictions({
        'all_preds.jsonl': jsonl([pred('a__a-1', 'diff a'), pred('c__c-3', 'diff c'), pred('e__e-5', 'diff e'), pred('f__f-6', 'diff f')]),
        'results/results.json': { no_generation: [], no_logs: [], resolved: ['a__a-1', 'f__f-6'] },
        'logs/a__a-1/report.json': report('a__a-1', { resolved: false }),
        'logs/e__e-5/report.json': report('e__e-5', { resolved: true }),
        'logs/a__a-1/test_output.txt': 'FAILED\n',
      }),
    );
    const grades = jsonOf(m, 'grades/1.json');
    // a: the report says not resolved (fail, though listed); c: unlisted, no report (fail by results.json); e: report resolved (pass, though unlisted); f: listed, no report (pass by results.json).
    expect(grades.results.map((r: { verdict: string }) => r.verdict)).toEqual(['fail', 'fail', 'pass', 'pass']);
    expect(grades.grader.id).toBe('swe-bench-results-json');
    const notes = notesOf(m);
    expect(notes).toContain("- 1 instance listed as resolved by the aggregate is not resolved in its report.json: graded by the report.json (fail)");
    expect(notes).toContain("- 1 instance resolved in its report.json is not in the aggregate's resolved list: graded by the report.json (pass)");
    expect(notes).toContain("- 2 attempts graded by the submission's own results/results.json (no report.json here): pass when in its resolved list (1), else fail");
    expect(notes).not.toMatch(/have no report\.json here: not graded|has no report\.json here: not graded/);
    expect(bundleId(await mapRun(keptOnly(m)))).toBe(bundleId(m));
  });

  it('every instance with a report: the report grader, as for a harness run', async () => {
    const m = await mapRun(
      withPredictions({
        'all_preds.jsonl': jsonl([pred('a__a-1', 'diff a')]),
        'results/results.json': { no_generation: [], no_logs: [], resolved: ['a__a-1'] },
        'logs/a__a-1/report.json': report('a__a-1', { resolved: true }),
      }),
    );
    expect(jsonOf(m, 'plan.json').grader).toMatchObject({ id: 'swe-bench-report', profile: 'swe-bench-harness' });
  });

  it('results.json and metadata.yaml only (no predictions, no reports): refused, the denominator is unknown (it imported 442 of 447 for a run of 442 of 500)', async () => {
    const input = dirInput({ 'results/results.json': { no_generation: ['b__b-2'], no_logs: ['d__d-4'], resolved: ['a__a-1', 'c__c-3'] }, 'metadata.yaml': METADATA, 'README.md': '# x\n', 'trajs/a__a-1.traj': '{}' });
    const reason = await rejection(mapRun(input));
    expect(reason).toBe(
      'the submission holds "results/results.json" but no predictions and no per-instance report.json: results.json lists instance ids by outcome (resolved, no_generation, no_logs), ' +
        'and the instances it did not resolve are not listed, so the denominator is unknown (the source divides by the whole split, which no file here lists); ' +
        "add the submission's all_preds.jsonl (its predictions) or the logs/<instance_id>/report.json files",
    );
    expect(reason).toBe(resultsOnlyRefusal('results/results.json'));
    // Without metadata.yaml the same reason (not "the model is not recorded").
    expect(await rejection(mapRun(dirInput({ 'results/results.json': { resolved: ['a__a-1'] } })))).toBe(reason);
    // metadata.yaml is parsed strictly first: a bad one is refused with its own line and reason.
    expect(await rejection(mapRun(dirInput({ 'results/results.json': { resolved: ['a__a-1'] }, 'metadata.yaml': 'info:\n  name: x\n  name: y\n' })))).toMatch(/^the submission metadata "metadata\.yaml" is not readable YAML \(line 3\)/);
  });

  it('reports without predictions: the tasks are the reported and listed instances, no_generation a model_failure task; NOTES says what the denominator is', async () => {
    const input = dirInput({
      'results/results.json': { no_generation: ['b__b-2', 'e__e-5'], no_logs: ['d__d-4'], resolved: ['a__a-1'] },
      'logs/a__a-1/report.json': report('a__a-1', { resolved: true }),
      'logs/c__c-3/report.json': report('c__c-3', { resolved: false }),
      'logs/e__e-5/report.json': report('e__e-5', { resolved: false, patchNone: true }),
      'metadata.yaml': METADATA,
      'README.md': '# x\n',
    });
    const m = await mapRun(input);
    expect(linesOf(m, 'attempts.jsonl').map((a) => [a.task_id, a.outcome, a.patch])).toEqual([
      ['a__a-1', 'completed', null],
      ['b__b-2', 'model_failure', null],
      ['c__c-3', 'completed', null],
      ['d__d-4', 'harness_failure', null],
      ['e__e-5', 'completed', null],
    ]);
    // Every completed attempt has a report: the report grader; 1 resolved of 4 usable (the no_generation one counts, the no_logs one does not).
    const grades = jsonOf(m, 'grades/1.json');
    expect(grades.grader.id).toBe('swe-bench-report');
    expect(grades.results.map((r: { verdict: string }) => r.verdict)).toEqual(['pass', 'fail', 'fail']);
    expect(jsonOf(m, 'plan.json').subjects).toEqual([{ selector: 'Acme Agent v2', model: 'acme-model-7', agent: { name: 'Acme Agent v2', version: 'unknown' }, role: 'candidate' }]);
    expect([...m.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual(['source/logs/a__a-1/report.json', 'source/logs/c__c-3/report.json', 'source/logs/e__e-5/report.json', 'source/metadata.yaml', 'source/results/results.json']);
    const notes = notesOf(m);
    expect(notes).toContain(
      "- without a predictions file the tasks, the rate's denominator, are the 5 instances with a report.json here or listed in results.json (3 with a report.json, 2 listed without one); results.json has no submitted list and does not list the instances it did not resolve, so an instance of the split with neither (not evaluated, or its report not kept) is not imported: the source's own rate divides by the whole split instead",
    );
    expect(notes).toContain('- 1 instance with an empty patch: outcome model_failure');
    expect(notes).toContain("- 1 instance without a report.json in results.json's no_logs list: outcome harness_failure (not evaluated), not graded");
    expect(notes).toContain('files of the submission other than results.json, the per-instance reports and metadata.yaml');
    expect(notes).not.toContain('results.json has no submitted list (it lists resolved');
    expect(m.summary.unkept).toEqual(['1 other file of the input not kept (only the predictions, the run report or results.json, the per-instance reports and, without predictions, metadata.yaml are)']);
    expect(bundleId(await mapRun(keptOnly(m)))).toBe(bundleId(m));
  });

  it('reports in the experiments layout without predictions (refused before): the subject from metadata.yaml, several models named', async () => {
    const meta = 'info:\n  name: Multi\ntags:\n  model:\n    - m-1\n    - m-2\n';
    const m = await mapRun(
      dirInput({
        'results/results.json': { resolved: ['a__a-1'], no_logs: [] },
        'logs/a__a-1/report.json': report('a__a-1', { resolved: true }),
        'logs/c__c-3/report.json': report('c__c-3', { resolved: false }),
        'metadata.yaml': meta,
      }),
    );
    expect(jsonOf(m, 'plan.json').subjects[0]).toMatchObject({ selector: 'Multi', model: 'Multi', agent: { name: 'Multi' } });
    expect(jsonOf(m, 'grades/1.json').results.map((r: { verdict: string }) => r.verdict)).toEqual(['pass', 'fail']);
    expect(notesOf(m)).toContain("model the system's name (tags.model names 2 models)");
    // A top-level "name" (an older metadata shape) names the system too.
    const old = await mapRun(dirInput({ 'results/results.json': { resolved: ['a__a-1'] }, 'logs/a__a-1/report.json': report('a__a-1', { resolved: true }), 'metadata.yaml': 'name: Old Style\noss: true\n' }));
    expect(jsonOf(old, 'plan.json').subjects[0]).toMatchObject({ selector: 'Old Style', model: 'Old Style' });
  });

  it('without predictions, reports in the harness layout or metadata.yaml, the subject is unknown: refused with the reason', async () => {
    const reports = { 'results/results.json': { resolved: ['a__a-1'] }, 'logs/a__a-1/report.json': report('a__a-1', { resolved: true }) };
    expect(await rejection(mapRun(dirInput(reports)))).toMatch(/^the directory holds no predictions file, no metadata\.yaml, and its reports are not in the harness layout/);
  });

  it('through the whole import the bundle verifies (reports, no predictions); results.json alone is refused, nothing written', async () => {
    const root = await temp();
    await mkdir(join(root, 'sub', 'results'), { recursive: true });
    await writeFile(join(root, 'sub', 'results', 'results.json'), JSON.stringify(RESULTS));
    await writeFile(join(root, 'sub', 'metadata.yaml'), METADATA);
    const options = { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS };
    expect(await rejection(importPath(sweBenchImporter, join(root, 'sub'), join(root, 'refused'), options))).toBe(resultsOnlyRefusal('results/results.json'));
    expect(existsSync(join(root, 'refused'))).toBe(false);
    await mkdir(join(root, 'sub', 'logs', 'a__a-1'), { recursive: true });
    await writeFile(join(root, 'sub', 'logs', 'a__a-1', 'report.json'), JSON.stringify(report('a__a-1', { resolved: true })));
    const r = await importPath(sweBenchImporter, join(root, 'sub'), join(root, 'out'), options);
    expect(r.status).toBe('verified');
  });
});

describe('passRule and the source figure', () => {
  it('reads the rule back from the grader id, one sentence per grader', () => {
    expect(sweBenchImporter.passRule!({ grader: { id: 'swe-bench-report' } })).toBe(
      "resolved: the instance's report.json says resolved (its FAIL_TO_PASS and PASS_TO_PASS tests pass); a patch that did not apply is fail, an empty patch a model failure and a missing report.json a harness failure, neither graded",
    );
    const results = sweBenchImporter.passRule!({ grader: { id: 'swe-bench-results-json' } });
    expect(results).toContain("else the instance is in results.json's resolved list (the submission's own results file, weaker than a report)");
    expect(results).not.toMatch(/pass-threshold|\bC\b/);
  });

  it('the source figure of results.json is its own count (repeats included), beside the imported one', async () => {
    const m = await mapRun(withPredictions({ 'results/results.json': { ...RESULTS, resolved: ['a__a-1', 'a__a-1', 'c__c-3'] } }));
    expect(await sweBenchImporter.sourceMetrics!(sources(m), 'swe-bench-results-json')).toEqual([{ name: 'resolved (results.json)', value: 3 }]);
    expect(jsonOf(m, 'grades/1.json').results.filter((r: { verdict: string }) => r.verdict === 'pass')).toHaveLength(2);
    expect(notesOf(m)).toContain("- results.json names 1 instance id again within one list: each is one task (the source's own count of a list counts every repeat)");
  });
});

describe('transcripts', () => {
  it('the submitted patch as one assistant message, and the report\'s scores, keyed as the attempts', async () => {
    const m = await mapRun(
      withPredictions({
        'all_preds.jsonl': jsonl([pred('a__a-1', 'diff --git a/x b/x\n+<script>'), pred('b__b-2', null), pred('c__c-3', 'diff c')]),
        'logs/a__a-1/report.json': report('a__a-1', { resolved: true, p2pFail: ['t::x', 't::y'] }),
      }),
    );
    const attempts = linesOf(m, 'attempts.jsonl');
    const t = await sweBenchImporter.transcripts!(sources(m), DEFAULT_IMPORT_LIMITS);
    expect([...t.keys()].sort()).toEqual(attempts.map((a) => transcriptKey(a.task_id, a.index)).sort());
    const a = t.get(transcriptKey('a__a-1', 1))!;
    expect(a.messages).toEqual([{ role: 'assistant', text: 'diff --git a/x b/x\n+<script>', toolCalls: [], tool: null, omitted: 0 }]);
    expect(a.scores.map((s) => [s.name, s.value])).toEqual([
      ['resolved', 'true'],
      ['patch_successfully_applied', 'true'],
      ['FAIL_TO_PASS', '{"success":1,"failure":0}'],
      ['PASS_TO_PASS', '{"success":1,"failure":2}'],
    ]);
    expect(t.get(transcriptKey('c__c-3', 1))!.scores).toEqual([]);
    expect(t.get(transcriptKey('b__b-2', 1))!.messages[0]!.text).toBe('');
  });

  it('a patch past the page budget is cut and the cut counted', async () => {
    const big = 'x'.repeat(TRANSCRIPT_TEXT_CHARS + 10);
    const m = await mapRun(dirInput({ 'all_preds.jsonl': jsonl([pred('a__a-1', big)]) }));
    const t = await sweBenchImporter.transcripts!(sources(m), DEFAULT_IMPORT_LIMITS);
    const a = t.get(transcriptKey('a__a-1', 1))!;
    expect(a.messages[0]!.text.length).toBe(TRANSCRIPT_TEXT_CHARS);
    expect(a.cut).toBe(10);
  });

  it('a run without predictions has transcripts of scores only, for reported instances', async () => {
    const m = await mapRun(dirInput({ 'results/results.json': { resolved: ['a__a-1'] }, 'logs/a__a-1/report.json': report('a__a-1', { resolved: true }), 'metadata.yaml': METADATA }));
    const t = await sweBenchImporter.transcripts!(sources(m), DEFAULT_IMPORT_LIMITS);
    expect([...t.keys()]).toEqual([transcriptKey('a__a-1', 1)]);
    expect(t.get(transcriptKey('a__a-1', 1))!.messages).toEqual([]);
  });
});

describe('hostile metadata.yaml and results.json', () => {
  // results.json alone is refused (its denominator is unknown), but only after metadata.yaml is parsed: these test the parser.
  const base = { 'results/results.json': { resolved: ['a__a-1'] } };
  const withMeta = (text: string) => dirInput({ ...base, 'metadata.yaml': text });

  it('refuses anchors and aliases (a billion-laughs bomb), duplicate keys, tags and several documents, with the line', async () => {
    const bomb = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]', 'info:', '  name: *d', ''].join('\n');
    expect(await rejection(mapRun(withMeta(bomb)))).toMatch(/^the submission metadata "metadata\.yaml" \(line 1\) sets an anchor \(&a\): anchors and aliases are not accepted/);
    expect(await rejection(mapRun(withMeta('info:\n  name: x\n  name: y\n')))).toMatch(/^the submission metadata "metadata\.yaml" is not readable YAML \(line 3\): a key appears twice in one mapping/);
    expect(await rejection(mapRun(withMeta('info:\n  name: !!binary aGk=\n')))).toMatch(/uses a tag: tags are not accepted in metadata\.yaml/);
    expect(await rejection(mapRun(withMeta('info:\n  name: x\n---\ninfo:\n  name: y\n')))).toMatch(/is not readable YAML \(line \d+\): it holds more than one YAML document/);
    expect(await rejection(mapRun(withMeta('info: [unclosed\n')))).toMatch(/^the submission metadata "metadata\.yaml" is not readable YAML/);
  });

  it('refuses wrong types, a missing name, a huge string (never cut), invalid UTF-8, a huge file and deep nesting', async () => {
    expect(await rejection(mapRun(withMeta('info:\n  name: 5\n')))).toMatch(/: info\.name must be a non-empty string$/);
    expect(await rejection(mapRun(withMeta('info: [1, 2]\n')))).toMatch(/: info must be a mapping$/);
    expect(await rejection(mapRun(withMeta('info:\n  name: x\ntags:\n  model: {a: 1}\n')))).toMatch(/: tags\.model must be a list of model names$/);
    expect(await rejection(mapRun(withMeta('info:\n  name: x\ntags:\n  model: [ok, 7]\n')))).toMatch(/: tags\.model\[1\] must be a non-empty string$/);
    expect(await rejection(mapRun(withMeta('- a\n- b\n')))).toMatch(/is not a YAML mapping/);
    expect(await rejection(mapRun(withMeta('tags:\n  model: [m]\n')))).toMatch(/names no system \(info\.name\)/);
    expect(await rejection(mapRun(withMeta(`info:\n  name: ${'n'.repeat(300)}\n`), { maxStringBytes: 256 }))).toMatch(/^info\.name of the submission metadata "metadata\.yaml" is 300 bytes long, more than the 256/);
    expect(await rejection(mapRun(invalidUtf8()))).toMatch(/is not UTF-8 text$/);
    expect(await rejection(mapRun(withMeta(`info:\n  name: x\n  pad: "${'p'.repeat(1 << 20)}"\n`)))).toMatch(/is \d+ bytes, more than the 1048576 a metadata\.yaml may be$/);
    expect(await rejection(mapRun(withMeta(`info:\n  name: x\ndeep: ${'['.repeat(100)}${']'.repeat(100)}\n`)))).toMatch(/nests deeper than 64/);
  });

  it('results.json: ids past string_bytes are refused, a non-list member refused, repeats and contradictions counted', async () => {
    expect(await rejection(mapRun(dirInput({ 'results/results.json': { resolved: ['a'.repeat(300)] }, 'metadata.yaml': METADATA }), { maxStringBytes: 256 }))).toMatch(/^an instance id in resolved of "results\/results\.json" is 300 bytes long/);
    expect(await rejection(mapRun(dirInput({ 'results/results.json': { resolved: ['a'], no_logs: 'b' }, 'metadata.yaml': METADATA })))).toMatch(/^the results file "results\/results\.json" is not of the SWE-bench shape/);
    const m = await mapRun(dirInput({ 'results/results.json': { resolved: ['a__a-1', 'a__a-1', 'b__b-2'], no_logs: ['b__b-2', 'b__b-2'] }, 'logs/a__a-1/report.json': report('a__a-1', { resolved: true }), 'metadata.yaml': METADATA }));
    expect(linesOf(m, 'attempts.jsonl').map((a) => [a.task_id, a.outcome])).toEqual([
      ['a__a-1', 'completed'],
      ['b__b-2', 'completed'],
    ]);
    const notes = notesOf(m);
    expect(notes).toContain('results.json names 2 instance ids again within one list');
    expect(notes).toContain("- 1 instance in results.json's resolved list is also in its no_generation or no_logs list: graded by the report.json when present, else by the resolved list (pass)");
  });

  it('fuzz: mutated metadata.yaml and results.json either import or are refused with an ImportError', async () => {
    const seedFiles = { 'results/results.json': JSON.stringify(RESULTS), 'metadata.yaml': METADATA, 'logs/a__a-1/report.json': JSON.stringify(report('a__a-1', { resolved: false })) };
    const tokens = ['&a ', '*a', '!!str ', '\n---\n', '{', '[', ': ', '"', "'", '\u0000', '\ud800', 'name: dup\n', '  - x\n', '"a__a-1", ', 'null', '1e999', '<script>', '\t'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ file: fc.constantFrom('results/results.json', 'metadata.yaml', 'logs/a__a-1/report.json'), at: fc.nat(), token: fc.constantFrom(...tokens), cut: fc.boolean() }), { minLength: 1, maxLength: 4 }), async (ms) => {
        const files: Record<string, string> = { ...seedFiles };
        for (const mu of ms) {
          const s = files[mu.file]!;
          const at = s.length === 0 ? 0 : mu.at % s.length;
          files[mu.file] = mu.cut ? s.slice(0, at) : s.slice(0, at) + mu.token + s.slice(at);
        }
        try {
          const m = await mapRun(dirInput(files));
          expect(bundleId(await mapRun(keptOnly(m)))).toBe(bundleId(m));
        } catch (error) {
          if (!(error instanceof ImportError)) throw error;
        }
      }),
      { numRuns: 150, seed: 26 },
    );
  });
});

/** A submission whose metadata.yaml is not UTF-8. */
function invalidUtf8(): ImportInput {
  const input = dirInput({ 'results/results.json': { resolved: ['a__a-1'] } });
  const files = new Map(input.files);
  files.set('metadata.yaml', Buffer.from([0x69, 0x6e, 0x66, 0x6f, 0x3a, 0x20, 0xff, 0xfe, 0x0a]));
  return { ...input, files };
}

describe('the synthetic submissions on disk (test/fixtures/import/swe-bench, synthetic: no licensed experiments submission was to be had)', () => {
  const FIXTURES = new URL('../../fixtures/import/swe-bench/', import.meta.url).pathname;
  const TABLE = [
    { dir: 'synthetic-reports-only', outcomes: ['completed', 'model_failure', 'completed', 'harness_failure'], verdicts: ['pass', 'fail'], grader: 'swe-bench-report', disagreements: 0 },
    { dir: 'synthetic-with-reports', outcomes: ['completed', 'model_failure', 'completed', 'completed'], verdicts: ['pass', 'fail', 'fail'], grader: 'swe-bench-results-json', disagreements: 1 },
  ];

  it.each(TABLE)('$dir imports, verifies, and re-imports from its kept originals to the same bundle id', async (row) => {
    const root = await temp();
    const r = await importPath(sweBenchImporter, join(FIXTURES, row.dir), join(root, 'out'), { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS });
    expect(r.status).toBe('verified');
    const again = await importPath(sweBenchImporter, join(r.dir, 'source'), join(root, 'again'), { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS });
    expect(again.bundleId).toBe(r.bundleId);
    const input = await readImportInput(join(FIXTURES, row.dir), DEFAULT_IMPORT_LIMITS);
    const m = await mapRun(input);
    expect(linesOf(m, 'attempts.jsonl').map((a) => a.outcome)).toEqual(row.outcomes);
    expect(jsonOf(m, 'grades/1.json').results.map((g: { verdict: string }) => g.verdict)).toEqual(row.verdicts);
    expect(jsonOf(m, 'plan.json').grader.id).toBe(row.grader);
    expect(notesOf(m).includes('listed as resolved by the aggregate is not resolved in its report.json')).toBe(row.disagreements === 1);
  });

  it('synthetic-results-only (results.json and metadata.yaml) is refused with the reason (import auto claims it, so the user sees why)', async () => {
    const root = await temp();
    const dir = join(FIXTURES, 'synthetic-results-only');
    expect(await sweBenchImporter.detect(await readImportInput(dir, DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(true);
    expect(await rejection(importPath(sweBenchImporter, dir, join(root, 'out'), { license: 'MIT', flags: {}, limits: DEFAULT_IMPORT_LIMITS }))).toBe(resultsOnlyRefusal('results/results.json'));
  });
});
