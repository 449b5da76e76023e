/**
 * The import re-derivation (import/rederive.ts, FORMAT.md 9): its rules one
 * by one, on hand-made copies of a demo Inspect import, and every demo import
 * re-derives.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { rederiveImport, withImportFindings, type BundleFileReader } from '../../src/import/rederive.ts';
import { verifyDirectory } from '../../src/pipeline/verify-directory.ts';
import { verifySnapshot } from '../../src/pipeline/verify-snapshot.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';
import { VERSION } from '../../src/version.ts';
import { removeTempDirs, validBundle, verifyModel } from '../helpers/bundle-builder.ts';
import { bundleFiles, claimFormat, claimTool, DEMO_INSPECT, flipGradesToPass, IMPORTED_BUNDLES, writeImported } from '../helpers/imported-bundle.ts';

afterAll(removeTempDirs);

const fromDir =
  (dir: string): BundleFileReader =>
  (path) =>
    readFile(join(dir, path));

async function verified(dir: string): Promise<BundleVerification> {
  return verifyBundle(await readBundle(dir));
}

describe('rederiveImport', () => {
  it('a demo import re-derives: matched, no finding', async () => {
    const v = await verified(DEMO_INSPECT);
    expect(v.status).toBe('verified');
    expect(await rederiveImport(v, fromDir(DEMO_INSPECT), DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'matched', findings: [] });
  });

  it('a frozen bundle, or one that is not verified, is not imported: nothing read, no finding', async () => {
    const read: BundleFileReader = () => {
      throw new Error('read');
    };
    expect(await rederiveImport(await verifyModel(validBundle()), read, DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'not_imported', findings: [] });
    const files = await bundleFiles(DEMO_INSPECT);
    files.set('NOTES.md', new TextEncoder().encode('changed'));
    const dir = await writeImported(files);
    const invalid = await verified(dir);
    // Not resealed by hand here: writeImported reseals, so break it after: a listed file whose bytes differ.
    const broken = { ...invalid, status: 'invalid' as const };
    expect(await rederiveImport(broken, read, DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'not_imported', findings: [] });
  });

  it('a reader that cannot give an original: unavailable, no finding', async () => {
    const v = await verified(DEMO_INSPECT);
    expect(await rederiveImport(v, async () => null, DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'unavailable', findings: [] });
  });

  it('flipped grades: IMPORT_MISMATCH naming grades/1.json and how many verdicts differ', async () => {
    const files = await bundleFiles(DEMO_INSPECT);
    flipGradesToPass(files);
    const dir = await writeImported(files);
    const v = await verified(dir);
    expect(v.status).toBe('verified');
    const r = await rederiveImport(v, fromDir(dir), DEFAULT_IMPORT_LIMITS);
    expect(r.outcome).toBe('mismatch');
    expect(r.findings.map((f) => [f.code, f.severity, f.file])).toEqual([['IMPORT_MISMATCH', 'error', 'grades/1.json']]);
    expect(r.findings[0]!.message).toMatch(/^grades\/1\.json differs: 1 of 3 verdicts re-derive differently/);
    expect(r.findings[0]!.message).toContain('re-imported bundle sha256:');
    const merged = withImportFindings(v, r.findings);
    expect(merged.status).toBe('invalid');
    expect(merged.findings.at(-1)!.code).toBe('IMPORT_MISMATCH');
  });

  it('another tool version: IMPORT_NOT_REPRODUCED naming the claim and what this verifier has; the originals are not read', async () => {
    const files = await bundleFiles(DEMO_INSPECT);
    claimTool(files, { name: 'ledgerboard', version: '9.9.9' });
    const v = await verified(await writeImported(files));
    const r = await rederiveImport(v, async () => { throw new Error('read'); }, DEFAULT_IMPORT_LIMITS);
    expect(r.outcome).toBe('not_reproduced');
    expect(r.findings.map((f) => [f.code, f.severity, f.file])).toEqual([['IMPORT_NOT_REPRODUCED', 'warning', 'plan.json']]);
    expect(r.findings[0]!.message).toBe(`the bundle says it was made by "ledgerboard" "9.9.9"; this verifier has the importer of ledgerboard ${VERSION} only: the import was not re-derived`);
    expect(withImportFindings(v, r.findings).status).toBe('verified');
  });

  it('another tool name, even at this version: IMPORT_NOT_REPRODUCED', async () => {
    const files = await bundleFiles(DEMO_INSPECT);
    claimTool(files, { name: 'someone-else', version: VERSION });
    const r = await rederiveImport(await verified(await writeImported(files)), fromDir(DEMO_INSPECT), DEFAULT_IMPORT_LIMITS);
    expect(r.outcome).toBe('not_reproduced');
    expect(r.findings[0]!.message).toContain('made by "someone-else"');
  });

  it('a format no importer has: IMPORT_NOT_REPRODUCED ("no importer for format")', async () => {
    const files = await bundleFiles(DEMO_INSPECT);
    claimFormat(files, 'unheard-of-log');
    const r = await rederiveImport(await verified(await writeImported(files)), fromDir(DEMO_INSPECT), DEFAULT_IMPORT_LIMITS);
    expect(r.outcome).toBe('not_reproduced');
    expect(r.findings[0]!.message).toContain('no importer for format "unheard-of-log"');
  });

  it('originals over an import limit: IMPORT_NOT_REPRODUCED naming the limit, nothing read', async () => {
    const v = await verified(DEMO_INSPECT);
    const read: BundleFileReader = async () => {
      throw new Error('read');
    };
    const r = await rederiveImport(v, read, { ...DEFAULT_IMPORT_LIMITS, maxFileBytes: 1000 });
    expect(r.outcome).toBe('not_reproduced');
    expect(r.findings.map((f) => [f.code, f.file])).toEqual([['IMPORT_NOT_REPRODUCED', 'source/inspect-log.json']]);
    expect(r.findings[0]!.message).toContain('import_limits.maxFileBytes');
    // A limit the importer meets while it maps (records): also not reproduced, never a mismatch.
    const lmEval = join(IMPORTED_BUNDLES, 'sshleifer-tiny-gpt2-a58c36e59eef');
    const records = await rederiveImport(await verified(lmEval), fromDir(lmEval), { ...DEFAULT_IMPORT_LIMITS, maxRecords: 5 });
    expect(records.outcome).toBe('not_reproduced');
    expect(records.findings[0]!.message).toContain('import_limits.maxRecords');
  });

  it('originals the importer refuses: IMPORT_MISMATCH ("the importer refuses the kept originals")', async () => {
    const files = await bundleFiles(DEMO_INSPECT);
    // The original replaced by bytes that are not an Inspect log; the plan's origin.source re-pointed so the bundle itself verifies.
    const bogus = new TextEncoder().encode('{"not": "a log"}');
    files.set('source/inspect-log.json', bogus);
    const plan = JSON.parse(Buffer.from(files.get('plan.json')!).toString('utf8')) as { origin: { source: string } };
    const { digestBytes } = await import('../../src/json/canonical.ts');
    const { prettyJson, withSelfId } = await import('../../src/evidence/seal.ts');
    plan.origin.source = digestBytes(bogus);
    files.set('plan.json', prettyJson(withSelfId(plan as unknown as Record<string, unknown>, 'plan_id')));
    const dir = await writeImported(files);
    const v = await verified(dir);
    expect(v.status).toBe('verified');
    const r = await rederiveImport(v, fromDir(dir), DEFAULT_IMPORT_LIMITS);
    expect(r.outcome).toBe('mismatch');
    expect(r.findings.map((f) => [f.code, f.file])).toEqual([['IMPORT_MISMATCH', 'source/inspect-log.json']]);
    expect(r.findings[0]!.message).toMatch(/^the importer refuses the kept originals: /);
  });

  it('the same bundle gives the same findings every time', async () => {
    const files = await bundleFiles(DEMO_INSPECT);
    flipGradesToPass(files);
    const dir = await writeImported(files);
    const v = await verified(dir);
    const a = await rederiveImport(v, fromDir(dir), DEFAULT_IMPORT_LIMITS);
    const b = await rederiveImport(v, fromDir(dir), DEFAULT_IMPORT_LIMITS);
    expect(b).toEqual(a);
  });
});

describe('verifySnapshot', () => {
  it('is verifyBundle under the default limits for a bundle within them', async () => {
    const snapshot = await readBundle(DEMO_INSPECT);
    expect(verifySnapshot(snapshot).findings).toEqual(verifyBundle(await readBundle(DEMO_INSPECT)).findings);
  });
});

describe('every demo import re-derives', () => {
  const dirs = readdirSync(IMPORTED_BUNDLES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(IMPORTED_BUNDLES, d.name));
  it('has demo imports', () => expect(dirs.length).toBeGreaterThan(5));
  for (const dir of dirs) {
    it(dir.slice(IMPORTED_BUNDLES.length), async () => {
      const v = await verified(dir);
      expect(v.status).toBe('verified');
      expect(await rederiveImport(v, fromDir(dir), DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'matched', findings: [] });
      // And through the pipeline: no IMPORT_* finding.
      const piped = (await verifyDirectory(dir)).verification;
      expect(piped.findings.filter((f) => f.code.startsWith('IMPORT_'))).toEqual([]);
    });
  }
});

describe('what re-derivation needs is in the bundle', () => {
  it('an Inspect import at a non-default --pass-threshold records it in the grader profile and re-derives; the default profile is unchanged', async () => {
    const { inspectImporter } = await import('../../src/import/inspect/importer.ts');
    const { mapImportInput } = await import('../../src/import/map-input.ts');
    const log = await readFile(join(DEMO_INSPECT, 'source/inspect-log.json'));
    const input = { name: 'log.json', kind: 'file' as const, files: new Map([['log.json', log]]), skipped: [] };
    const at = async (flags: Record<string, string>) => {
      const mapped = await mapImportInput(inspectImporter, input, { license: 'MIT', flags, limits: DEFAULT_IMPORT_LIMITS });
      const dir = await writeImported(mapped.files);
      return { dir, plan: JSON.parse(Buffer.from(mapped.files.get('plan.json')!).toString('utf8')) as { grader: { id: string; profile: string } } };
    };
    const half = await at({ 'pass-threshold': '0.5' });
    expect(half.plan.grader.profile).toBe('inspect-scorer pass>=0.5');
    expect(inspectImporter.rerunFlags!(half.plan)).toEqual([['--scorer', half.plan.grader.id], ['--pass-threshold', '0.5']]);
    expect(await rederiveImport(await verified(half.dir), fromDir(half.dir), DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'matched', findings: [] });
    const tiny = await at({ 'pass-threshold': '0.0000001' });
    expect(tiny.plan.grader.profile).toBe('inspect-scorer pass>=1e-7');
    expect(await rederiveImport(await verified(tiny.dir), fromDir(tiny.dir), DEFAULT_IMPORT_LIMITS)).toEqual({ outcome: 'matched', findings: [] });
    const plain = await at({ 'pass-threshold': '1' });
    expect(plain.plan.grader.profile).toBe('inspect-scorer');
    expect(inspectImporter.rerunFlags!(plain.plan)).toEqual([['--scorer', plain.plan.grader.id]]);
  });
});
