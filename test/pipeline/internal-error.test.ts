/**
 * Crash isolation (issue "Trust under attack", point 6): an unexpected error
 * while processing one bundle becomes an 'INTERNAL_ERROR' finding on that
 * bundle (no_verdict, never counted); the other bundles are verified and
 * counted as usual, and the CLI exits 1 (not 3).
 */
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { PathArgumentError } from '../../src/evidence/discover.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import type { BundleSnapshot } from '../../src/evidence/read-bundle.ts';
import { runCli } from '../helpers/cli.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { makeTempDir, removeTempDirs, validBundle, writeModel } from '../helpers/bundle-builder.ts';

// The CLI runs the real verifier, except on bundles holding a file named CRASH-ME, where it throws as a bug would.
vi.mock('../../src/verify/verify-bundle.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/verify/verify-bundle.ts')>();
  return {
    ...real,
    verifyBundle: (snapshot: BundleSnapshot) => {
      if (snapshot.entries.some((e) => e.path === 'CRASH-ME')) throw new TypeError("Cannot read properties of undefined (reading 'x')");
      return real.verifyBundle(snapshot);
    },
  };
});

// Notes rendering throws on notes that say so, as a bug in the Markdown pipeline would.
vi.mock('../../src/site/views/notes.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/site/views/notes.ts')>();
  return {
    ...real,
    renderNotes: async (bytes: Uint8Array) => {
      if (Buffer.from(bytes).includes('CRASH THE RENDERER')) throw new Error('renderer bug');
      return real.renderNotes(bytes);
    },
  };
});

afterAll(removeTempDirs);

async function twoBundles(): Promise<{ root: string; good: string; bad: string }> {
  const root = await makeTempDir();
  const other = validBundle();
  other.plan.title = 'the other plan';
  const good = join(root, 'a-good');
  const bad = join(root, 'b-bad');
  await cp(await writeModel(validBundle()), good, { recursive: true });
  await cp(await writeModel(other), bad, { recursive: true });
  return { root, good, bad };
}

describe('INTERNAL_ERROR', () => {
  it('a verifier that throws on one bundle: that bundle gets INTERNAL_ERROR (no_verdict), the other is verified and counted', async () => {
    const { root, bad } = await twoBundles();
    const crashing = (snapshot: BundleSnapshot) => {
      if (snapshot.entries.some((e) => e.path === 'plan.json' && e.content && Buffer.from(e.content).includes('the other plan'))) throw new RangeError('boom');
      return verifyBundle(snapshot);
    };
    const results = await verifyPaths([root], undefined, { verify: crashing });
    expect(results.map((r) => r.verification.status)).toEqual(['verified', 'no_verdict']);
    const crashed = results[1]!;
    expect(crashed.path).toBe(bad);
    expect(crashed.verification.findings).toEqual([
      { code: 'INTERNAL_ERROR', severity: 'error', file: '.', message: 'ledgerboard failed while verifying this bundle: RangeError: boom' },
    ]);
    // The crashed bundle keeps its content identity (what was read), so the site can still publish its files.
    expect(crashed.entries.some((e) => e.path === 'plan.json')).toBe(true);
    const report = buildReport(results, Config.parse({}));
    expect(report.bundles.map((b) => [b.status, b.counted])).toEqual(expect.arrayContaining([['verified', true], ['no_verdict', false]]));
    expect(report.cohorts.length).toBeGreaterThan(0);
  });

  it('the CLI: verify exits 1 (not 3), prints the finding, and still verifies the other bundle', async () => {
    const { root, bad } = await twoBundles();
    await writeFile(join(bad, 'CRASH-ME'), '');
    const verify = await runCli(['verify', root]);
    expect(verify.code).toBe(1);
    const { stdout, stderr } = verify;
    expect(stdout).toMatch(/verified .*a-good/);
    expect(stdout).toMatch(/no_verdict .*b-bad/);
    expect(stdout).toContain('INTERNAL_ERROR');
    expect(stderr).not.toContain('unexpected error');

    const reported = await runCli(['report', '--json', root]);
    expect(reported.code).toBe(0);
    const report = JSON.parse(reported.stdout) as { bundles: { status: string; counted: boolean; findings: { code: string }[] }[] };
    expect(report.bundles.filter((b) => b.counted)).toHaveLength(1);
    expect(report.bundles.find((b) => b.status === 'no_verdict')!.findings.map((f) => f.code)).toEqual(['INTERNAL_ERROR']);
  });

  it('a bundle root without its manifest stays MISSING_FILE, not INTERNAL_ERROR', async () => {
    const root = await makeTempDir();
    await mkdir(join(root, 'x'));
    await writeFile(join(root, 'x', 'plan.json'), '{}');
    const results = await verifyPaths([join(root, 'x')]);
    const codes = results[0]!.verification.findings.map((f) => f.code);
    expect(codes).toContain('MISSING_FILE');
    expect(codes).not.toContain('INTERNAL_ERROR');
  });

  it('a directory with no bundle below it is a usage error, never a bundle nor an internal error', async () => {
    const root = await makeTempDir();
    await mkdir(join(root, 'x'));
    await expect(verifyPaths([join(root, 'x')])).rejects.toThrow(PathArgumentError);
    expect(await verifyPaths([join(root, 'x')], undefined, { requireBundles: false })).toEqual([]);
  });
});

describe('a rendering bug on one bundle page', () => {
  it('leaves that part out and says so on the page; the other bundle renders in full', async () => {
    const { root, bad } = await twoBundles();
    const crashing = validBundle();
    crashing.plan.title = 'the other plan';
    crashing.notes = 'CRASH THE RENDERER\n';
    await cp(await writeModel(crashing), bad, { recursive: true, force: true });
    const results = await verifyPaths([root]);
    expect(results.map((r) => r.verification.status)).toEqual(['verified', 'verified']);
    const report = buildReport(results, Config.parse({}));
    const model = await modelOf(report, results, publishedOf(report, results), Config.parse({}));
    const [good, broken] = model.bundles.map((b) => b.page!).sort((a, b) => Number(a.notesHtml === null) - Number(b.notesHtml === null));
    expect(good!.notesHtml).toContain('<p>');
    expect(good!.renderProblems).toEqual([]);
    expect(broken!.notesHtml).toBeNull();
    expect(broken!.renderProblems).toEqual(['NOTES.md could not be rendered (internal error: renderer bug)']);
    expect(broken!.planHtml).toContain('<pre');
  });
});
