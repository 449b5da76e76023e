/**
 * The real Every Eval Ever records (content/imported/eee, evaleval/every_eval_ever):
 * pinned bundle ids, verified, the imported headline beside EEE's own figure
 * (the table of docs/importing.md), the aggregate-only record refused with
 * its reason; re-importing from the kept originals alone (with the site's
 * re-run flags) gives the same bundle; `import auto` and detect.
 */
import { copyFile, cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../../src/import/registry.ts';
import { resolveAuto } from '../../../src/import/auto.ts';
import { eeeImporter } from '../../../src/import/eee/importer.ts';
import { importPath } from '../../../src/import/import-input.ts';
import { readImportInput, type ImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { runCli } from '../../helpers/cli.ts';
import { REAL_LOGS, tempDirs, verifyDir } from '../helpers.ts';
import { bundleIdOf, json, lines, mapInput } from './helpers.ts';

const REAL = new URL('../../../content/imported/eee/', import.meta.url).pathname;
const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;

/** Each real record: pinned bundle id (12 hex), tasks, passes at --pass-threshold 1, and EEE's own score of the graded metric. */
const TABLE: Record<string, { bundle: string; tasks: number; resolved: number; graded: number; source: { name: string; value: number } }> = {
  'ai2_arc-claude-sonnet-4-0': { bundle: 'a8523333b56b', tasks: 5, resolved: 5, graded: 5, source: { name: 'accuracy', value: 1 } },
  'pubmed_qa-gpt-4o-mini': { bundle: '75558803e655', tasks: 2, resolved: 2, graded: 2, source: { name: 'accuracy', value: 1 } },
};

describe('the real Every Eval Ever records', () => {
  it.each(Object.entries(TABLE))('%s imports with its pinned id, verifies, and its headline equals EEE\'s own figure', async (dir, want) => {
    const parent = await temp();
    const r = await importPath(eeeImporter, join(REAL, dir), parent, { license: 'MIT', flags: { 'pass-threshold': '1' }, limits: L });
    expect(r.bundleId.slice(7, 19)).toBe(want.bundle);
    expect(r.status).toBe('verified');
    const v = await verifyDir(r.dir);
    expect(v.status).toBe('verified');
    const grades = v.evidence.grades.flatMap((g) => g.file().grades.results);
    const resolved = grades.filter((g) => g.verdict === 'pass').length;
    expect({ tasks: r.summary.tasks, resolved, graded: r.summary.attempts }).toEqual({ tasks: want.tasks, resolved: want.resolved, graded: want.graded });
    // EEE's own score of the graded metric, read back from the kept original, beside the imported rate.
    const sources = new Map<string, Uint8Array>();
    for (const f of v.evidence.manifest!.files.filter((f) => f.path.startsWith('source/'))) sources.set(f.path, await readFile(join(r.dir, f.path)));
    const metrics = await eeeImporter.sourceMetrics!(sources, v.evidence.plan!.grader.id);
    expect(metrics).toEqual([want.source]);
    expect(resolved / want.graded).toBe(want.source.value);
    // origin.source is the aggregate, the first file under source/.
    const first = v.evidence.manifest!.files.find((f) => f.path.startsWith('source/'))!;
    expect(first.path).toMatch(/^source\/data\/.*\.json$/);
    expect(first.sha256).toBe((v.evidence.plan!.origin as { source: string }).source);
  });

  it('a stranger who fetches only the kept originals and re-runs with the plan\'s flags gets the same bundle', async () => {
    for (const dir of Object.keys(TABLE)) {
      const input = await readImportInput(join(REAL, dir), L);
      const mapped = await mapInput(input, { 'pass-threshold': '1' });
      const plan = json(mapped, 'plan.json') as { grader: { id: string } };
      const flags = Object.fromEntries(eeeImporter.rerunFlags!(plan).map(([k, v]) => [k!.slice(2), v!]));
      expect(flags).toEqual({ metric: plan.grader.id, 'pass-threshold': '1' });
      const kept: ImportInput = {
        name: 'original',
        kind: 'directory',
        files: new Map([...mapped.files].filter(([p]) => p.startsWith('source/')).map(([p, b]) => [p.slice('source/'.length), b])),
        skipped: [],
      };
      expect(bundleIdOf(await mapInput(kept, flags))).toBe(bundleIdOf(mapped));
    }
  });

  it('the aggregate without a sidecar is refused with the reason, nothing written', async () => {
    const parent = await temp();
    await expect(importPath(eeeImporter, join(REAL, 'geneval-sdxl-aggregate-only'), parent, { license: 'MIT', flags: { 'pass-threshold': '1' }, limits: L })).rejects.toThrow(
      /^the aggregate holds no instance-level data \(no detailed_evaluation_results\): its scores are aggregates, and an aggregate cannot make attempts/,
    );
  });

  it('the 0.2.0 spellings are said in NOTES.md; integer sample ids sort numerically', async () => {
    const mapped = await mapInput(await readImportInput(join(REAL, 'ai2_arc-claude-sonnet-4-0'), L), { 'pass-threshold': '1' });
    expect(lines(mapped, 'ledger.jsonl').map((t) => t.task_id)).toEqual(['1', '2', '3', '4', '5']);
    const notes = Buffer.from(mapped.files.get('NOTES.md')!).toString('utf8');
    expect(notes).toContain('no eval_library recorded (schema 0.2.0)');
    expect(notes).toContain("linked to the aggregate's only result");
    expect(lines(mapped, 'attempts.jsonl')[0]).toMatchObject({ wall_seconds: 7.873, tokens: { input: 129, output: 356 }, cost: { state: 'unavailable', micros: null } });
  });

  it('covers every directory in content/imported/eee', async () => {
    const { DEMO_IMPORTS, demoInputs } = await import('../../../scripts/import-demo.ts');
    const eee = DEMO_IMPORTS.find((d) => d.format === 'eee')!;
    expect((await demoInputs(eee)).sort()).toEqual([...Object.keys(TABLE), ...Object.keys(eee.expectedFailures ?? {})].sort());
  });
});

describe('detect and import auto', () => {
  it('claims the real record directories, and nothing else', async () => {
    for (const dir of [...Object.keys(TABLE), 'geneval-sdxl-aggregate-only']) expect(await eeeImporter.detect(await readImportInput(join(REAL, dir), L), L)).toBe(true);
    // Files (the wrong kind), Inspect logs, random JSON.
    expect(await eeeImporter.detect(await readImportInput(join(REAL_LOGS, 'log_formats.json'), L), L)).toBe(false);
    const root = await temp();
    await mkdir(join(root, 'random'));
    await copyFile(join(REAL_LOGS, 'log_formats.json'), join(root, 'random', 'log.json'));
    expect(await eeeImporter.detect(await readImportInput(join(root, 'random'), L), L)).toBe(false);
    expect(await eeeImporter.detect({ name: 'r', kind: 'directory', files: new Map([['x.json', Buffer.from('{"schema_version":"1","evaluation_id":"x","evaluation_results":{}}')]]), skipped: [] }, L)).toBe(false);
    // An aggregate with another file beside it that is not its sidecar: not claimed (import auto opens the directory).
    await cp(join(REAL, 'pubmed_qa-gpt-4o-mini'), join(root, 'more'), { recursive: true });
    await copyFile(join(REAL_LOGS, 'log_formats.json'), join(root, 'more', 'log.json'));
    expect(await eeeImporter.detect(await readImportInput(join(root, 'more'), L), L)).toBe(false);
  });

  it('import auto on a directory holding an EEE record and an Inspect log imports both', async () => {
    const root = await temp();
    await cp(join(REAL, 'pubmed_qa-gpt-4o-mini'), join(root, 'in', 'pubmed'), { recursive: true });
    await copyFile(join(REAL_LOGS, 'log_formats.json'), join(root, 'in', 'log.json'));
    const resolved = await resolveAuto([join(root, 'in')], IMPORTERS, L);
    expect(resolved.map((r) => [r.path.slice(root.length + 1), 'importer' in r ? r.importer.name : r.refused])).toEqual([
      ['in/log.json', 'inspect'],
      ['in/pubmed', 'eee'],
    ]);
    const r = await runCli(['import', 'auto', join(root, 'in'), '-o', join(root, 'out'), '--license', 'MIT', '--pass-threshold', '1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 inputs: 2 imported and verified, 0 failed');
    expect(r.stdout).toMatch(/^verified {3}eee {13}bundle 75558803e655 /m);
  });
});
