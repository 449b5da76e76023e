/**
 * The real HELM run directories (content/imported/helm, Apache-2.0): each
 * imports with its pinned bundle id and verifies; the table of the imported
 * headline against HELM's own figure (stats.json) is the one in
 * docs/importing.md and SOURCES.md; the ids do not move with the time zone;
 * detect accepts them and nothing else; `import auto` on a directory holding
 * a HELM run and an Inspect log imports both.
 */
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../../src/evidence/seal.ts';
import { resolveAuto } from '../../../src/import/auto.ts';
import { helmImporter } from '../../../src/import/helm/importer.ts';
import { importInput, importPath, mapImportInput } from '../../../src/import/import-input.ts';
import { readImportInput } from '../../../src/import/input.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../../src/import/limits.ts';
import { IMPORTERS } from '../../../src/import/registry.ts';
import { REAL_LOGS, tempDirs, verifyDir } from '../helpers.ts';
import { helmRequest, LLAMA, QWEN, REAL_RUNS } from './fixtures.ts';

const temp = tempDirs();
const FLAGS = { metric: 'harm_bench_score', 'pass-threshold': '1' };
const REQUEST = helmRequest(FLAGS, {}, 'Apache-2.0');

/** The table of docs/importing.md ("HELM", real examples): bundle id, imported resolved / graded, HELM's own mean. */
const TABLE: Record<string, { bundle: string; resolved: number; graded: number; helmMean: number | null; values: number[] }> = {
  [LLAMA]: { bundle: 'sha256:a0feb5e82ff2713e33bbcd1946ff52ccc3eb5218e4e37d67faddbc6b19f18624', resolved: 0, graded: 2, helmMean: 0.125, values: [0, 0.25] },
  [QWEN]: { bundle: 'sha256:c3a58ce7dd7d2895ed58274af061311fc6d49c122121fe88a14aeedd18eac171', resolved: 2, graded: 2, helmMean: null, values: [1, 1] },
};

describe('the real HELM runs', () => {
  it.each(Object.entries(TABLE))('%s imports with its pinned bundle id, verifies, and matches the table', async (dir, want) => {
    const r = await importPath(helmImporter, join(REAL_RUNS, dir), await temp(), REQUEST);
    expect(r.bundleId).toBe(want.bundle);
    expect(r.status).toBe('verified');
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const v = await verifyDir(r.dir);
    expect(v.status).toBe('verified');
    expect(v.evidence.plan?.origin).toMatchObject({ kind: 'imported', format: 'helm-run' });
    // The headline: resolved / graded from attempts and grades (every attempt completed, every one graded).
    const attempts = v.evidence.attempts.lines().map((l) => l.attempt);
    const results = v.evidence.grades.flatMap((g) => g.file().grades.results);
    const resolved = attempts.filter((a) => a.outcome === 'completed' && results.find((g) => g.attempt_id === a.attempt_id)?.verdict === 'pass').length;
    expect({ resolved, graded: attempts.length }).toEqual({ resolved: want.resolved, graded: want.graded });
    // The per-instance values behind it (receipts), and HELM's own figure: their mean when stats.json is there.
    const values: number[] = [];
    for (const g of results) values.push((JSON.parse(await readFile(join(r.dir, 'artifacts', `${g.receipt!.slice(7)}.json`), 'utf8')) as { mean: number }).mean);
    expect(values.sort()).toEqual(want.values);
    const sources = new Map<string, Uint8Array>();
    for (const f of v.evidence.manifest!.files.filter((f) => f.path.startsWith('source/'))) sources.set(f.path, await readFile(join(r.dir, f.path)));
    const metrics = await helmImporter.sourceMetrics!(sources, v.evidence.plan!.grader.id);
    if (want.helmMean === null) expect(metrics).toBeNull();
    else {
      expect(metrics?.[0]).toEqual({ name: 'mean (HELM stats.json, test)', value: want.helmMean });
      expect(values.reduce((a, b) => a + b, 0) / values.length).toBe(want.helmMean);
    }
    // Every file read is kept byte for byte; origin.source is per_instance_stats.json, the first.
    for (const [path, bytes] of sources) expect(Buffer.from(bytes).equals(await readFile(join(REAL_RUNS, dir, path.slice('source/'.length))))).toBe(true);
    expect(v.evidence.manifest!.files.find((f) => f.path.startsWith('source/'))).toMatchObject({ path: 'source/per_instance_stats.json', sha256: (v.evidence.plan!.origin as { source: string }).source });
  });

  it('the run with scenario_state.json (llama) and the one without (qwen) have one ledger: the same digest, so they share a board', async () => {
    const plans = [];
    for (const dir of [LLAMA, QWEN]) {
      const m = await mapImportInput(helmImporter, await readImportInput(join(REAL_RUNS, dir), DEFAULT_IMPORT_LIMITS), REQUEST);
      plans.push(JSON.parse(Buffer.from(m.files.get('plan.json')!).toString('utf8')) as { ledger: { digest: string }; harness: { commit: string } });
    }
    expect(plans[0]!.ledger.digest).toBe(plans[1]!.ledger.digest);
    // Without --metric, HELM's schema table (harm_bench: harm_bench_score before the rename to safety_score) chooses the demo's stat: the same bundle.
    const defaulted = await mapImportInput(helmImporter, await readImportInput(join(REAL_RUNS, LLAMA), DEFAULT_IMPORT_LIMITS), helmRequest({ 'pass-threshold': '1' }, {}, 'Apache-2.0'));
    expect(JSON.parse(sealManifest(defaulted.files, defaulted.planId).toString('utf8')).bundle_id).toBe(TABLE[LLAMA]!.bundle);
    expect(plans[0]!.harness.commit).toBe(plans[1]!.harness.commit);
  });

  it('are the demo inputs of the helm entry', async () => {
    const { DEMO_IMPORTS, demoInputs } = await import('../../../scripts/import-demo.ts');
    const helm = DEMO_IMPORTS.find((d) => d.format === 'helm')!;
    expect(await demoInputs(helm)).toEqual(Object.keys(TABLE).sort());
    expect(helm.flags).toEqual(FLAGS);
  });

  it('without --pass-threshold the llama run is refused (a continuous stat), the qwen run (all 1.0) imports', async () => {
    const noThreshold = helmRequest({ metric: 'harm_bench_score' });
    await expect(importPath(helmImporter, join(REAL_RUNS, LLAMA), await temp(), noThreshold)).rejects.toThrow(/^the stat "harm_bench_score" has values other than 0 and 1 \(1 of 2, e.g. 0.25\)/);
    expect((await importPath(helmImporter, join(REAL_RUNS, QWEN), await temp(), noThreshold)).status).toBe('verified');
  });
});

describe('determinism', () => {
  it('the same bundle bytes twice and in any time zone', async () => {
    const input = await readImportInput(join(REAL_RUNS, LLAMA), DEFAULT_IMPORT_LIMITS);
    const saved = process.env.TZ;
    try {
      const ids: string[] = [];
      for (const tz of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'UTC']) {
        process.env.TZ = tz;
        const m = await mapImportInput(helmImporter, input, REQUEST);
        ids.push(JSON.parse(sealManifest(m.files, m.planId).toString('utf8')).bundle_id as string);
      }
      expect(new Set(ids)).toEqual(new Set([TABLE[LLAMA]!.bundle]));
    } finally {
      process.env.TZ = saved;
    }
  });
});

describe('detect', () => {
  it('accepts the real runs, and nothing of another kind or shape', async () => {
    for (const dir of [LLAMA, QWEN]) expect(await helmImporter.detect(await readImportInput(join(REAL_RUNS, dir), DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(true);
    // Inspect logs (files), the directory of them, a random JSON file, a run file given alone.
    expect(await helmImporter.detect(await readImportInput(join(REAL_LOGS, 'log_formats.json'), DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(false);
    expect(await helmImporter.detect(await readImportInput(REAL_LOGS, DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(false);
    expect(await helmImporter.detect(await readImportInput(join(REAL_RUNS, LLAMA, 'run_spec.json'), DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(false);
    const dir = await temp();
    await mkdir(join(dir, 'random'));
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, 'random', 'run_spec.json'), '{"name": "x", "models": []}');
    await writeFile(join(dir, 'random', 'per_instance_stats.json'), '[]');
    expect(await helmImporter.detect(await readImportInput(join(dir, 'random'), DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(false);
    // The Inspect importer does not claim a HELM run.
    const inspect = IMPORTERS.find((i) => i.name === 'inspect')!;
    expect(await inspect.detect(await readImportInput(join(REAL_RUNS, LLAMA), DEFAULT_IMPORT_LIMITS), DEFAULT_IMPORT_LIMITS)).toBe(false);
  });

  it('import auto on a directory holding a HELM run and an Inspect log imports both', async () => {
    const dir = await temp();
    await cp(join(REAL_RUNS, QWEN), join(dir, 'mixed', 'run'), { recursive: true });
    await cp(join(REAL_LOGS, 'log_streaming.eval'), join(dir, 'mixed', 'log_streaming.eval'));
    const resolved = await resolveAuto([join(dir, 'mixed')], IMPORTERS, DEFAULT_IMPORT_LIMITS);
    expect(resolved.map((r) => ('importer' in r ? r.importer.name : r.refused))).toEqual(['inspect', 'helm']);
    const out = await temp();
    for (const r of resolved) {
      if (!('importer' in r)) continue;
      const flags = r.importer.name === 'helm' ? FLAGS : {};
      const result = await importInput(r.importer, r.input, out, helmRequest(flags));
      expect(result.status).toBe('verified');
    }
  });
});
