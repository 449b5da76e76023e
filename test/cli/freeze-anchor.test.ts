/**
 * `ledgerboard freeze --anchor <URL>` and `freeze --anchor-only DIR`
 * (FORMAT.md 12) against a local openssl time-stamp authority: the token
 * written is one `openssl ts -verify` accepts over the plan id, `seal` lists
 * it with its SHA-256 and the sealed bundle still verifies; every way an
 * authority fails exits 1 with its message, leaves plan.json written and no
 * token; a plan frozen before is anchored later with --anchor-only.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, exampleInputs, Scratch, writeInputs } from '../author/helpers.ts';
import { selfId } from '../../src/json/canonical.ts';
import { startLocalTsa, type LocalTsa, type TsaMode } from '../helpers/local-tsa.ts';

const scratch = new Scratch();
let tsa: LocalTsa;
let inputs: { plan: string; aliases: string; ledger: string };
beforeAll(async () => {
  tsa = await startLocalTsa();
  inputs = await writeInputs(await scratch.dir(), await exampleInputs());
}, 60_000);
afterAll(async () => {
  await tsa.close();
  await scratch.cleanup();
});

async function freeze(...extra: string[]): Promise<{ run: Awaited<ReturnType<typeof cli>>; dir: string }> {
  const dir = join(await scratch.dir(), 'run');
  const run = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', dir, ...extra]);
  return { run, dir };
}

async function planIdOf(dir: string): Promise<string> {
  const plan = JSON.parse(await readFile(join(dir, 'plan.json'), 'utf8')) as Record<string, unknown>;
  expect(plan.plan_id).toBe(selfId(plan, 'plan_id'));
  return plan.plan_id as string;
}

async function anchorsOf(dir: string): Promise<string[]> {
  return readdir(join(dir, 'anchors')).catch(() => []);
}

const host = () => new URL(tsa.url).host;

describe('freeze --anchor with a local time-stamp authority', () => {
  it('writes anchors/<host>.tsr that openssl ts -verify accepts over the plan id; seal lists it with its SHA-256; the bundle verifies', async () => {
    tsa.setMode('ok');
    const before = tsa.requests.length;
    const { run, dir } = await freeze('--anchor', tsa.url);
    expect(run.code, run.stderr).toBe(0);
    const planId = await planIdOf(dir);
    const hex = planId.slice('sha256:'.length);
    expect(await anchorsOf(dir)).toEqual(['127.0.0.1.tsr']);
    const token = join(dir, 'anchors', '127.0.0.1.tsr');
    expect(run.stderr).toMatch(new RegExp(`^asking ${host().replace(/\./g, '\\.')} \\.\\.\\. done: granted at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ, ${token.replace(/[.]/g, '\\.')}\\n` + "not logged: no freeze log \\(--log FILE or the config's freeze_log\\)\\n$", 'm'));
    expect(run.stdout).toContain(`froze plan ${planId}\n`);
    expect(run.stdout).toContain(`  ${token}: time-stamp by ${host()} at `);
    expect(run.stdout).toContain(`  check it: openssl ts -verify -digest ${hex} -in ${token} -CAfile <the authority's root.pem>\n`);
    // One request was sent, and it asked for the plan id's 32 bytes.
    expect(tsa.requests.length).toBe(before + 1);
    expect(tsa.requests.at(-1)!.includes(Buffer.from(hex, 'hex'))).toBe(true);

    const verified = spawnSync('openssl', ['ts', '-verify', '-digest', hex, '-in', token, '-CAfile', tsa.rootPem], { encoding: 'utf8' });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toBe('Verification: OK\n');
    // ... and refuses it for another digest.
    const other = spawnSync('openssl', ['ts', '-verify', '-digest', hex.replace(/^./, (c) => (c === '0' ? '1' : '0')), '-in', token, '-CAfile', tsa.rootPem], { encoding: 'utf8' });
    expect(other.status).not.toBe(0);

    // A bundle whose harness has not run yet (no attempts): the anchor was got at the freeze.
    await writeFile(join(dir, 'attempts.jsonl'), '');
    const sealed = await cli(['seal', dir]);
    expect(sealed.code, sealed.stdout + sealed.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { plan_id: string; files: { path: string; bytes: number; sha256: string }[] };
    const bytes = await readFile(token);
    expect(manifest.plan_id).toBe(planId);
    expect(manifest.files.find((f) => f.path === 'anchors/127.0.0.1.tsr')).toEqual({ path: 'anchors/127.0.0.1.tsr', bytes: bytes.length, sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}` });
    const verify = await cli(['verify', dir]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/1 bundle: 1 verified, 0 invalid, 0 no_verdict/);
  });

  it('asks each --anchor in turn; a second token from the same host gets the name <host>-2.tsr', async () => {
    tsa.setMode('ok');
    const { run, dir } = await freeze('--anchor', tsa.url, '--anchor', tsa.url.replace('/tsa', '/other'));
    expect(run.code, run.stderr).toBe(0);
    expect((await anchorsOf(dir)).sort()).toEqual(['127.0.0.1-2.tsr', '127.0.0.1.tsr']);
    expect(run.stderr.match(/^asking .* \.\.\. done: granted at /gm)).toHaveLength(2);
    const hex = (await planIdOf(dir)).slice('sha256:'.length);
    for (const name of ['127.0.0.1.tsr', '127.0.0.1-2.tsr']) {
      expect(execFileSync('openssl', ['ts', '-verify', '-digest', hex, '-in', join(dir, 'anchors', name), '-CAfile', tsa.rootPem], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })).toBe('Verification: OK\n');
    }
  });

  const failures: [TsaMode, RegExp][] = [
    ['rejection', /gave no token: the authority answered rejection \(badAlg\): ".*"\n/],
    ['http500', /gave no token: HTTP 500 Internal Server Error\n/],
    ['garbage', /gave no token: the answer is not a DER TimeStampResp \(TimeStampResp: truncated: the value at byte 0 needs \d+ more bytes\)\n/],
    ['wrong-imprint', /gave no token: the token stamps another imprint \([0-9a-f]{64}\), not this plan's \([0-9a-f]{64}\)\n/],
    ['redirect', /gave no token: HTTP 302, a redirect to "\/elsewhere": redirects are not followed \(give the authority's final URL\)\n/],
  ];
  for (const [mode, message] of failures) {
    it(`an authority answering ${mode}: exit 1, the message, plan.json written and frozen, no token`, async () => {
      tsa.setMode(mode);
      const { run, dir } = await freeze('--anchor', tsa.url);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain(`asking ${host()} ... failed\n`);
      expect(run.stderr).toMatch(new RegExp(`ledgerboard freeze: ${host().replace(/\./g, '\\.')} ${message.source}`));
      const planId = await planIdOf(dir);
      expect(run.stdout).toContain(`froze plan ${planId}\n`);
      expect(run.stderr).toContain(
        `ledgerboard freeze: 1 of 1 authority gave no token. The plan is frozen and written all the same (${join(dir, 'plan.json')}); freeze --anchor cannot run again on a frozen plan. Ask again with: ledgerboard freeze --anchor-only ${dir} --anchor ${tsa.url}\n`,
      );
      expect(await readdir(dir)).toEqual(['ledger.jsonl', 'plan.json']);
    });
  }

  it('one authority failing and one answering: exit 1, the good token kept, the failure named', async () => {
    tsa.setMode('ok');
    // A port nothing listens on: one a server had, closed again.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const { run, dir } = await freeze('--anchor', tsa.url, '--anchor', `http://127.0.0.1:${port}/closed`);
    expect(run.code).toBe(1);
    expect(await anchorsOf(dir)).toEqual(['127.0.0.1.tsr']);
    expect(run.stderr).toMatch(new RegExp(`^ledgerboard freeze: 127\\.0\\.0\\.1:${port} gave no token: the request failed \\(ECONNREFUSED\\)$`, 'm'));
    expect(run.stderr).toContain('1 of 2 authorities gave no token.');
  });
});

describe('freeze --anchor-only: anchoring a plan frozen before', () => {
  it('after a failed anchor, --anchor-only DIR writes the token; the plan is untouched', async () => {
    tsa.setMode('http500');
    const { run, dir } = await freeze('--anchor', tsa.url);
    expect(run.code).toBe(1);
    const planBytes = await readFile(join(dir, 'plan.json'));
    tsa.setMode('ok');
    const later = await cli(['freeze', '--anchor-only', dir, '--anchor', tsa.url]);
    expect(later.code, later.stderr).toBe(0);
    const planId = await planIdOf(dir);
    expect(later.stdout).toContain(`anchoring plan ${planId} (${dir}/plan.json)\n`);
    expect(await anchorsOf(dir)).toEqual(['127.0.0.1.tsr']);
    expect((await readFile(join(dir, 'plan.json'))).equals(planBytes)).toBe(true);
    const verified = spawnSync('openssl', ['ts', '-verify', '-digest', planId.slice(7), '-in', join(dir, 'anchors', '127.0.0.1.tsr'), '-CAfile', tsa.rootPem], { encoding: 'utf8' });
    expect(verified.stdout).toBe('Verification: OK\n');
  });

  it('refuses a sealed bundle (exit 2, saying a token enters with a new seal), and enters after the manifest is moved away and sealed again', async () => {
    tsa.setMode('ok');
    const { dir } = await freeze();
    await writeFile(join(dir, 'attempts.jsonl'), '');
    expect((await cli(['seal', dir])).code).toBe(0);
    const firstManifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { bundle_id: string; plan_id: string };
    const refused = await cli(['freeze', '--anchor-only', dir, '--anchor', tsa.url]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('exists: the bundle is sealed, and its manifest would not list a new token. A token got later enters with a new seal');
    expect(await anchorsOf(dir)).toEqual([]);
    await rename(join(dir, 'manifest.json'), join(dir, '..', 'old-manifest.json'));
    expect((await cli(['freeze', '--anchor-only', dir, '--anchor', tsa.url])).code).toBe(0);
    const resealed = await cli(['seal', dir]);
    expect(resealed.code, resealed.stdout + resealed.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as { bundle_id: string; plan_id: string; files: { path: string }[] };
    expect(manifest.plan_id).toBe(firstManifest.plan_id);
    expect(manifest.bundle_id).not.toBe(firstManifest.bundle_id);
    expect(manifest.files.map((f) => f.path)).toContain('anchors/127.0.0.1.tsr');
  });

  it('refuses a plan.json whose id does not re-derive, a plan.json that is a link, and a directory without a plan (exit 2, nothing asked)', async () => {
    const empty = await scratch.dir();
    const before = tsa.requests.length;
    const missing = await cli(['freeze', '--anchor-only', empty, '--anchor', tsa.url]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('plan.json: is missing: --anchor-only anchors a plan already frozen');
    const { dir } = await freeze();
    const plan = await readFile(join(dir, 'plan.json'), 'utf8');
    const edited = join(await scratch.dir(), 'edited');
    await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', edited]);
    await rename(join(edited, 'plan.json'), join(edited, 'gone.json'));
    await writeFile(join(edited, 'plan.json'), plan.replace('"attempts": ', '"attempts": 1'));
    const forged = await cli(['freeze', '--anchor-only', edited, '--anchor', tsa.url]);
    expect(forged.code).toBe(2);
    expect(forged.stderr).toMatch(/plan_id sha256:[0-9a-f]{64} does not re-derive \(the plan's bytes give sha256:[0-9a-f]{64}\): a token over it would anchor nothing/);
    // A plan.json that is a link to a frozen plan is not followed.
    const linked = await scratch.dir();
    await symlink(join(dir, 'plan.json'), join(linked, 'plan.json'));
    const link = await cli(['freeze', '--anchor-only', linked, '--anchor', tsa.url]);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain('plan.json: is not a regular file of at most 16777216 bytes that can be read (a link is not followed)');
    expect(tsa.requests.length).toBe(before);
  });
});

describe('freeze --anchor usage', () => {
  it('refuses a URL other than http: or https:, --anchor with --dry-run, and --anchor-only with a plan file, before writing anything (exit 2)', async () => {
    const before = tsa.requests.length;
    const ftp = await freeze('--anchor', 'ftp://127.0.0.1/tsa');
    expect(ftp.run.code).toBe(2);
    expect(ftp.run.stderr).toContain('--anchor takes http: and https: URLs only (got "ftp:")');
    expect(await readdir(join(ftp.dir, '..'))).toEqual([]);
    const notUrl = await freeze('--anchor', 'tsa.example');
    expect(notUrl.run.stderr).toContain('--anchor "tsa.example" is not a URL');
    const dry = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '--dry-run', '--anchor', tsa.url]);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('--dry-run writes nothing, so there is no plan to anchor');
    const both = await cli(['freeze', inputs.plan, '--anchor-only', ftp.dir, '--anchor', tsa.url]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give no plan file (got 1)');
    const none = await cli(['freeze', '--anchor-only', ftp.dir]);
    expect(none.stderr).toContain('--anchor-only needs at least one --anchor <URL>');
    expect(tsa.requests.length).toBe(before);
  });

  it('freeze --anchor into a directory already holding a plan: exit 1, nothing asked, the --anchor-only command given', async () => {
    const { dir } = await freeze();
    const before = tsa.requests.length;
    const again = await cli(['freeze', inputs.plan, '--ledger', inputs.ledger, '--aliases', inputs.aliases, '-o', dir, '--anchor', tsa.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`ledgerboard freeze: ${join(dir, 'plan.json')} already exists: a frozen plan is never overwritten`);
    expect(again.stderr).toContain(`ledgerboard freeze: nothing was anchored; to anchor the plan already there: ledgerboard freeze --anchor-only ${dir} --anchor ${tsa.url}\n`);
    expect(tsa.requests.length).toBe(before);
    expect(await anchorsOf(dir)).toEqual([]);
  });

  it('--help documents --anchor and --anchor-only', async () => {
    const help = await cli(['freeze', '--help']);
    expect(help.stdout).toContain('[--anchor URL]...');
    expect(help.stdout).toContain('ledgerboard freeze --anchor-only DIR --anchor URL...');
  });
});
