/**
 * The demo's time-stamp anchors (FORMAT.md 12; scripts/demo/anchors.ts):
 * the committed tokens in content/anchors check with the repository's own
 * checker and with `openssl ts -verify`, pinned to the committed demo root,
 * at the genTimes chosen (one before its plan's first attempt, one after);
 * and the in-memory authority that made them (scripts/demo/tsa.ts) makes
 * tokens both accept, of the time asked for.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnchorToken, parsePinnedRoots, tokenParts } from '../src/anchor/check.ts';
import { beforeCreated, beforeFirstAttempt } from '../src/anchor/times.ts';
import { digestHex } from '../src/json/canonical.ts';
import { DEMO_ANCHORS, DEMO_AUTHORITY, DEMO_ROOT_FILE, loadDemoAnchors } from '../scripts/demo/anchors.ts';
import { freezePlan } from '../scripts/demo/bundle.ts';
import { DEMO_PLANS } from '../scripts/demo/plans.ts';
import { makeDemoTsa } from '../scripts/demo/tsa.ts';
import { anchorsReadme, makeDemoAnchors } from '../scripts/make-demo-anchors.ts';

const CONTENT = join(dirname(fileURLToPath(import.meta.url)), '..', 'content');
const ROOT_PATH = join(CONTENT, 'timestamp-roots', DEMO_ROOT_FILE);
const ROOT_PEM = readFileSync(ROOT_PATH, 'utf8');
const AUTHORITY = 'CN=Ledgerboard Demo TSA,O=Ledgerboard Demo,C=XX';

const planHex = (dir: string): string => digestHex(freezePlan(DEMO_PLANS.find((p) => p.dir === dir)!).plan_id);
const tokenPath = (dir: string): string => join(CONTENT, 'anchors', dir, `${DEMO_AUTHORITY}.tsr`);

/** `openssl ts -verify -digest <hex> -in <file> -CAfile <root>`: exit status and output. */
function opensslVerify(hex: string, file: string, root: string): { code: number; output: string } {
  try {
    const out = execFileSync('openssl', ['ts', '-verify', '-digest', hex, '-in', file, '-CAfile', root], { stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, output: out.toString('utf8') };
  } catch (error) {
    const e = error as { status: number; stdout: Buffer; stderr: Buffer };
    return { code: e.status, output: `${e.stdout.toString('utf8')}${e.stderr.toString('utf8')}` };
  }
}

/** The earliest started_at of a committed bundle's attempts. */
function firstStart(dir: string): string {
  const lines = readFileSync(join(CONTENT, 'bundles', dir, 'attempts.jsonl'), 'utf8').split('\n').filter((l) => l !== '');
  return lines.map((l) => (JSON.parse(l) as { started_at: string }).started_at).sort()[0]!;
}

describe('the committed demo anchors', () => {
  const roots = parsePinnedRoots(ROOT_PEM);

  it('content/anchors holds one token per DEMO_ANCHORS entry and the README, nothing else', () => {
    const files = readdirSync(join(CONTENT, 'anchors'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(join(CONTENT, 'anchors').length + 1))
      .sort();
    expect(files).toEqual(['2026-11-02-widget-bugs/demo-tsa.tsr', '2026-11-16-widget-bugs-offline-tools/demo-tsa.tsr', 'README.md']);
    expect(DEMO_ANCHORS.map((a) => a.dir)).toEqual(['2026-11-02-widget-bugs', '2026-11-16-widget-bugs-offline-tools']);
  });

  it('the root file holds one self-issued CA certificate, and the README gives its SHA-256 and how to remake the tokens', () => {
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(Buffer.from(root.subjectDer).equals(Buffer.from(root.issuerDer))).toBe(true);
    expect(ROOT_PEM.match(/-----BEGIN /g)).toHaveLength(1);
    expect(ROOT_PEM).not.toMatch(/PRIVATE KEY/);
    const readme = readFileSync(join(CONTENT, 'anchors', 'README.md'), 'utf8');
    expect(readme).toBe(anchorsReadme(createHash('sha256').update(root.der).digest('hex')));
    expect(readme).toContain('npx tsx scripts/make-demo-anchors.ts && npm run demo');
    expect(readme).toContain('discarded');
  });

  it.each(DEMO_ANCHORS.map((a) => [a.dir, a] as const))('%s: the checker finds it pinned to the demo root, at the genTime chosen', (dir, spec) => {
    const bytes = readFileSync(tokenPath(dir));
    expect(checkAnchorToken(bytes, planHex(dir), roots)).toEqual({ ok: true, genTime: spec.genTime, authority: AUTHORITY, pinned: true });
    // Without the pinned root it still checks, shown by its authority and not pinned.
    expect(checkAnchorToken(bytes, planHex(dir), [])).toEqual({ ok: true, genTime: spec.genTime, authority: AUTHORITY, pinned: false });
    // A granted TimeStampResp, as freeze --anchor writes them.
    expect(bytes[0]).toBe(0x30);
    expect(tokenParts(bytes).tstInfo.serialNumber).toEqual(Uint8Array.of(spec.serial).buffer);
  });

  it.each(DEMO_ANCHORS.map((a) => [a.dir] as const))('%s: over its own plan only (another plan\'s id is ANCHOR_MISMATCH)', (dir) => {
    const other = DEMO_PLANS.find((p) => p.dir !== dir)!.dir;
    const check = checkAnchorToken(readFileSync(tokenPath(dir)), planHex(other), roots);
    expect(check.ok).toBe(false);
    expect(!check.ok && check.code).toBe('ANCHOR_MISMATCH');
  });

  it.each(DEMO_ANCHORS.map((a) => [a.dir] as const))('%s: openssl ts -verify says "Verification: OK" with the demo root, and fails for another plan', (dir) => {
    const ok = opensslVerify(planHex(dir), tokenPath(dir), ROOT_PATH);
    expect(ok).toEqual({ code: 0, output: expect.stringContaining('Verification: OK') });
    const other = opensslVerify(planHex(DEMO_PLANS.find((p) => p.dir !== dir)!.dir), tokenPath(dir), ROOT_PATH);
    expect(other.code).not.toBe(0);
    expect(other.output).toContain('Verification: FAILED');
  });

  it('November 16 is anchored a few minutes after its created_at and before its first attempt; November 2 after its first attempt; neither before created_at', () => {
    const times = (dir: string) => {
      const spec = DEMO_ANCHORS.find((a) => a.dir === dir)!;
      const plan = freezePlan(DEMO_PLANS.find((p) => p.dir === dir)!);
      return { gen: spec.genTime, created: plan.created_at, start: firstStart(dir) };
    };
    const nov16 = times('2026-11-16-widget-bugs-offline-tools');
    expect(nov16).toEqual({ gen: '2026-11-16T10:03:52Z', created: '2026-11-16T10:00:00Z', start: '2026-11-16T10:40:14.0Z' });
    expect(beforeFirstAttempt(nov16.gen, [nov16.start])).toBe(true);
    expect(beforeCreated(nov16.gen, nov16.created)).toBe(false);

    const nov2 = times('2026-11-02-widget-bugs');
    expect(nov2).toEqual({ gen: '2026-11-02T16:12:37Z', created: '2026-11-02T14:00:00Z', start: '2026-11-02T14:40:08.5Z' });
    expect(beforeFirstAttempt(nov2.gen, [nov2.start])).toBe(false);
    expect(beforeCreated(nov2.gen, nov2.created)).toBe(false);
    expect(DEMO_ANCHORS.map((a) => a.obtained)).toEqual(['later', 'at_freeze']);
  });
});

describe('make-demo refuses anchors that do not fit the demo (scripts/demo/anchors.ts loadDemoAnchors)', () => {
  const plans = new Map(DEMO_PLANS.map((p) => [p.dir, freezePlan(p)]));
  const roots = join(CONTENT, 'timestamp-roots');
  const copy = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'lb-demo-anchors-'));
    cpSync(join(CONTENT, 'anchors'), dir, { recursive: true });
    return dir;
  };

  it('reads the committed ones: the bundle path and bytes of each', async () => {
    const anchors = await loadDemoAnchors(join(CONTENT, 'anchors'), roots, plans);
    expect(anchors.map((a) => [a.spec.dir, a.path, a.bytes.equals(readFileSync(tokenPath(a.spec.dir)))])).toEqual([
      ['2026-11-02-widget-bugs', 'anchors/demo-tsa.tsr', true],
      ['2026-11-16-widget-bugs-offline-tools', 'anchors/demo-tsa.tsr', true],
    ]);
  });

  it('a token of a bundle not in DEMO_ANCHORS, or two tokens swapped, is an error naming the file and how to remake them', async () => {
    const extra = copy();
    mkdirSync(join(extra, '2026-09-14-widget-bugs'));
    writeFileSync(join(extra, '2026-09-14-widget-bugs', 'demo-tsa.tsr'), readFileSync(tokenPath('2026-11-02-widget-bugs')));
    await expect(loadDemoAnchors(extra, roots, plans)).rejects.toThrow(/2026-09-14-widget-bugs\/demo-tsa\.tsr is not one of the demo's anchors.*make-demo-anchors/);
    const swapped = copy();
    writeFileSync(join(swapped, '2026-11-02-widget-bugs', 'demo-tsa.tsr'), readFileSync(tokenPath('2026-11-16-widget-bugs-offline-tools')));
    await expect(loadDemoAnchors(swapped, roots, plans)).rejects.toThrow(/2026-11-02-widget-bugs\/demo-tsa\.tsr: ANCHOR_MISMATCH: .*make-demo-anchors/);
    for (const dir of [extra, swapped]) rmSync(dir, { recursive: true, force: true });
  });
});

describe('the demo authority (scripts/demo/tsa.ts), made afresh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lb-demo-tsa-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tsa = makeDemoTsa();
  writeFileSync(join(dir, 'root.pem'), tsa.rootPem);
  const hex = planHex('2026-09-14-widget-bugs');

  it('stamps a plan id at the genTime asked for: both checkers accept it, pinned to its own root and not to the committed one', () => {
    const bytes = tsa.stamp(hex, new Date('2026-09-14T12:01:05Z'), 77);
    writeFileSync(join(dir, 'x.tsr'), bytes);
    expect(checkAnchorToken(bytes, hex, parsePinnedRoots(tsa.rootPem))).toEqual({ ok: true, genTime: '2026-09-14T12:01:05Z', authority: AUTHORITY, pinned: true });
    expect(checkAnchorToken(bytes, hex, parsePinnedRoots(ROOT_PEM))).toEqual({ ok: true, genTime: '2026-09-14T12:01:05Z', authority: AUTHORITY, pinned: false });
    expect(opensslVerify(hex, join(dir, 'x.tsr'), join(dir, 'root.pem'))).toEqual({ code: 0, output: expect.stringContaining('Verification: OK') });
    // The committed root did not sign this authority's certificate: openssl refuses the chain.
    expect(opensslVerify(hex, join(dir, 'x.tsr'), ROOT_PATH).code).not.toBe(0);
    expect(execFileSync('openssl', ['ts', '-reply', '-in', join(dir, 'x.tsr'), '-text'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8')).toMatch(
      /Status: Granted\.[\s\S]*Serial number: 0x4D[\s\S]*Time stamp: Sep 14 12:01:05 2026 GMT/,
    );
  });

  it('its signature covers the TSTInfo: a changed genTime byte is ANCHOR_UNREADABLE, for openssl too', () => {
    const bytes = tsa.stamp(hex, new Date('2026-09-14T12:01:05Z'), 78);
    const at = bytes.indexOf(Buffer.from('20260914120105Z', 'latin1'));
    expect(at).toBeGreaterThan(0);
    const altered = Buffer.from(bytes);
    altered[at + 11] = 0x30 + 4; // 12:01:05 -> 12:01:04
    const check = checkAnchorToken(altered, hex, parsePinnedRoots(tsa.rootPem));
    expect(check.ok).toBe(false);
    expect(!check.ok && check.code).toBe('ANCHOR_UNREADABLE');
    writeFileSync(join(dir, 'altered.tsr'), altered);
    expect(opensslVerify(hex, join(dir, 'altered.tsr'), join(dir, 'root.pem')).code).not.toBe(0);
  });

  it('make-demo-anchors writes a token per DEMO_ANCHORS entry, the README and the root, nothing else; its tokens chain to its new root only', async () => {
    const out = join(dir, 'content');
    const printed = await makeDemoAnchors(out);
    const files = readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(out.length + 1))
      .sort();
    expect(files).toEqual(['anchors/2026-11-02-widget-bugs/demo-tsa.tsr', 'anchors/2026-11-16-widget-bugs-offline-tools/demo-tsa.tsr', 'anchors/README.md', `timestamp-roots/${DEMO_ROOT_FILE}`]);
    const rootPem = readFileSync(join(out, 'timestamp-roots', DEMO_ROOT_FILE), 'utf8');
    expect(rootPem).not.toBe(ROOT_PEM);
    expect(rootPem).not.toMatch(/PRIVATE KEY/);
    const rootHex = createHash('sha256').update(parsePinnedRoots(rootPem)[0]!.der).digest('hex');
    expect(printed.at(-1)).toBe(`timestamp-roots/${DEMO_ROOT_FILE}: root sha256:${rootHex}`);
    expect(readFileSync(join(out, 'anchors', 'README.md'), 'utf8')).toContain(rootHex);
    for (const spec of DEMO_ANCHORS) {
      const bytes = readFileSync(join(out, 'anchors', spec.dir, `${spec.authority}.tsr`));
      expect(checkAnchorToken(bytes, planHex(spec.dir), parsePinnedRoots(rootPem))).toEqual({ ok: true, genTime: spec.genTime, authority: AUTHORITY, pinned: true });
      expect(checkAnchorToken(bytes, planHex(spec.dir), parsePinnedRoots(ROOT_PEM))).toMatchObject({ ok: true, pinned: false });
    }
  });

  it('refuses what it must not stamp: a plan id that is not 64 hex digits, a fraction of a second', () => {
    expect(() => tsa.stamp(`sha256:${hex}`, new Date('2026-09-14T12:01:05Z'), 1)).toThrow(/64 hex digits/);
    expect(() => tsa.stamp(hex, new Date('2026-09-14T12:01:05.5Z'), 1)).toThrow(/whole seconds/);
  });
});
