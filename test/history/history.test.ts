/**
 * Append-only history (issue "Trust under attack", point 7): `retain` keeps
 * the counted bundles' manifests; a plan that reappears with another bundle
 * is classified file by file, and removed or rewritten files are
 * 'REWRITTEN_EVIDENCE' (not counted), while appends and additions are not.
 */
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import { classifyFiles, classCounts } from '../../src/history/classify.ts';
import { checkHistory, checkHistoryIn } from '../../src/history/compare.ts';
import { prefixDigest } from '../../src/history/prefix.ts';
import { MANIFESTS_DIR, readRetainedManifests, RetainedManifestError, retainManifests } from '../../src/history/retained-manifests.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Manifest } from '../../src/schema/index.ts';
import { runCli } from '../helpers/cli.ts';
import { addArtifact, makeTempDir, NOTES_TEXT, removeTempDirs, validBundle, writeModel, type BundleModel } from '../helpers/bundle-builder.ts';

afterAll(removeTempDirs);

const entry = (path: string, text: string) => ({ path, sha256: digestBytes(new TextEncoder().encode(text)), bytes: new TextEncoder().encode(text).length });

describe('classifyFiles', () => {
  const newFiles: Record<string, string> = { 'a.txt': 'same', 'b.log': 'line 1\nline 2\n', 'c.txt': 'new text', 'd.txt': 'added', 'e.txt': 'shorter' };
  const prefix = async (path: string, bytes: number) => digestBytes(new TextEncoder().encode(newFiles[path]!).subarray(0, bytes));

  it('unchanged, appended, rewritten, added and removed, sorted by path', async () => {
    const changes = await classifyFiles(
      [entry('a.txt', 'same'), entry('b.log', 'line 1\n'), entry('c.txt', 'old text'), entry('e.txt', 'shorter and longer'), entry('z.txt', 'gone')],
      Object.entries(newFiles).map(([p, t]) => entry(p, t)),
      prefix,
    );
    expect(changes.map((c) => [c.path, c.class])).toEqual([
      ['a.txt', 'unchanged'],
      ['b.log', 'appended'],
      ['c.txt', 'rewritten'],
      ['d.txt', 'added'],
      ['e.txt', 'rewritten'],
      ['z.txt', 'removed'],
    ]);
    expect(classCounts(changes)).toEqual({ unchanged: 1, appended: 1, added: 1, removed: 1, rewritten: 2 });
    expect(changes.find((c) => c.path === 'z.txt')!.new).toBeNull();
    expect(changes.find((c) => c.path === 'd.txt')!.old).toBeNull();
  });

  it('a longer file whose first bytes differ is rewritten, not appended (the prefix digest decides)', async () => {
    const [change] = await classifyFiles([entry('b.log', 'LINE 1\n')], [entry('b.log', newFiles['b.log']!)], prefix);
    expect(change!.class).toBe('rewritten');
  });

  it('an unreadable prefix (null) is rewritten: an append is shown, never assumed', async () => {
    const [change] = await classifyFiles([entry('b.log', 'line 1\n')], [entry('b.log', newFiles['b.log']!)], () => Promise.resolve(null));
    expect(change!.class).toBe('rewritten');
  });
});

describe('prefixDigest', () => {
  it('hashes the first N bytes of the verified file, and refuses symlinks, short, missing, unsafe or changed files', async () => {
    const dir = await makeTempDir();
    await writeFile(join(dir, 'f'), 'hello world');
    await symlink(join(dir, 'f'), join(dir, 'link'));
    const verified = { sha256: digestBytes(new TextEncoder().encode('hello world')), bytes: 11 };
    expect(await prefixDigest(dir, 'f', 5, verified)).toBe(digestBytes(new TextEncoder().encode('hello')));
    expect(await prefixDigest(dir, 'f', 0, verified)).toBe(digestBytes(new Uint8Array()));
    expect(await prefixDigest(dir, 'link', 5, verified)).toBeNull();
    expect(await prefixDigest(dir, 'f', 12, verified)).toBeNull();
    expect(await prefixDigest(dir, 'missing', 1, verified)).toBeNull();
    expect(await prefixDigest(dir, '../f', 1, verified)).toBeNull();
    // The file on disk is no longer the one verification saw (same size, other bytes): no prefix is claimed from it.
    await writeFile(join(dir, 'f'), 'hello WORLD');
    expect(await prefixDigest(dir, 'f', 5, verified)).toBeNull();
  });
});

describe('retained manifests', () => {
  it('are written create-only, read back by id, and an edited, misnamed or linked file is a problem, never used', async () => {
    const dir = await makeTempDir();
    const bundle = await writeModel(validBundle());
    const [result] = await verifyPaths([bundle]);
    const manifest = result!.verification.evidence.manifest!;
    expect(await retainManifests(dir, [manifest])).toEqual({ created: 1, existing: 0 });
    expect(await retainManifests(dir, [manifest])).toEqual({ created: 0, existing: 1 });
    const hex = manifest.bundle_id.slice(7);
    const read = await readRetainedManifests(dir);
    expect([...read.byBundle.keys()]).toEqual([manifest.bundle_id]);
    expect(read.problems).toEqual([]);

    const root = join(dir, MANIFESTS_DIR);
    const text = await readFile(join(root, `${hex}.json`), 'utf8');
    // Other bytes of the same manifest (its id re-derives: e.g. the bundle's own manifest.json copied back) are it, and stay as they are.
    const spaced = text.replace('"bytes":', '"bytes": ');
    await writeFile(join(root, `${hex}.json`), spaced);
    expect(await retainManifests(dir, [manifest])).toEqual({ created: 0, existing: 1 });
    expect(await readFile(join(root, `${hex}.json`), 'utf8')).toBe(spaced);
    // Another manifest under its name is refused, never overwritten.
    await writeFile(join(root, `${hex}.json`), text.replace(/"bytes":(\d)/, '"bytes":9$1'));
    await expect(retainManifests(dir, [manifest])).rejects.toThrow(RetainedManifestError);
    await writeFile(join(root, `${'0'.repeat(64)}.json`), text);
    await writeFile(join(root, 'notes.txt'), 'x');
    await writeFile(join(root, `.${hex}.json.4242.0123456789ab.tmp`), 'half written by a killed retain');
    await symlink('/etc/passwd', join(root, `${'1'.repeat(64)}.json`));
    const again = await readRetainedManifests(dir);
    expect(again.byBundle.size).toBe(0);
    expect(again.problems.map((p) => p.name)).toEqual([`${'0'.repeat(64)}.json`, `${'1'.repeat(64)}.json`, `${hex}.json`, 'notes.txt']);
    expect(again.problems.find((p) => p.name === `${hex}.json`)!.problem).toContain('does not re-derive');
    expect(again.problems.find((p) => p.name.startsWith('1'))!.problem).toContain('not a regular file');
  });

  it('a missing directory is an empty history', async () => {
    expect(await readRetainedManifests(join(await makeTempDir(), 'none'))).toEqual({ byBundle: new Map(), problems: [] });
  });
});

/** The first published version: the valid bundle with an extra artifact nobody references. */
function version1(): BundleModel {
  const model = validBundle();
  addArtifact(model, 'artifacts/run.log', 'step 1\n');
  return model;
}

describe('checkHistory: a plan re-published with another bundle', () => {
  let retained: { byBundle: Map<string, Manifest>; problems: [] };
  let oldId: string;

  beforeAll(async () => {
    const [v1] = await verifyPaths([await writeModel(version1())]);
    const manifest = v1!.verification.evidence.manifest!;
    oldId = manifest.bundle_id;
    retained = { byBundle: new Map([[oldId, manifest]]), problems: [] };
  });

  async function check(edit: (model: BundleModel) => void) {
    const model = version1();
    edit(model);
    const results = await verifyPaths([await writeModel(model)]);
    expect(results[0]!.verification.status).toBe('verified');
    return checkHistory(results, retained);
  }

  it('the same bundle again: nothing to compare, nothing found', async () => {
    const history = await check(() => {});
    expect(history.changes).toEqual([]);
    expect(history.results[0]!.verification.findings).toEqual([]);
  });

  it('appended and added files: classified, no finding, still verified and counted', async () => {
    const history = await check((m) => {
      m.artifacts.set('artifacts/run.log', new TextEncoder().encode('step 1\nstep 2\n'));
      addArtifact(m, 'artifacts/later.txt', 'a later file');
    });
    expect(history.changes).toHaveLength(1);
    const change = history.changes[0]!;
    expect(change.previous_bundle_id).toBe(oldId);
    expect(change.rewritten).toBe(false);
    expect(change.files.map((f) => [f.path, f.class])).toEqual([
      ['artifacts/later.txt', 'added'],
      ['artifacts/run.log', 'appended'],
    ]);
    const v = history.results[0]!.verification;
    expect(v.findings).toEqual([]);
    expect(v.status).toBe('verified');
    const report = buildReport(history.results, Config.parse({}));
    expect(report.bundles[0]!.counted).toBe(true);
  });

  it('a rewritten file and a removed file: one REWRITTEN_EVIDENCE each, the bundle invalid and not counted', async () => {
    const history = await check((m) => {
      m.notes = NOTES_TEXT.replace('untrusted', 'trusted');
      m.artifacts.delete('artifacts/run.log');
    });
    const v = history.results[0]!.verification;
    expect(v.findings.map((f) => [f.code, f.severity, f.file])).toEqual([
      ['REWRITTEN_EVIDENCE', 'error', 'NOTES.md'],
      ['REWRITTEN_EVIDENCE', 'error', 'artifacts/run.log'],
    ]);
    expect(v.findings[0]!.message).toContain(oldId.slice(7, 19));
    expect(v.status).toBe('invalid');
    expect(history.changes[0]!.counts).toMatchObject({ removed: 1, rewritten: 1 });
    const report = buildReport(history.results, Config.parse({}));
    expect(report.bundles[0]!.counted).toBe(false);
    expect(report.bundles[0]!.findings.map((f) => f.code)).toEqual(['REWRITTEN_EVIDENCE', 'REWRITTEN_EVIDENCE']);
    expect(report.cohorts).toEqual([]);
  });

  it('a plan that is gone altogether is listed as absent', async () => {
    const other = validBundle();
    other.plan.title = 'another plan';
    const history = checkHistory(await verifyPaths([await writeModel(other)]), retained);
    const [manifest] = retained.byBundle.values();
    expect((await history).absent).toEqual([{ plan_id: manifest!.plan_id, bundle_id: oldId }]);
  });
});

describe('the CLI: retain, then re-publish', () => {
  const run = (...argv: string[]) => runCli(argv);

  it('retain keeps the counted manifests; a rewritten re-publish shows in report --json; the config dir anchors both paths', async () => {
    const site = await makeTempDir();
    await mkdir(join(site, 'evidence'), { recursive: true });
    await cp(await writeModel(version1()), join(site, 'evidence', 'v'), { recursive: true });
    await writeFile(join(site, 'lb.json'), JSON.stringify({ bundles_dir: 'evidence', retained_reports_dir: 'history' }));
    const config = join(site, 'lb.json');

    const first = await run('retain', '--config', config);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('manifests of the counted bundles: 1 retained, 0 already retained');
    expect((await readdir(join(site, 'history', MANIFESTS_DIR))).length).toBe(1);
    expect((await run('retain', '--config', config)).stdout).toContain('0 retained, 1 already retained');

    const rewritten = version1();
    rewritten.notes = 'Different notes.\n';
    await rm(join(site, 'evidence', 'v'), { recursive: true });
    await cp(await writeModel(rewritten), join(site, 'evidence', 'v'), { recursive: true });
    const report = await run('report', '--json', '--config', config, join(site, 'evidence'));
    expect(report.code, report.stderr).toBe(0);
    const parsed = JSON.parse(report.stdout) as { bundles: { status: string; counted: boolean; findings: { code: string; file: string }[] }[] };
    expect(parsed.bundles[0]!.status).toBe('invalid');
    expect(parsed.bundles[0]!.counted).toBe(false);
    expect(parsed.bundles[0]!.findings).toMatchObject([{ code: 'REWRITTEN_EVIDENCE', file: 'NOTES.md' }]);

    // verify looks at one bundle alone: it has no history, so the bundle verifies there.
    expect((await run('verify', join(site, 'evidence'))).code).toBe(0);
    // The history check through checkHistoryIn reads the same directory.
    const history = await checkHistoryIn(await verifyPaths([join(site, 'evidence')]), join(site, 'history'));
    expect(history.changes.map((c) => c.rewritten)).toEqual([true]);
  });
});

describe('review findings', () => {
  let retained: { byBundle: Map<string, Manifest>; problems: [] };
  let planId: string;
  let oldId: string;

  beforeAll(async () => {
    const [v1] = await verifyPaths([await writeModel(version1())]);
    const manifest = v1!.verification.evidence.manifest!;
    planId = manifest.plan_id;
    oldId = manifest.bundle_id;
    retained = { byBundle: new Map([[oldId, manifest]]), problems: [] };
  });

  it('an invalid bundle that merely names a retained plan does not hide its withdrawal', async () => {
    const dir = await writeModel(version1(), { manifestRaw: '{}' });
    const results = await verifyPaths([dir]);
    expect(results[0]!.verification.status).toBe('invalid');
    expect(results[0]!.verification.plan_id).toBe(planId);
    expect((await checkHistory(results, retained)).absent).toEqual([{ plan_id: planId, bundle_id: oldId }]);
  });

  it('a rewritten plan is listed as rewritten, not also as withdrawn', async () => {
    const model = version1();
    model.notes = 'rewritten\n';
    const history = await checkHistory(await verifyPaths([await writeModel(model)]), retained);
    expect(history.changes.map((c) => c.rewritten)).toEqual([true]);
    expect(history.absent).toEqual([]);
  });

  it('two re-publishes of one plan are listed in bundle-id order, whatever order discovery met them in', async () => {
    const a = version1();
    addArtifact(a, 'artifacts/a.txt', 'a');
    const b = version1();
    addArtifact(b, 'artifacts/b.txt', 'b');
    const results = await verifyPaths([await writeModel(a), await writeModel(b)]);
    const forward = (await checkHistory(results, retained)).changes.map((c) => c.bundle_id);
    const backward = (await checkHistory([...results].reverse(), retained)).changes.map((c) => c.bundle_id);
    expect(forward).toHaveLength(2);
    expect(backward).toEqual(forward);
    expect([...forward].sort()).toEqual(forward);
  });

  it('a plan that gained a regrading generation is not rewritten, but the site lists it as grown', async () => {
    const model = version1();
    const regrade = structuredClone(model.grades[0]!);
    regrade.name = '2.json';
    regrade.value.generation = 2;
    model.grades.push(regrade);
    const results = await verifyPaths([await writeModel(model)]);
    expect(results[0]!.verification.status).toBe('verified');
    const history = await checkHistory(results, retained);
    expect(history.changes[0]!.rewritten).toBe(false);
    expect(history.changes[0]!.files.map((f) => [f.path, f.class])).toEqual([['grades/2.json', 'added']]);
    const { modelOf } = await import('../helpers/site-model.ts');
    const { publishedOf } = await import('../../src/site/build/publish.ts');
    const report = buildReport(history.results, Config.parse({}));
    const site = await modelOf(report, history.results, publishedOf(report, history.results), Config.parse({}), { history });
    expect(site.history.grown.map((c) => c.plan_id)).toEqual([planId]);
    expect(site.history.rewritten).toEqual([]);
  });
});
