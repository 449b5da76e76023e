/**
 * An anchored freeze end to end (FORMAT.md 12, issue 30's round trip): a
 * local openssl time-stamp authority (test/helpers/local-tsa.ts) stamps the
 * plan at `freeze --anchor`, `seal` lists the token, `verify` reports the
 * anchor pinned to the test root with `--timestamp-root` (or the config's
 * `timestamp_roots`) and before the first attempt, not pinned without it;
 * `openssl ts -verify` accepts the file freeze wrote; `report --json`
 * carries the anchor and the root's digest. The other direction
 * (ledgerboard accepting tokens openssl made) is test/anchor/check.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exampleInputs, Scratch, writeInputs } from '../author/helpers.ts';
import { startLocalTsa, type LocalTsa } from '../helpers/local-tsa.ts';

const scratch = new Scratch();
let tsa: LocalTsa;
let dir: string;
let planHex: string;
let genTime: string;
const AUTHORITY = 'CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\, Time,C=XX';

beforeAll(async () => {
  tsa = await startLocalTsa();
  const inputs = await writeInputs(await scratch.dir(), await exampleInputs());
  dir = join(await scratch.dir(), 'bundle');
  const frozen = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', dir, '--anchor', tsa.url]);
  expect(frozen.code, frozen.stderr).toBe(0);
  genTime = /done: granted at (\S+),/.exec(frozen.stderr)![1]!;
  const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as { plan_id: string };
  planHex = plan.plan_id.slice('sha256:'.length);
  // The harness has not run yet: no attempts, so the anchor is before the first one.
  await writeFile(join(dir, 'attempts.jsonl'), '');
  const sealed = await cli(['seal', dir]);
  expect(sealed.code, sealed.stdout + sealed.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await tsa.close();
  await scratch.cleanup();
});

describe('freeze --anchor, seal, verify', () => {
  it('seal lists the token freeze wrote, with its digest', async () => {
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { files: { path: string; sha256: string }[] };
    const bytes = await readFile(join(dir, 'anchors', '127.0.0.1.tsr'));
    expect(manifest.files.find((f) => f.path === 'anchors/127.0.0.1.tsr')?.sha256).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
  });

  it('verify --timestamp-root <the test root>: the anchor is pinned and before the first attempt', async () => {
    const run = await cli(['verify', '--timestamp-root', tsa.rootPem, dir]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout.split('\n')[1]).toBe(`  anchored by ${AUTHORITY} at ${genTime} (pinned), before the first attempt`);
    expect(run.stdout).toContain('1 bundle: 1 verified, 0 invalid, 0 no_verdict; ');
    expect(run.stdout).not.toContain('ANCHOR_');
  });

  it('verify without a root: the same anchor, not pinned', async () => {
    const run = await cli(['verify', dir]);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[1]).toBe(`  anchored by ${AUTHORITY} at ${genTime} (not pinned), before the first attempt`);
  });

  it("the config's timestamp_roots pin it too (relative to the config file), and report --json carries the anchor and the root's digest", async () => {
    const configDir = await scratch.dir();
    await writeFile(join(configDir, 'root.pem'), await readFile(tsa.rootPem));
    const config = join(configDir, 'lb.json');
    await writeFile(config, JSON.stringify({ title: 'anchored', timestamp_roots: ['root.pem'] }));
    const run = await cli(['verify', '--config', config, dir]);
    expect(run.stdout.split('\n')[1]).toBe(`  anchored by ${AUTHORITY} at ${genTime} (pinned), before the first attempt`);

    const report = await cli(['report', '--json', '--no-cache', '--config', config, join(dir, '..')]);
    expect(report.code, report.stderr).toBe(0);
    const doc = JSON.parse(report.stdout) as { config: { timestamp_roots?: string[] }; bundles: { anchor?: unknown }[] };
    const der = execFileSync('openssl', ['x509', '-in', tsa.rootPem, '-outform', 'DER']);
    expect(doc.config.timestamp_roots).toEqual([`sha256:${createHash('sha256').update(der).digest('hex')}`]);
    expect(doc.bundles.map((b) => b.anchor)).toEqual([{ gen_time: genTime, authority: AUTHORITY, pinned: true, before_first_attempt: true }]);
  });

  it('openssl ts -verify accepts the file freeze wrote, over the plan id, with the test root', () => {
    const verified = spawnSync('openssl', ['ts', '-verify', '-digest', planHex, '-in', join(dir, 'anchors', '127.0.0.1.tsr'), '-CAfile', tsa.rootPem], { encoding: 'utf8' });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toBe('Verification: OK\n');
  });

  it('a --timestamp-root that cannot be read is a usage error naming it (exit 2)', async () => {
    const missing = join(dir, 'no-such-root.pem');
    const run = await cli(['verify', '--timestamp-root', missing, dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`ledgerboard: --timestamp-root: cannot read the time-stamp root ${missing}: ENOENT\n`);
    const notPem = await cli(['verify', '--timestamp-root', join(dir, 'plan.json'), dir]);
    expect(notPem.code).toBe(2);
    expect(notPem.stderr).toContain(`--timestamp-root: ${join(dir, 'plan.json')} is not a PEM file of root certificates: the PEM text holds no certificate`);
  });
});

describe('the anchor line (anchorLine)', () => {
  it('says after the first attempt, escapes control characters and cuts a long authority at 200 characters', async () => {
    const { anchorLine } = await import('../../src/cli/format-verify.ts');
    expect(anchorLine(null)).toBe('not anchored');
    expect(anchorLine({ gen_time: '2030-01-01T00:00:00Z', authority: 'CN=A', pinned: false, before_first_attempt: false })).toBe(
      'anchored by CN=A at 2030-01-01T00:00:00Z (not pinned), after the first attempt',
    );
    const hostile = anchorLine({ gen_time: '2030-01-01T00:00:00Z', authority: 'CN=\u001b[31mred', pinned: true, before_first_attempt: true });
    expect(hostile).not.toContain('\u001b');
    const long = anchorLine({ gen_time: '2030-01-01T00:00:00Z', authority: `CN=${'x'.repeat(500)}`, pinned: true, before_first_attempt: true });
    expect(long).toBe(`anchored by CN=${'x'.repeat(197)}… at 2030-01-01T00:00:00Z (pinned), before the first attempt`);
  });
});
