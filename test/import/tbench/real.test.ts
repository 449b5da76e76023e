/**
 * The Terminal-Bench inputs under content/imported/terminal-bench: three real
 * TB1 run directories and one synthetic Harbor job. Each imports and verifies
 * with a pinned bundle id, the originals read are kept byte for byte, the
 * imported headline is compared with the source's own metric (the table of
 * docs/importing.md), re-importing gives the same bytes in any time zone, and
 * `import auto` recognises them by content beside Inspect logs.
 */
import { cp, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAuto } from '../../../src/import/auto.ts';
import { importPath, mapImportInput } from '../../../src/import/import-input.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { IMPORTERS } from '../../../src/import/registry.ts';
import { tbenchImporter } from '../../../src/import/tbench/importer.ts';
import { runCli } from '../../helpers/cli.ts';
import { REAL_LOGS, tempDirs, verifyDir } from '../helpers.ts';
import { jsonlOf, REAL_DIR, request, verdicts } from './fixtures.ts';

const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;

/**
 * Every input: pinned bundle id (first 12 hex), and the imported headline
 * (resolved = completed attempts graded pass, of all attempts) beside the
 * source's own reported metric and whether they are equal.
 */
const TABLE: Record<string, { bundle: string; attempts: number; resolved: number; metric: { name: string; value: number }; usable: boolean }> = {
  'tb1-2025-09-14__14-24-59': { bundle: '2b7c14d50335', attempts: 1, resolved: 0, metric: { name: 'accuracy', value: 0 }, usable: false },
  'tb1-2025-09-14__15-55-09': { bundle: '40f3e6e1513b', attempts: 1, resolved: 0, metric: { name: 'accuracy', value: 0 }, usable: false },
  'tb1-2025-09-14__15-58-05': { bundle: 'c6312a56ef55', attempts: 1, resolved: 0, metric: { name: 'accuracy', value: 0 }, usable: true },
  'harbor-synthetic-job': { bundle: '5e0aa7079e4e', attempts: 4, resolved: 2, metric: { name: 'mean reward', value: 0.5 }, usable: true },
};

describe('the Terminal-Bench inputs', () => {
  it.each(Object.entries(TABLE))('%s imports with its pinned bundle id, verifies, and its headline equals the source metric', async (dir, want) => {
    const parent = await temp();
    const r = await importPath(tbenchImporter, join(REAL_DIR, dir), parent, request());
    expect(r.bundleId.slice(7, 19)).toBe(want.bundle);
    expect(r.status).toBe('verified');
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const v = await verifyDir(r.dir);
    expect(v.status).toBe('verified');
    expect(v.evidence.plan?.origin).toMatchObject({ kind: 'imported', format: 'terminal-bench-run' });
    // Every original kept is the input file of that relative path, byte for byte; origin.source is the main file.
    const kept = v.evidence.manifest!.files.filter((f) => f.path.startsWith('source/'));
    for (const f of kept) expect((await readFile(join(r.dir, f.path))).equals(await readFile(join(REAL_DIR, dir, f.path.slice(7)))), f.path).toBe(true);
    const main = dir.startsWith('tb1') ? 'source/results.json' : 'source/result.json';
    expect(kept.find((f) => f.path === main)?.sha256).toBe((v.evidence.plan!.origin as { source: string }).source);
    // The headline from attempts and grades, beside the source's own metric.
    const attempts = await readFile(join(r.dir, 'attempts.jsonl'), 'utf8').then((t) => t.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { attempt_id: string; outcome: string }));
    const grades = JSON.parse(await readFile(join(r.dir, 'grades/1.json'), 'utf8')) as { results: { attempt_id: string; verdict: string }[] };
    const pass = new Set(grades.results.filter((g) => g.verdict === 'pass').map((g) => g.attempt_id));
    const resolved = attempts.filter((a) => a.outcome === 'completed' && pass.has(a.attempt_id)).length;
    expect({ attempts: attempts.length, resolved }).toEqual({ attempts: want.attempts, resolved: want.resolved });
    const sources = new Map<string, Uint8Array>();
    for (const f of kept) sources.set(f.path, await readFile(join(r.dir, f.path)));
    const metrics = await tbenchImporter.sourceMetrics!(sources, v.evidence.plan!.grader.id);
    expect(metrics).toEqual([want.metric]);
    expect(resolved / attempts.length).toBe(want.metric.value);
    expect((await readFile(join(r.dir, 'NOTES.md'), 'utf8')).includes('## No usable grades')).toBe(!want.usable);
  });

  it('the real TB1 runs: unknown_agent_error is harness_failure, tokens 0/0 unknown, no model recorded', async () => {
    const input = await readImportInput(join(REAL_DIR, 'tb1-2025-09-14__14-24-59'), L);
    const b = await mapImportInput(tbenchImporter, input, request());
    expect(jsonlOf(b, 'attempts.jsonl')[0]).toMatchObject({ outcome: 'harness_failure', tokens: null, model: 'unknown', agent: { name: 'typescript-multi-agent', version: 'unknown' }, cost: { state: 'unavailable', micros: null } });
    expect(Object.values(verdicts(b))).toEqual(['fail']);
    // The recordings and panes were not copied; the three files read are all kept.
    expect([...b.files.keys()].filter((p) => p.startsWith('source/'))).toEqual([
      'source/analyze-access-logs/analyze-access-logs.1-of-1.2025-09-14__14-24-59/results.json',
      'source/results.json',
      'source/run_metadata.json',
    ]);
  });

  it('covers every input directory of the demo', async () => {
    const { DEMO_IMPORTS, demoInputs } = await import('../../../scripts/import-demo.ts');
    const demo = DEMO_IMPORTS.find((d) => d.format === 'terminal-bench')!;
    expect((await demoInputs(demo)).sort()).toEqual(Object.keys(TABLE).sort());
  });
});

describe('determinism', () => {
  it('re-importing gives the same bytes, whatever the time zone', async () => {
    const saved = process.env.TZ;
    try {
      for (const dir of ['tb1-2025-09-14__15-58-05', 'harbor-synthetic-job']) {
        const input = await readImportInput(join(REAL_DIR, dir), L);
        const seen: string[] = [];
        for (const tz of ['UTC', 'Asia/Kolkata', 'Pacific/Chatham', 'America/St_Johns']) {
          process.env.TZ = tz;
          const b = await mapImportInput(tbenchImporter, input, request());
          seen.push([...b.files].map(([p, bytes]) => `${p}:${Buffer.from(bytes).toString('base64')}`).join('|'));
        }
        expect(new Set(seen).size).toBe(1);
      }
    } finally {
      process.env.TZ = saved;
    }
  });
});

describe('detect', () => {
  it('accepts the run directories and the job, rejects Inspect logs, random JSON, files and other directories', async () => {
    for (const dir of Object.keys(TABLE)) expect(await tbenchImporter.detect(await readImportInput(join(REAL_DIR, dir), L), L), dir).toBe(true);
    expect(await tbenchImporter.detect(await readImportInput(REAL_LOGS, L), L)).toBe(false);
    expect(await tbenchImporter.detect(await readImportInput(join(REAL_LOGS, 'log_formats.json'), L), L)).toBe(false);
    // A results.json file given alone is a file, not a run directory.
    expect(await tbenchImporter.detect(await readImportInput(join(REAL_DIR, 'tb1-2025-09-14__15-58-05', 'results.json'), L), L)).toBe(false);
    const root = await temp();
    await writeFile(join(root, 'results.json'), '{"random": [1, 2, 3]}');
    await writeFile(join(root, 'result.json'), '{"task_name": "x"}');
    expect(await tbenchImporter.detect(await readImportInput(root, L), L)).toBe(false);
    const broken = await temp();
    await writeFile(join(broken, 'result.json'), '{"n_total_trials": 1,');
    expect(await tbenchImporter.detect(await readImportInput(broken, L), L)).toBe(false);
  });

  it('import auto on a directory holding a TB1 run, a Harbor job and an Inspect log imports all three', async () => {
    const root = await temp();
    await mkdir(join(root, 'mixed'), { recursive: true });
    await cp(join(REAL_DIR, 'tb1-2025-09-14__15-58-05'), join(root, 'mixed', 'run'), { recursive: true });
    await cp(join(REAL_DIR, 'harbor-synthetic-job'), join(root, 'mixed', 'job'), { recursive: true });
    await copyFile(join(REAL_LOGS, 'log_formats.json'), join(root, 'mixed', 'log.json'));
    const resolved = await resolveAuto([join(root, 'mixed')], IMPORTERS, L);
    expect(resolved.map((r) => [r.path.slice(root.length + 1), 'importer' in r ? r.importer.name : r.refused])).toEqual([
      ['mixed/job', 'terminal-bench'],
      ['mixed/log.json', 'inspect'],
      ['mixed/run', 'terminal-bench'],
    ]);
    const r = await runCli(['import', 'auto', join(root, 'mixed'), '-o', join(root, 'out'), '--license', 'MIT']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3 inputs: 3 imported and verified, 0 failed');
    expect(r.stdout).toMatch(/^verified {3}terminal-bench +bundle c6312a56ef55 /m);
  });
});
