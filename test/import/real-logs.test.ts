/**
 * The real Inspect logs (content/imported/logs, MIT): every log imports and
 * its bundle verifies, except the one without samples, which fails with its
 * stated reason; the bundle ids are pinned (determinism across machines),
 * re-importing gives the same id in any time zone, and the same run in both
 * formats gives the same tasks, attempts and outcomes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealManifest } from '../../src/evidence/seal.ts';
import { buildImportedBundle, importLogFile, listTree, readJsonl, REAL_LOGS, tempDirs, verifyDir } from './helpers.ts';

const OPTIONS = { license: 'MIT', passThreshold: 1, scorer: null };
const temp = tempDirs();

/** Bundle id (first 12 hex), attempts, tasks and epochs of every real log, imported with --license MIT. */
const PINNED: Record<string, { bundle: string; attempts: number; tasks: number; epochs: number; passes: number }> = {
  '2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval': { bundle: 'd0f116df729c', attempts: 10, tasks: 10, epochs: 1, passes: 0 },
  '2025-05-12T20-27-36-04-00_browser.json': { bundle: '251f40240f00', attempts: 1, tasks: 1, epochs: 1, passes: 1 },
  '2025-05-12T20-28-13-04-00_popularity.json': { bundle: '75c56220b23e', attempts: 3, tasks: 3, epochs: 1, passes: 2 },
  '2025-05-12T20-28-26-04-00_security-guide.json': { bundle: 'e56fc80770a3', attempts: 3, tasks: 3, epochs: 1, passes: 3 },
  '2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval': { bundle: '00a5c6463d86', attempts: 100, tasks: 100, epochs: 1, passes: 52 },
  '2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval': { bundle: '985baf087c5d', attempts: 16, tasks: 16, epochs: 1, passes: 11 },
  'log_formats.eval': { bundle: 'bb59fe1079f1', attempts: 1, tasks: 1, epochs: 1, passes: 0 },
  'log_formats.json': { bundle: '87143e7d37d3', attempts: 1, tasks: 1, epochs: 1, passes: 0 },
  'log_streaming.eval': { bundle: '507dee822140', attempts: 4, tasks: 2, epochs: 2, passes: 3 },
  'log_tool_call_error.json': { bundle: 'f75ebfa0ad78', attempts: 1, tasks: 1, epochs: 4, passes: 0 },
  'mmlu-summary-choices.eval': { bundle: 'c8aa57f26b42', attempts: 1, tasks: 1, epochs: 1, passes: 0 },
  'retry-2-then-success.postfix.zstd.eval': { bundle: 'a59941ef6e41', attempts: 1, tasks: 1, epochs: 1, passes: 0 },
};

describe('every real log', () => {
  it.each(Object.entries(PINNED))('%s imports with its pinned bundle id and verifies', async (file, want) => {
    const parent = await temp();
    const r = await importLogFile(join(REAL_LOGS, file), parent, OPTIONS);
    expect(r.bundleId.slice(7, 19)).toBe(want.bundle);
    expect(r.status).toBe('verified');
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect({ attempts: r.summary.attempts, tasks: r.summary.tasks, epochs: r.summary.epochs }).toEqual({ attempts: want.attempts, tasks: want.tasks, epochs: want.epochs });
    // Verified again from disk, independently of the import's own check.
    const v = await verifyDir(r.dir);
    expect(v.status).toBe('verified');
    expect(v.bundle_id).toBe(r.bundleId);
    expect(v.evidence.plan?.origin).toMatchObject({ kind: 'imported', format: 'inspect-eval-log' });
    expect(v.evidence.plan?.budget).toBeNull();
    const grades = v.evidence.grades.flatMap((g) => g.file().grades.results);
    expect(grades.filter((g) => g.verdict === 'pass')).toHaveLength(want.passes);
    // The original log is in the bundle, byte for byte, and origin.source is its digest.
    const original = await readFile(join(REAL_LOGS, file));
    const kept = await readFile(join(r.dir, 'source', `inspect-log.${file.endsWith('.eval') ? 'eval' : 'json'}`));
    expect(kept.equals(original)).toBe(true);
    expect(v.evidence.manifest?.files.find((f) => f.path.startsWith('source/'))?.sha256).toBe((v.evidence.plan!.origin as { source: string }).source);
  });

  it('the log without samples fails with its reason and writes nothing', async () => {
    const parent = await temp();
    await expect(importLogFile(join(REAL_LOGS, '2025-05-12T20-28-13-04-00_no-samples.json'), parent, OPTIONS)).rejects.toThrow(
      /^the log holds no samples \(status "cancelled"\): there is nothing to import/,
    );
    expect(await listTree(parent)).toEqual([]);
  });

  it('covers every log file in content/imported/logs', async () => {
    const { DEMO_IMPORTS, demoInputs } = await import('../../scripts/import-demo.ts');
    const inspect = DEMO_IMPORTS.find((d) => d.format === 'inspect')!;
    expect((await demoInputs(inspect)).sort()).toEqual([...Object.keys(PINNED), ...Object.keys(inspect.expectedFailures ?? {})].sort());
  });
});

describe('determinism', () => {
  it('re-importing gives the same bytes, whatever the time zone', async () => {
    const file = join(REAL_LOGS, '2025-05-12T20-28-26-04-00_security-guide.json');
    const bytes = await readFile(file);
    const saved = process.env.TZ;
    try {
      const ids: string[] = [];
      for (const tz of ['UTC', 'Pacific/Chatham', 'America/St_Johns']) {
        process.env.TZ = tz;
        const mapped = await buildImportedBundle(bytes, OPTIONS);
        ids.push(JSON.parse(sealManifest(mapped.files, mapped.planId).toString('utf8')).bundle_id as string);
      }
      expect(new Set(ids).size).toBe(1);
      expect(ids[0]!.slice(7, 19)).toBe(PINNED['2025-05-12T20-28-26-04-00_security-guide.json']!.bundle);
    } finally {
      process.env.TZ = saved;
    }
  });

  it('every option is part of the bundle id', async () => {
    const bytes = await readFile(join(REAL_LOGS, 'log_streaming.eval'));
    const id = async (options: typeof OPTIONS) => {
      const m = await buildImportedBundle(bytes, options);
      return JSON.parse(sealManifest(m.files, m.planId).toString('utf8')).bundle_id as string;
    };
    const base = await id(OPTIONS);
    expect(await id({ ...OPTIONS })).toBe(base);
    expect(await id({ ...OPTIONS, license: '' })).not.toBe(base);
    expect(await id({ ...OPTIONS, passThreshold: 0.5 })).not.toBe(base);
  });
});

describe('the same run in both formats (log_formats.json, log_formats.eval)', () => {
  it('gives the same tasks, attempts and outcomes', async () => {
    const [a, b] = await Promise.all(['log_formats.json', 'log_formats.eval'].map(async (f) => importLogFile(join(REAL_LOGS, f), await temp(), OPTIONS)));
    expect(a!.bundleId).not.toBe(b!.bundleId);
    expect(await readFile(join(a!.dir, 'ledger.jsonl'))).toEqual(await readFile(join(b!.dir, 'ledger.jsonl')));
    expect(await readFile(join(a!.dir, 'attempts.jsonl'))).toEqual(await readFile(join(b!.dir, 'attempts.jsonl')));
    const verdicts = async (dir: string) => (JSON.parse(await readFile(join(dir, 'grades', '1.json'), 'utf8')) as { results: { attempt_id: string; verdict: string }[] }).results.map((r) => [r.attempt_id, r.verdict]);
    expect(await verdicts(a!.dir)).toEqual(await verdicts(b!.dir));
    expect(await verdicts(a!.dir)).toEqual([['a-000001', 'fail']]);
    const attempts = await readJsonl(join(a!.dir, 'attempts.jsonl'));
    expect(attempts[0]).toMatchObject({ task_id: '1', model: 'llama3.1', observed_model: 'llama3.1', outcome: 'completed', tokens: null, cost: { state: 'unavailable', micros: null } });
  });

  it('records the selector and the exact model the outputs report', async () => {
    const r = await importLogFile(join(REAL_LOGS, '2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval'), await temp(), OPTIONS);
    const v = await verifyDir(r.dir);
    expect(v.evidence.plan?.subjects).toEqual([
      { selector: 'openai/gpt-5', model: 'gpt-5-2025-08-07', agent: { name: 'system_message > generate', version: '0.3.128.dev4+g614f5bb29.d20250902' }, role: 'candidate' },
    ]);
    expect(v.evidence.plan?.created_at).toBe('2025-09-15T19:02:27Z');
    expect(v.evidence.attempts.lines().every((a) => a.attempt.observed_model === 'gpt-5-2025-08-07')).toBe(true);
  });
});
