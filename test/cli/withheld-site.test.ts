/**
 * Withheld files (issue 16): a build with `withhold: artifacts/grader/**`
 * publishes no byte of those files (their digests stay in the manifests and
 * /withheld.json), keeps the report id, and verify.mjs exits 0 counting them
 * as withheld, never as a match or a mismatch; removing the rule publishes
 * the same report id with the bytes, and a tampered revealed byte is a
 * mismatch. Rules that would withhold what a stranger needs are refused; a
 * rule that matches nothing is a warning.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globRegExp, withholdingRule, WithholdRule } from '../../src/config/withhold.ts';
import { runCli } from '../helpers/cli.ts';

let dir: string;
const config = (withhold: unknown[]) => writeFile(join(dir, 'ledgerboard.config.json'), JSON.stringify({ bundles_dir: 'evidence', withhold }));
const build = (out: string) => runCli(['build', '--config', join(dir, 'ledgerboard.config.json'), '--out', join(dir, out), '--no-cache']);
const verify = (site: string) =>
  promisify(execFile)(process.execPath, [join(site, 'verify.mjs'), site]).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
/** Every regular file under artifacts/grader/ of the demo bundles, with its manifest digest. */
async function graderFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const bundle of await readdir(join(dir, 'evidence'))) {
    const manifest = JSON.parse(await readFile(join(dir, 'evidence', bundle, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    for (const f of manifest.files) if (f.path.startsWith('artifacts/grader/')) out.push(f.sha256.slice(7));
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-withheld-'));
  await cp('content/bundles', join(dir, 'evidence'), { recursive: true });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('globs', () => {
  it('* within a directory, ** across, ? one character, the rest literal', () => {
    expect(globRegExp('artifacts/grader/**').test('artifacts/grader/a/b.txt')).toBe(true);
    expect(globRegExp('artifacts/*.txt').test('artifacts/a/b.txt')).toBe(false);
    expect(globRegExp('**/x.txt').test('x.txt')).toBe(true);
    expect(globRegExp('a?c.(1)').test('abc.(1)')).toBe(true);
    expect(globRegExp('a?c').test('a/c')).toBe(false);
    expect(withholdingRule([{ path: 'NOTES.md', reason: 'r' }], 'NOTES.md')?.reason).toBe('r');
  });

  it('a rule that would withhold manifest.json, plan.json, ledger.jsonl, attempts.jsonl, a grades file or a time-stamp token is refused, saying why', () => {
    for (const path of ['**', '*.json', 'grades/*', 'plan.json', '*.jsonl', 'grades/**', 'anchors/**', 'anchors/*.tsr', '**/*.tsr']) {
      const parsed = WithholdRule.safeParse({ path, reason: 'x' });
      expect(parsed.success, path).toBe(false);
      expect(parsed.error!.issues[0]!.message, path).toMatch(/what a stranger needs to re-derive the numbers/);
    }
    expect(WithholdRule.safeParse({ path: 'artifacts/grader/**', reason: 'holdout', until: '2027-01-01' }).success).toBe(true);
  });
});

describe('a site with withheld files', () => {
  it('withholds the bytes, keeps the report id, verify.mjs counts them as withheld; revealing publishes the same id with the bytes', async () => {
    await config([]);
    const plain = await build('plain');
    expect(plain.code).toBe(0);
    await config([{ path: 'artifacts/grader/**', reason: 'holdout oracle inputs', until: '2027-06-01' }, { path: 'nothing/here/*', reason: 'a typo' }]);
    const held = await build('held');
    expect(held.code).toBe(0);
    expect(held.stderr).toContain('warning: the withhold rule "nothing/here/*" matches no file');
    const grader = await graderFiles();
    expect(grader.length).toBeGreaterThan(0);
    const blobs = new Set(await readdir(join(dir, 'held', 'blobs')));
    expect(grader.filter((hex) => blobs.has(hex))).toEqual([]);
    expect(await readFile(join(dir, 'held', 'report.json'))).toEqual(await readFile(join(dir, 'plain', 'report.json')));
    const listed = JSON.parse(await readFile(join(dir, 'held', 'withheld.json'), 'utf8')) as { files: { path: string; reason: string; until: string | null }[] };
    expect(listed.files.length).toBe(grader.length);
    expect(new Set(listed.files.map((f) => `${f.reason} ${f.until}`))).toEqual(new Set(['holdout oracle inputs 2027-06-01']));
    const run = await verify(join(dir, 'held'));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`ok  withheld /withheld\\.json ${grader.length} files withheld: committed digest, not published`));
    expect(run.stdout).toMatch(/ok {2}files sha256:[0-9a-f]{64} \d+ of \d+ listed files match, \d+ withheld \(committed digest, not published\)/);

    // Revealed: the rule removed; the same report, and the bytes, checked against the digests public all along.
    await config([]);
    const revealed = await build('revealed');
    expect(revealed.code).toBe(0);
    expect(await readFile(join(dir, 'revealed', 'report.json'))).toEqual(await readFile(join(dir, 'plain', 'report.json')));
    const revealedBlobs = new Set(await readdir(join(dir, 'revealed', 'blobs')));
    expect(grader.every((hex) => revealedBlobs.has(hex))).toBe(true);
    expect((await verify(join(dir, 'revealed'))).code).toBe(0);
    const blob = join(dir, 'revealed', 'blobs', grader[0]!);
    const bytes = await readFile(blob);
    bytes[0]! ^= 1;
    await writeFile(blob, bytes);
    const tampered = await verify(join(dir, 'revealed'));
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/MISMATCH files/);
  }, 240_000);

  it('a /withheld.json that claims plan.json is withheld: a mismatch', async () => {
    const copy = join(dir, 'claims');
    await cp(join(dir, 'plain'), copy, { recursive: true });
    await writeFile(join(copy, 'withheld.json'), JSON.stringify({ files: [{ bundle: 'x', path: 'plan.json', sha256: 'sha256:00', bytes: 1, reason: 'no', until: null }] }));
    const run = await verify(copy);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/MISMATCH withheld \/withheld\.json withholds plan\.json, which a stranger needs/);
  });

  it('a /withheld.json that lists plan.json\'s digest under another name: plan.json is still checked (a changed byte is a mismatch)', async () => {
    const copy = join(dir, 'disguised');
    await cp(join(dir, 'plain'), copy, { recursive: true });
    const [bundle] = (await readdir(join(copy, 'bundles'))).sort();
    const manifest = JSON.parse(await readFile(join(copy, 'bundles', bundle!, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    const plan = manifest.files.find((f) => f.path === 'plan.json')!;
    await writeFile(join(copy, 'withheld.json'), JSON.stringify({ files: [{ bundle: bundle, path: 'artifacts/x.txt', sha256: plan.sha256, bytes: 1, reason: 'r', until: null }] }));
    const blob = join(copy, 'blobs', plan.sha256.slice(7));
    const bytes = await readFile(blob);
    bytes[bytes.length - 1] = bytes[bytes.length - 1] === 0x0a ? 0x20 : 0x0a;
    await writeFile(blob, bytes);
    const run = await verify(copy);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/"plan\.json": sha256:[0-9a-f]{64}, listed/);
  });

  it('a config with a forbidden rule: build refuses (exit 2) and says why', async () => {
    await config([{ path: 'grades/*.json', reason: 'no' }]);
    const run = await build('refused');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/would withhold grades\/1\.json/);
  });
});
