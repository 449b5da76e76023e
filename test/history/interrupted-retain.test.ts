/**
 * Issue 10, item 2: an interrupted `retain` must not turn rewrite detection
 * off. The real CLI is run as a child process and killed (SIGKILL, the
 * test-only hook LEDGERBOARD_TEST_KILL_AFTER_WRITE in
 * src/author/create-only.ts) right after each of its durable writes in turn;
 * after every kill the counted bundles are rewritten and re-sealed, and the
 * rewrite must still be caught wherever anything was retained, and a later
 * `retain` must not adopt the rewritten manifest. A retained report whose
 * counted manifests are missing (what the old order, report first, left) is
 * an incomplete retention: finished when the bundle is there, else refused.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { checkHistoryIn } from '../../src/history/compare.ts';
import { MANIFESTS_DIR, readRetainedManifests } from '../../src/history/retained-manifests.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { readRetained, retainReport } from '../../src/history/retained-reports.ts';
import { runCli } from '../helpers/cli.ts';
import { addArtifact, makeTempDir, removeTempDirs, validBundle, writeModel, type BundleModel } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

const bin = fileURLToPath(new URL('../../bin/ledgerboard.mjs', import.meta.url));
const TEMP = /\.tmp$/;

interface ReportJson {
  bundles: { bundle_id: string | null; plan_id: string | null; status: string; counted: boolean; findings: { code: string; file: string }[] }[];
}

function plan(title: string, notes?: string): BundleModel {
  const model = validBundle();
  model.plan.title = title;
  addArtifact(model, 'artifacts/run.log', `${title}: step 1\n`);
  if (notes !== undefined) model.notes = notes;
  return model;
}

/** Two plans, each as first published and as rewritten and re-sealed afterwards (its NOTES.md replaced). */
const bundles = { a: { original: '', rewritten: '' }, b: { original: '', rewritten: '' } };
const ids = { a: { plan: '', original: '', rewritten: '' }, b: { plan: '', original: '', rewritten: '' } };

beforeAll(async () => {
  for (const key of ['a', 'b'] as const) {
    bundles[key].original = await writeModel(plan(`plan ${key}`));
    bundles[key].rewritten = await writeModel(plan(`plan ${key}`, 'These notes were rewritten after the report counted the bundle.\n'));
    const [original] = await verifyPaths([bundles[key].original]);
    const [rewritten] = await verifyPaths([bundles[key].rewritten]);
    expect(original!.verification.status).toBe('verified');
    expect(rewritten!.verification.status).toBe('verified');
    ids[key] = { plan: original!.verification.plan_id!, original: original!.verification.evidence.manifest!.bundle_id, rewritten: rewritten!.verification.evidence.manifest!.bundle_id };
  }
  expect(ids.a.plan).not.toBe(ids.b.plan);
  expect(ids.a.rewritten).not.toBe(ids.a.original);
});

/** A site directory: evidence/a and evidence/b (the given versions), a config, history/ not yet there. */
async function site(version: { a: 'original' | 'rewritten'; b: 'original' | 'rewritten' }): Promise<{ dir: string; config: string }> {
  const dir = await makeTempDir('lb-interrupted-retain-');
  await mkdir(join(dir, 'evidence'));
  for (const key of ['a', 'b'] as const) await cp(bundles[key][version[key]], join(dir, 'evidence', key), { recursive: true });
  const config = join(dir, 'lb.json');
  await writeFile(config, JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: 'history' }));
  return { dir, config };
}

async function rewriteEvidence(dir: string, keys: readonly ('a' | 'b')[]): Promise<void> {
  for (const key of keys) {
    await rm(join(dir, 'evidence', key), { recursive: true });
    await cp(bundles[key].rewritten, join(dir, 'evidence', key), { recursive: true });
  }
}

/** Runs the real CLI's retain in a child process that kills itself after its k-th durable write: 'killed' or 'completed'. */
async function retainKilledAfter(config: string, k: number): Promise<'killed' | 'completed'> {
  try {
    await promisify(execFile)(process.execPath, [bin, 'retain', '--config', config], {
      env: { ...process.env, NO_COLOR: '1', LEDGERBOARD_TEST_KILL_AFTER_WRITE: String(k) },
    });
    return 'completed';
  } catch (error) {
    if ((error as { signal?: string }).signal === 'SIGKILL') return 'killed';
    throw error;
  }
}

/** The retained files under their real names (temporary files of a killed write are not history). */
async function retainedState(dir: string): Promise<{ reports: string[]; manifests: string[]; temps: number }> {
  const list = (path: string) => readdir(path).catch(() => [] as string[]);
  const top = await list(join(dir, 'history'));
  const inManifests = await list(join(dir, 'history', MANIFESTS_DIR));
  return {
    reports: top.filter((n) => /^[0-9a-f]{64}\.json$/.test(n)),
    manifests: inManifests.filter((n) => /^[0-9a-f]{64}\.json$/.test(n)).map((n) => `sha256:${n.slice(0, 64)}`),
    temps: [...top, ...inManifests].filter((n) => TEMP.test(n)).length,
  };
}

/** `report --json` by plan_id; `stderr` gets what it printed there (warnings). */
async function reportJson(config: string, stderr: string[] = []): Promise<Map<string, ReportJson['bundles'][number]>> {
  const run = await runCli(['report', '--json', '--config', config]);
  expect(run.code, run.stderr).toBe(0);
  stderr.push(run.stderr);
  const report = JSON.parse(run.stdout) as ReportJson;
  return new Map(report.bundles.map((b) => [b.plan_id!, b]));
}

describe('retain killed after every durable write', () => {
  it('leaves no report without its manifests; a rewrite of anything retained is caught, and the next retain does not adopt it', async () => {
    const seen = { nothing: 0, manifestsOnly: 0, committed: 0 };
    let k = 1;
    for (; ; k++) {
      const { dir, config } = await site({ a: 'original', b: 'original' });
      const outcome = await retainKilledAfter(config, k);
      const state = await retainedState(dir);
      const label = `killed after write ${k}: ${JSON.stringify(state)}`;

      // All or nothing from the reader's side: a report is never there without every counted manifest.
      if (state.reports.length > 0) expect(state.manifests.sort(), label).toEqual([ids.a.original, ids.b.original].sort());
      // A killed write's temporary file is skipped by the readers, not shown as a problem.
      expect((await readRetained(join(dir, 'history'))).ignored, label).toEqual([]);
      expect((await readRetainedManifests(join(dir, 'history'))).problems, label).toEqual([]);
      if (state.reports.length > 0) seen.committed++;
      else if (state.manifests.length > 0) seen.manifestsOnly++;
      else seen.nothing++;

      // The counted bundles are rewritten and re-sealed.
      await rewriteEvidence(dir, ['a', 'b']);
      const retainedOriginal = { a: state.manifests.includes(ids.a.original), b: state.manifests.includes(ids.b.original) };
      const check = async (when: string) => {
        const report = await reportJson(config);
        for (const key of ['a', 'b'] as const) {
          const entry = report.get(ids[key].plan)!;
          expect(entry.bundle_id, `${label}, ${when}, ${key}`).toBe(ids[key].rewritten);
          if (retainedOriginal[key]) {
            // Caught: REWRITTEN_EVIDENCE on the rewritten file, never counted.
            expect(entry.status, `${label}, ${when}, ${key}`).toBe('invalid');
            expect(entry.counted).toBe(false);
            expect(entry.findings.map((f) => [f.code, f.file])).toEqual([['REWRITTEN_EVIDENCE', 'NOTES.md']]);
          } else {
            // Nothing of this bundle was retained (no manifest, hence no report): as if retain had never run.
            expect(state.reports, label).toEqual([]);
            expect(entry.status, `${label}, ${when}, ${key}`).toBe('verified');
          }
        }
      };
      await check('after the kill');

      // The next retain completes, and never keeps a rewritten manifest in place of a retained one.
      const again = await runCli(['retain', '--config', config]);
      expect(again.code, `${label}: ${again.stderr}`).toBe(0);
      const after = await retainedState(dir);
      for (const key of ['a', 'b'] as const) {
        expect(after.manifests.includes(ids[key].original), label).toBe(retainedOriginal[key]);
        expect(after.manifests.includes(ids[key].rewritten), label).toBe(!retainedOriginal[key]);
      }
      await check('after the next retain');

      if (outcome === 'completed') break;
    }
    // Every write was a kill point: two new directories, then two manifests and the report, each a temporary file, a link,
    // its removal and a directory sync; and, before the report, the withheld/ directory and the record of what was
    // withheld (history/retained-withheld.ts), one more directory and one more file.
    expect(k - 1).toBe(3 + 4 * 4);
    expect(seen.nothing).toBeGreaterThan(0);
    expect(seen.manifestsOnly).toBeGreaterThan(0);
    expect(seen.committed).toBeGreaterThan(0);
  }, 300_000);
});

describe('an incomplete retention: a retained report whose counted manifests are missing', () => {
  /** What the old order (report first) left when killed between the report and the manifests. */
  async function reportWithoutManifests(dir: string): Promise<string> {
    const report = buildReport(await verifyPaths([join(dir, 'evidence')]), Config.parse({}));
    expect(report.bundles.filter((b) => b.counted)).toHaveLength(2);
    await retainReport(join(dir, 'history'), report);
    return report.report_id.slice(7);
  }

  it('the bundles are there: report uses their manifests, and retain finishes the retention; a later rewrite is caught', async () => {
    const { dir, config } = await site({ a: 'original', b: 'original' });
    await reportWithoutManifests(dir);
    const history = await checkHistoryIn(await verifyPaths([join(dir, 'evidence')]), join(dir, 'history'));
    expect(history.incomplete.map((i) => [i.bundle_id, i.manifest?.bundle_id])).toEqual(
      [[ids.a.original, ids.a.original], [ids.b.original, ids.b.original]].sort(),
    );
    expect(history.problems.map((p) => p.name).sort()).toEqual([ids.a.original, ids.b.original].map((id) => `${id.slice(7)}.json`).sort());
    // report counts both (nothing to compare them with but themselves) and names the missing manifests on stderr.
    const warned: string[] = [];
    const counted = await reportJson(config, warned);
    expect([...counted.values()].map((b) => b.counted)).toEqual([true, true]);
    expect(warned[0]).toContain(ids.a.original);
    expect(warned[0]).toContain(ids.b.original);

    const retain = await runCli(['retain', '--config', config]);
    expect(retain.code, retain.stderr).toBe(0);
    expect((await retainedState(dir)).manifests.sort()).toEqual([ids.a.original, ids.b.original].sort());
    const finished = await checkHistoryIn(await verifyPaths([join(dir, 'evidence')]), join(dir, 'history'));
    expect(finished.incomplete).toEqual([]);
    expect(finished.problems).toEqual([]);

    await rewriteEvidence(dir, ['a']);
    const quiet: string[] = [];
    const report = await reportJson(config, quiet);
    expect(quiet).toEqual(['']);
    expect(report.get(ids.a.plan)!.findings.map((f) => [f.code, f.file])).toEqual([['REWRITTEN_EVIDENCE', 'NOTES.md']]);
    expect(report.get(ids.b.plan)!.counted).toBe(true);
  });

  it('the bundles were rewritten: never counted, retain refuses and writes nothing, until the manifest is restored', async () => {
    const { dir, config } = await site({ a: 'original', b: 'original' });
    const reportHex = await reportWithoutManifests(dir);
    await rewriteEvidence(dir, ['a', 'b']);

    const warned: string[] = [];
    const report = await reportJson(config, warned);
    expect(warned[0]).toContain(ids.a.original);
    expect(warned[0]).toContain(ids.b.original);
    for (const key of ['a', 'b'] as const) {
      const entry = report.get(ids[key].plan)!;
      expect(entry.status).toBe('invalid');
      expect(entry.counted).toBe(false);
      expect(entry.findings.map((f) => [f.code, f.file])).toEqual([['REWRITTEN_EVIDENCE', 'manifest.json']]);
    }
    const history = await checkHistoryIn(await verifyPaths([join(dir, 'evidence')]), join(dir, 'history'));
    expect(history.incomplete.map((i) => [i.bundle_id, i.reports, i.manifest])).toEqual(
      [[ids.a.original, [reportHex], null], [ids.b.original, [reportHex], null]].sort(),
    );
    // The archive page lists the missing manifests by the names to restore them under.
    const { modelOf } = await import('../helpers/site-model.ts');
    const { publishedOf } = await import('../../src/site/build/publish.ts');
    const built = buildReport(history.results, Config.parse({}));
    const model = await modelOf(built, history.results, publishedOf(built, history.results), Config.parse({}), { history });
    expect(model.history.problems.map((p) => p.name).sort()).toEqual([ids.a.original, ids.b.original].map((id) => `${id.slice(7)}.json`).sort());

    const before = await retainedState(dir);
    const refused = await runCli(['retain', '--config', config]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(ids.a.original.slice(7));
    expect(refused.stderr).toContain(ids.b.original.slice(7));
    expect(await retainedState(dir)).toEqual(before);

    // Restoring one manifest (the bundle's own manifest.json, byte for byte) makes that plan compare file by file; the other still refuses.
    await mkdir(join(dir, 'history', MANIFESTS_DIR));
    await writeFile(join(dir, 'history', MANIFESTS_DIR, `${ids.a.original.slice(7)}.json`), await readFile(join(bundles.a.original, 'manifest.json')));
    const partly = await reportJson(config);
    expect(partly.get(ids.a.plan)!.findings.map((f) => [f.code, f.file])).toEqual([['REWRITTEN_EVIDENCE', 'NOTES.md']]);
    expect(partly.get(ids.b.plan)!.findings.map((f) => [f.code, f.file])).toEqual([['REWRITTEN_EVIDENCE', 'manifest.json']]);
    expect((await runCli(['retain', '--config', config])).code).toBe(1);

    await writeFile(join(dir, 'history', MANIFESTS_DIR, `${ids.b.original.slice(7)}.json`), await readFile(join(bundles.b.original, 'manifest.json')));
    const retain = await runCli(['retain', '--config', config]);
    expect(retain.code, retain.stderr).toBe(0);
    const after = await retainedState(dir);
    expect(after.manifests.sort()).toEqual([ids.a.original, ids.b.original].sort());
    expect(after.reports).toHaveLength(2);
  });

  it('one bundle there, the other rewritten: retain refuses as a whole, so the finishable one is not written either', async () => {
    const { dir, config } = await site({ a: 'original', b: 'original' });
    await reportWithoutManifests(dir);
    await rewriteEvidence(dir, ['b']);
    const report = await reportJson(config);
    expect(report.get(ids.a.plan)!.counted).toBe(true);
    expect(report.get(ids.b.plan)!.counted).toBe(false);
    const before = await retainedState(dir);
    expect((await runCli(['retain', '--config', config])).code).toBe(1);
    expect(await retainedState(dir)).toEqual(before);
  });
});

describe('an edited retained manifest of a counted bundle', () => {
  it('is not history, so it is an incomplete retention too: the rewritten bundle is not counted and retain refuses', async () => {
    const { dir, config } = await site({ a: 'original', b: 'original' });
    expect((await runCli(['retain', '--config', config])).code).toBe(0);
    const path = join(dir, 'history', MANIFESTS_DIR, `${ids.a.original.slice(7)}.json`);
    await writeFile(path, (await readFile(path, 'utf8')).replace(/"bytes":(\d)/, '"bytes":9$1'));
    await rewriteEvidence(dir, ['a']);
    const report = await reportJson(config);
    expect(report.get(ids.a.plan)!.counted).toBe(false);
    expect(report.get(ids.a.plan)!.findings.map((f) => [f.code, f.file])).toEqual([['REWRITTEN_EVIDENCE', 'manifest.json']]);
    expect(report.get(ids.b.plan)!.counted).toBe(true);
    const before = await retainedState(dir);
    expect((await runCli(['retain', '--config', config])).code).toBe(1);
    expect(await retainedState(dir)).toEqual(before);
  });
});
