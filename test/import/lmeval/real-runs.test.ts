/**
 * The real lm-eval runs (content/imported/lm-eval, MIT): each imports and
 * verifies with a pinned bundle id; the imported headline (resolved / graded,
 * from attempts and grades) is compared with the results file's own
 * `acc,none`; the aggregate-only file is refused; `import auto` recognises
 * the runs by content and imports a directory of an lm-eval run beside an
 * Inspect log in one call.
 */
import { copyFile, cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveAuto } from '../../../src/import/auto.ts';
import { importPath } from '../../../src/import/import-input.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { lmEvalImporter } from '../../../src/import/lmeval/importer.ts';
import { IMPORTERS } from '../../../src/import/registry.ts';
import { runCli } from '../../helpers/cli.ts';
import { listTree, REAL_LOGS, tempDirs, verifyDir } from '../helpers.ts';
import { REAL_RUNS, request } from './helpers.ts';

const temp = tempDirs();
const L = DEFAULT_IMPORT_LIMITS;

/**
 * The fixture table: bundle id (12 hex) and the imported headline against the
 * source's own figure. Equal by construction for a 0/1 metric without epochs:
 * lm-eval's acc is the mean of the per-doc acc values, one per doc.
 */
const TABLE: Record<string, { bundle: string; created: string; model: string; resolved: number; graded: number; source: number; stderr: number }> = {
  'sshleifer__tiny-gpt2': {
    bundle: '68067e98998a',
    created: '2026-10-02T06:15:14.071221Z',
    model: 'sshleifer/tiny-gpt2@5f91d94bd9cd7190a9f3216ff93cd1dd95f2c7be',
    resolved: 12,
    graded: 20,
    source: 0.6,
    stderr: 0.11239029738980327,
  },
  'hf-internal-testing__tiny-random-gpt2': {
    bundle: '1aeab643d80e',
    created: '2026-10-02T06:15:40.5439Z',
    model: 'hf-internal-testing/tiny-random-gpt2@71034c5d8bde858ff824298bdedc65515b97d2b9',
    resolved: 16,
    graded: 20,
    source: 0.8,
    stderr: 0.0917662935482247,
  },
};

describe('the real lm-eval runs', () => {
  it.each(Object.entries(TABLE))('%s imports with its pinned bundle id, verifies, and its headline equals the source acc', async (dir, want) => {
    const r = await importPath(lmEvalImporter, join(REAL_RUNS, dir), await temp(), request());
    expect(r.bundleId.slice(7, 19)).toBe(want.bundle);
    expect(r.status).toBe('verified');
    const v = await verifyDir(r.dir);
    expect(v.status).toBe('verified');
    const plan = v.evidence.plan!;
    expect(plan.created_at).toBe(want.created);
    expect(plan.subjects[0]!.model).toBe(want.model);
    expect(plan.origin).toMatchObject({ kind: 'imported', format: 'lm-eval-harness' });
    // Headline: resolved / graded from attempts and grades (every attempt completed, one result each).
    const attempts = v.evidence.attempts.lines().map((l) => l.attempt);
    const grades = v.evidence.grades.flatMap((g) => g.file().grades.results);
    const passed = new Set(grades.filter((g) => g.verdict === 'pass').map((g) => g.attempt_id));
    const resolved = attempts.filter((a) => a.outcome === 'completed' && passed.has(a.attempt_id)).length;
    expect({ resolved, graded: attempts.length }).toEqual({ resolved: want.resolved, graded: want.graded });
    expect(resolved / attempts.length).toBeCloseTo(want.source, 12);
    // The source's own figure, as the plan page shows it.
    const sources = new Map<string, Uint8Array>();
    for (const p of (await listTree(join(r.dir, 'source'))).map((p) => `source/${p}`)) sources.set(p, await readFile(join(r.dir, p)));
    expect(await lmEvalImporter.sourceMetrics!(sources, plan.grader.id)).toEqual([
      { name: 'copa acc,none', value: want.source },
      { name: 'copa acc_stderr,none', value: want.stderr },
    ]);
    // The originals, byte for byte; origin.source is the results file's digest.
    for (const p of await listTree(join(REAL_RUNS, dir))) expect((await readFile(join(r.dir, 'source', p))).equals(await readFile(join(REAL_RUNS, dir, p)))).toBe(true);
    expect(v.evidence.manifest?.files.find((f) => f.path.startsWith('source/results_'))?.sha256).toBe((plan.origin as { source: string }).source);
  });

  it('the aggregate-only results file is refused: no samples files', async () => {
    const parent = await temp();
    await expect(importPath(lmEvalImporter, join(REAL_RUNS, 'mmlu-aggregate-only'), parent, request())).rejects.toThrow(
      /^results_2025-01-21T00-40-03\.356274\.json has no samples files \(samples_<task>_2025-01-21T00-40-03\.356274\.jsonl\) beside it/,
    );
    expect(await listTree(parent)).toEqual([]);
  });

  it('covers every run directory in content/imported/lm-eval', async () => {
    const { DEMO_IMPORTS, demoInputs } = await import('../../../scripts/import-demo.ts');
    const demo = DEMO_IMPORTS.find((d) => d.format === 'lm-eval')!;
    expect((await demoInputs(demo)).sort()).toEqual([...Object.keys(TABLE), ...Object.keys(demo.expectedFailures ?? {})].sort());
  });
});

describe('detect and import auto', () => {
  it('accepts the real runs (even aggregate-only); rejects Inspect logs, random JSON and file inputs', async () => {
    for (const dir of [...Object.keys(TABLE), 'mmlu-aggregate-only']) expect(await lmEvalImporter.detect(await readImportInput(join(REAL_RUNS, dir), L), L)).toBe(true);
    const root = await temp();
    await mkdir(join(root, 'logs'));
    await copyFile(join(REAL_LOGS, 'log_formats.json'), join(root, 'logs', 'results_1.json'));
    await writeFile(join(root, 'logs', 'results_2.json'), '{"results": [1, 2]}');
    await writeFile(join(root, 'logs', 'results_3.json'), 'not json');
    expect(await lmEvalImporter.detect(await readImportInput(join(root, 'logs'), L), L)).toBe(false);
    expect(await lmEvalImporter.detect(await readImportInput(join(REAL_LOGS, 'log_formats.json'), L), L)).toBe(false);
    expect(await lmEvalImporter.detect(await readImportInput(join(REAL_RUNS, 'sshleifer__tiny-gpt2', 'results_2026-10-01T23-15-32.942677.json'), L), L)).toBe(false);
  });

  it('a directory holding one lm-eval run and one Inspect log imports both in one call', async () => {
    const root = await temp();
    await cp(join(REAL_RUNS, 'sshleifer__tiny-gpt2'), join(root, 'mixed', 'tiny'), { recursive: true });
    await copyFile(join(REAL_LOGS, 'log_streaming.eval'), join(root, 'mixed', 'streaming.eval'));
    const resolved = await resolveAuto([join(root, 'mixed')], IMPORTERS, L);
    expect(resolved.map((r) => [r.path.slice(root.length + 1), 'importer' in r ? r.importer.name : r.refused])).toEqual([
      ['mixed/streaming.eval', 'inspect'],
      ['mixed/tiny', 'lm-eval'],
    ]);
    const r = await runCli(['import', 'auto', join(root, 'mixed'), '-o', join(root, 'out'), '--license', 'MIT']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^verified {3}lm-eval +bundle 68067e98998a {2}20 attempts \(20 tasks x 1 epochs\)/m);
    expect(r.stdout).toContain('2 inputs: 2 imported and verified, 0 failed');
  });
});
