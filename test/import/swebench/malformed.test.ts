/**
 * Issue 25 (medium): a SWE-bench file the importer reads that does not parse
 * refuses the import with the file, the line and the reason; it is never
 * skipped as "not a run file" (the real run `tonight` with a run report
 * holding a duplicate member, or a NaN, imported 3 of its 37 instances). A
 * file at no run file's place is not read at all.
 */
import { cp, copyFile, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../src/import/errors.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { importPath } from '../../../src/import/import-input.ts';
import { sweBenchImporter } from '../../../src/import/swebench/importer.ts';
import { placeOf } from '../../../src/import/swebench/read-run.ts';
import { runCli } from '../../helpers/cli.ts';
import { rejection, tempDirs } from '../helpers.ts';
import { dirInput, harnessPath, jsonl, linesOf, mapRun, pred, report, runReport } from './helpers.ts';

const REAL = new URL('../../../content/imported/swe-bench/tonight/', import.meta.url).pathname;
const FIXTURES = new URL('../../fixtures/import/swe-bench-malformed/', import.meta.url).pathname;
const RUN_REPORT = 'glm-5.3-zcode-campaign.tonight.json';
const L = DEFAULT_IMPORT_LIMITS;
const temp = tempDirs();

/** The real run `tonight` with its run report replaced by a fixture. */
async function tonightWith(fixture: string): Promise<string> {
  const dir = join(await temp(), 'tonight');
  await cp(REAL, dir, { recursive: true });
  await copyFile(join(FIXTURES, fixture), join(dir, RUN_REPORT));
  return dir;
}

const TOP = `the JSON file "${RUN_REPORT}" at the top of the run directory \\(where the run report is read from\\) is not readable JSON`;

describe('a malformed run report (the real run tonight, one edit)', () => {
  it.each([
    { fixture: 'duplicate-member.json', reason: `^${TOP}: duplicate member name "resolved_instances" \\(line 6, column 5\\)$` },
    { fixture: 'nan.json', reason: `^${TOP}: unexpected character "N": expected a value \\(line 10, column 24\\): it holds NaN or Infinity \\(as Python writes a non-finite float\\), which is not JSON$` },
  ])('$fixture is refused naming the file, the line and the reason, and nothing is written', async ({ fixture, reason }) => {
    const dir = await tonightWith(fixture);
    const out = await temp();
    expect(await rejection(importPath(sweBenchImporter, dir, out, { license: 'MIT', flags: {}, limits: L }))).toMatch(new RegExp(reason));
    expect(await readdir(out)).toEqual([]);
    // Through the command: refused, exit 1, nothing imported.
    const r = await runCli(['import', 'swe-bench', dir, '-o', join(out, 'cli'), '--license', 'MIT']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^refused {4}.*tonight: ${reason.slice(1)}`, 'm'));
    expect(r.stdout).not.toMatch(/^verified/m);
    expect(await readdir(join(out, 'cli')).catch(() => [])).toEqual([]);
  });

  it('the unedited run report imports all 37 instances (the fixtures differ from it by one edit each)', async () => {
    const m = await mapRun(await readImportInput(REAL, L));
    expect(linesOf(m, 'attempts.jsonl')).toHaveLength(37);
    const real = await readFile(join(REAL, RUN_REPORT), 'utf8');
    expect((await readFile(join(FIXTURES, 'duplicate-member.json'), 'utf8')).replace('    "resolved_instances": 37,\n', '')).toBe(real);
    expect((await readFile(join(FIXTURES, 'nan.json'), 'utf8')).replace('"error_instances": NaN', '"error_instances": 0')).toBe(real);
  });
});

describe('every file read at a run file place is parsed strictly', () => {
  const preds = jsonl([pred('a__a-1', 'diff a'), pred('b__b-2', 'diff b')]);
  const rr = runReport({ submitted: ['a__a-1', 'b__b-2'], resolved: ['a__a-1'], unresolved: ['b__b-2'] });
  const good = report('a__a-1', { resolved: true });
  const text = JSON.stringify(good, null, 2);

  it('a per-instance report.json that does not parse, or is not a report, is refused with its name and reason', async () => {
    const at = harnessPath('a__a-1');
    const cases: [string, RegExp][] = [
      [text.slice(0, -5), /^the report "logs\/run_evaluation\/r1\/acme__agent-1\/a__a-1\/report\.json" is not readable JSON: unexpected end of input.* \(line \d+, column \d+\)$/],
      [text.replace('"resolved": true', '"resolved": true, "resolved": false'), /^the report ".*a__a-1\/report\.json" is not readable JSON: duplicate member name "resolved"/],
      [text.replace('"resolved": true', '"resolved": NaN'), /^the report ".*a__a-1\/report\.json" is not readable JSON: unexpected character "N".*: it holds NaN or Infinity/],
      [JSON.stringify({ 'a__a-1': { resolved: 'yes' } }), /^the report ".*a__a-1\/report\.json" is not of the SWE-bench shape: patch_successfully_applied/],
      [JSON.stringify({ ...good, extra: {} }), /^the report ".*a__a-1\/report\.json" is not a per-instance report of the SWE-bench shape: it must be an object of one member, the instance id/],
      ['[]', /^the report ".*a__a-1\/report\.json" is not a per-instance report of the SWE-bench shape/],
    ];
    for (const [bytes, expected] of cases) {
      expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': preds, [at]: bytes })))).toMatch(expected);
    }
  });

  it('a results/results.json or a top-level JSON file that does not parse is refused; a results.json of another shape too', async () => {
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': preds, 'results/results.json': '{"resolved": ["a__a-1"], "resolved": []}' })))).toMatch(
      /^the results file "results\/results\.json" is not readable JSON: duplicate member name "resolved" \(line 1, column 26\)$/,
    );
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': preds, 'results/results.json': { resolved: ['a__a-1'], note: 'x' } })))).toMatch(
      /^the results file "results\/results\.json" is not of the SWE-bench shape: note/,
    );
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': preds, 'm.r1.json': JSON.stringify(rr).replace('"resolved_instances":1', '"resolved_instances":Infinity') })))).toMatch(
      /^the JSON file "m\.r1\.json" at the top of the run directory \(where the run report is read from\) is not readable JSON: .*: it holds NaN or Infinity/,
    );
    // Any JSON file at the top is read as a possible run report: one that does not parse refuses the run, whatever its name.
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': preds, 'm.r1.json': rr, 'notes.json': '{"a": 1,}' })))).toMatch(/^the JSON file "notes\.json" at the top of the run directory/);
  });

  it('a JSONL at the top whose first line does not parse is refused (it is where predictions are read from)', async () => {
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': `{"instance_id": "a__a-1", "instance_id": "b"}\n${jsonl([pred('b__b-2', 'd')])}` })))).toMatch(
      /^line 1 of the JSONL file "all_preds\.jsonl" at the top of the run directory \(where the predictions are read from\) is not readable JSON: duplicate member name "instance_id" \(line 1, column 27\)$/,
    );
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': `{"instance_id": "a__a-1", "model_name_or_path": "m", "model_patch": NaN}\n` })))).toMatch(/^line 1 of the JSONL file "all_preds\.jsonl" .*: it holds NaN or Infinity/);
    // A first line that names an instance is a prediction, checked as one (before: not recognised, the run imported without its predictions).
    expect(await rejection(mapRun(dirInput({ 'all_preds.jsonl': jsonl([{ instance_id: 'a__a-1', model_patch: 'd' }]), [harnessPath('a__a-1')]: good })))).toMatch(
      /^line 1 of the predictions file "all_preds\.jsonl" is not of the SWE-bench shape: model_name_or_path/,
    );
  });

  it('files at no run file place are not read: malformed ones there do not refuse the run, and are not kept', async () => {
    const m = await mapRun(
      dirInput({
        'all_preds.jsonl': preds,
        'm.r1.json': rr,
        [harnessPath('a__a-1')]: good,
        [harnessPath('a__a-1').replace('report.json', 'test_output.txt')]: '{"not": NaN',
        'trajs/a__a-1.json': '{"x": 1, "x": 2}',
        'preds/other.jsonl': '{"instance_id": NaN}\n',
        'logs/a__a-1/report.json.bak': '{',
        'metadata.yaml': 'name: x\n',
        // A JSON file at the top that parses and is no run file is not part of the run (and not kept).
        'other.json': { hello: 'world' },
      }),
    );
    expect([...m.files.keys()].filter((p) => p.startsWith('source/')).sort()).toEqual(['source/all_preds.jsonl', `source/${harnessPath('a__a-1')}`, 'source/m.r1.json']);
    expect(linesOf(m, 'attempts.jsonl').map((a) => a.outcome)).toEqual(['completed', 'harness_failure']);
    expect(m.summary.unkept).toEqual(['6 other files of the input not kept (only the predictions, the run report or results.json, the per-instance reports and, without predictions, metadata.yaml are)']);
  });

  it('an instance id of the run report past maxStringBytes is refused (without predictions it would be a task id)', async () => {
    const long = 'x'.repeat(300);
    const input = dirInput({ 'm.r1.json': runReport({ submitted: ['a__a-1', long], resolved: ['a__a-1'], unresolved: [long] }), [harnessPath('a__a-1')]: good });
    expect(await rejection(mapRun(input, { maxStringBytes: 256 }))).toBe('an instance id in submitted_ids of "m.r1.json" is 300 bytes long, more than the 256 an import keeps (import_limits.maxStringBytes)');
    expect(linesOf(await mapRun(input, { maxStringBytes: 300 }), 'attempts.jsonl').map((a) => a.task_id)).toEqual(['a__a-1', long]);
  });

  it('places, by relative path', () => {
    expect(['a.jsonl', 'a.json', 'results/results.json', 'logs/x/report.json', 'logs/run_evaluation/r/m/x/report.json', 'report.json', 'results/other.json', 'x/a.jsonl', 'a.txt', 'logs/x/report.json.bak'].map(placeOf)).toEqual([
      'top-jsonl',
      'top-json',
      'results',
      'report',
      'report',
      'top-json',
      null,
      null,
      null,
      null,
    ]);
  });

  it('detection stays quiet on a malformed run (import auto then refuses it with the reason)', async () => {
    const input = dirInput({ 'all_preds.jsonl': preds, 'm.r1.json': '{"resolved_ids": [], "resolved_ids": []}' });
    expect(await sweBenchImporter.detect(input, L)).toBe(true);
    const error = await mapRun(input).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportError);
  });
});
