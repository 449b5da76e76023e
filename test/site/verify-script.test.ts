/**
 * verify.mjs (lib/site-verifier/verify.mjs, bundled from src/rederive), the re-derivation script of docs/site.md,
 * run as a stranger would run it (a child `node` process) against a small
 * published site on disk and over HTTP, clean and tampered; its RFC 8785
 * function against the JCS vectors; and the canonicalization inside
 * public/verify-browser.js (loaded with node:vm) against the same vectors.
 */
import { execFile } from 'node:child_process';
import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve, sep } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, digestHex } from '../../src/json/canonical.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { REPO_ROOT } from '../helpers/hang-guard.ts';
import { buildSiteFixture, ODD_PATH, type SiteFixture } from '../helpers/site-fixture.ts';
import { canonicalize, directorySource, parseJson } from '../../src/rederive/site-checks.mjs';

const SCRIPT = join(REPO_ROOT, 'lib', 'site-verifier', 'verify.mjs');
const BROWSER_SCRIPT = join(REPO_ROOT, 'public', 'verify-browser.js');
const JCS = new URL('../fixtures/jcs-rfc8785/', import.meta.url);

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node lib/site-verifier/verify.mjs ...args` in a child process (asynchronously: a test's HTTP server must keep serving). */
function runVerify(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = (error as (Error & { code?: unknown }) | null)?.code;
      done({ status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
    });
  });
}

let site: SiteFixture;

/** A fresh copy of the fixture site, to tamper with. */
async function siteCopy(): Promise<string> {
  const dir = join(await makeTempDir('ledgerboard-site-copy-'), 'site');
  await cp(site.dir, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  site = await buildSiteFixture();
});
afterAll(removeTempDirs);

describe('the fixture site', () => {
  it('two counted bundles on two boards, one rejected bundle under its content digest', () => {
    expect(site.bundles.map((b) => [b.status, b.counted])).toEqual(
      expect.arrayContaining([
        ['verified', true],
        ['verified', true],
        ['invalid', false],
      ]),
    );
    expect(site.report.boards).toHaveLength(2);
    expect(site.report.cohorts).toHaveLength(4);
    expect(site.bundles.some((b) => b.files.includes(ODD_PATH))).toBe(true);
  });
});

describe('node verify.mjs <dir>', () => {
  it('a faithful site: exit 0, every group ok, 0 mismatches, in report order', async () => {
    const run = await runVerify(site.dir);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^\d+ checks, 0 mismatches$/);
    expect(run.stdout).not.toContain('MISMATCH');
    expect(lines[0]).toBe('ok  report.json /report.json is RFC 8785 plus a newline');
    expect(lines[1]).toBe(`ok  report_id ${site.report.report_id}`);
    for (const b of site.report.boards) expect(lines).toContain(`ok  board_id ${b.board_id}`);
    for (const c of site.report.cohorts) {
      expect(lines).toContain(`ok  cohort_id ${c.cohort_id}`);
      expect(lines).toContain(`ok  cohort json /cohorts/${digestHex(c.cohort_id)}.json is the RFC 8785 form of the report entry`);
    }
    for (const b of site.report.bundles) expect(lines).toContain(`ok  content_digest ${b.content_digest}`);
    for (const b of site.bundles.filter((x) => x.counted)) {
      const entry = site.report.bundles.find((x) => x.bundle_id === b.bundle_id)!;
      const listed = b.files.length - 1; // manifest.json lists every file but itself
      expect(lines).toContain(`ok  bundle_id ${b.bundle_id}`);
      expect(lines).toContain(`ok  files ${b.bundle_id} ${listed} of ${listed} listed files match`);
      expect(lines).toContain(`ok  plan_id ${entry.plan_id}`);
    }
    // The rejected bundle: information only, its one edited file disagrees.
    const rejected = site.bundles.find((b) => !b.counted)!;
    const listed = rejected.files.length - 1;
    expect(lines).toContain(`info  bundle /bundles/${rejected.dirHex}/ (invalid, not counted): ${listed - 1} of ${listed} listed files match`);
    // Same output twice (deterministic).
    expect((await runVerify(site.dir)).stdout).toBe(run.stdout);
  });

  it('--json gives the same verdict as data', async () => {
    const run = await runVerify('--json', site.dir);
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout) as { checks: number; mismatches: number; results: { status: string; check: string; detail: string }[] };
    expect(out.mismatches).toBe(0);
    expect(out.checks).toBeGreaterThan(20);
    // The rejected bundle, re-hashed for information; no /changes.json in this hand-made site (a site built before it:
    // information, not a mismatch; the built demo's is checked in report-changes.test.ts); no key signed the report.
    // The re-derivation: no /history.json, leaderboard.csv, changes.json, feed, badges or pages in this hand-made site: said, nothing to compare.
    expect(out.results.filter((r) => r.status === 'info').map((r) => r.check)).toEqual(['bundle', 'changes', 'signature', 'history', 'csv', 'changes', 'feed', 'badge', 'page']);
    expect(out.results.find((r) => r.check === 'badge')!.detail).toBe('no badge published (a site built before badges existed): nothing to compare');
    expect(out.results.find((r) => r.check === 'report' && r.status === 'ok')!.detail).toMatch(/^re-derived from the evidence, byte for byte: 3 bundles verified again \(2 counted\)/);
    expect(out.results.find((r) => r.check === 'changes')!.detail).toBe('not published (a site built before it existed)');
    expect(out.results.find((r) => r.check === 'signature')!.detail).toMatch(/^not signed/);
  });

  it('one byte changed in a published blob: exit 1, naming the file', async () => {
    const dir = await siteCopy();
    const bundle = site.bundles.find((b) => b.files.includes(ODD_PATH))!;
    const file = join(dir, 'blobs', digestHex(bundle.digests.get(ODD_PATH)!));
    const bytes = await readFile(file);
    bytes[0] = bytes[0]! ^ 0x01;
    await writeFile(file, bytes);
    const run = await runVerify(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^MISMATCH files ${bundle.bundle_id} \\d+ of \\d+ listed files match$`, 'm'));
    expect(run.stdout).toContain(`    ${JSON.stringify(ODD_PATH)}: sha256:`);
    expect(run.stdout).toMatch(/^\d+ checks, 1 mismatches$/m);
  });

  it('an entry dropped from a rejected bundle\'s files.json: exit 1 on its content_digest', async () => {
    const dir = await siteCopy();
    const rejected = site.bundles.find((b) => !b.counted)!;
    const entry = site.report.bundles.find((b) => !b.counted)!;
    const file = join(dir, 'bundles', rejected.dirHex, 'files.json');
    const listing = JSON.parse(await readFile(file, 'utf8')) as { entries: unknown[] };
    listing.entries.pop();
    await writeFile(file, `${canonicalJson(listing)}\n`);
    const run = await runVerify(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^MISMATCH content_digest ${entry.content_digest} derived sha256:[0-9a-f]{64}$`, 'm'));
    // The re-derivation cannot read that bundle back either, and says why.
    expect(run.stdout).toMatch(new RegExp(`^MISMATCH report /report\\.json bundle ${entry.bundle_id} \\(entry\\): published in the report, re-derived none`, 'm'));
    expect(run.stdout).toMatch(new RegExp(`^MISMATCH bundle ${entry.bundle_id} content_digest: /bundles/${rejected.dirHex}/files\\.json re-derives sha256:[0-9a-f]{64}, .*: it cannot be verified again$`, 'm'));
    expect(run.stdout).toMatch(/^\d+ checks, 3 mismatches$/m);
  });

  it('a number edited in report.json: exit 1 on report_id', async () => {
    const dir = await siteCopy();
    const text = await readFile(join(dir, 'report.json'), 'utf8');
    const edited = text.replace(/"rank":1\b/, '"rank":7');
    expect(edited).not.toBe(text);
    await writeFile(join(dir, 'report.json'), edited);
    const run = await runVerify(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^MISMATCH report_id ${site.report.report_id} derived sha256:[0-9a-f]{64}$`, 'm'));
    expect(run.stdout).toContain('ok  report.json /report.json is RFC 8785 plus a newline');
  });

  it('report.json with a member twice: exit 1, not strict JSON', async () => {
    const dir = await siteCopy();
    const text = await readFile(join(dir, 'report.json'), 'utf8');
    await writeFile(join(dir, 'report.json'), text.replace('{', '{"boards":[],'));
    const run = await runVerify(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('MISMATCH report.json /report.json not strict JSON: duplicate member name "boards"');
  });

  it('an edited cohort json: exit 1 naming it', async () => {
    const dir = await siteCopy();
    const cohort = site.report.cohorts[0]!;
    const url = `/cohorts/${digestHex(cohort.cohort_id)}.json`;
    await writeFile(join(dir, url), canonicalJson({ ...cohort, rank: cohort.rank + 1 }));
    const run = await runVerify(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`MISMATCH cohort json ${url} is the RFC 8785 form of the report entry`);
    // And it is not the cohort the evidence re-derives.
    expect(run.stdout).toContain(`MISMATCH cohort json ${url} is not the re-derived cohort: rank: published ${cohort.rank + 1}, re-derived ${cohort.rank}`);
    expect(run.stdout).toMatch(/^\d+ checks, 2 mismatches$/m);
  });

  it('plan.json replaced: exit 1 on plan_id and on its listed size', async () => {
    const dir = await siteCopy();
    const bundle = site.bundles.find((b) => b.counted)!;
    await writeFile(join(dir, 'blobs', digestHex(bundle.digests.get('plan.json')!)), '{"plan_id":"x"}');
    const run = await runVerify(dir);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`^MISMATCH plan_id sha256:[0-9a-f]{64} derived sha256:[0-9a-f]{64}, plan.json states x$`, 'm'));
    expect(run.stdout).toContain(`    "plan.json": 15 bytes, listed`);
  });

  it('usage errors and a site that is not there: exit 2', async () => {
    expect((await runVerify(join(site.dir, 'no-such-dir'))).status).toBe(2);
    expect((await runVerify()).status).toBe(2);
    expect((await runVerify('a', 'b')).status).toBe(2);
    const empty = await makeTempDir('ledgerboard-empty-site-');
    const run = await runVerify(empty);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('has no /report.json');
    const help = await runVerify('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: node verify.mjs');
  });
});

/** A static server for a site directory: decodes each URL segment, refuses escapes, 404 otherwise. */
function serve(root: string): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      try {
        const path = new URL(request.url ?? '/', 'http://localhost').pathname;
        const segments = path.split('/').slice(1).map(decodeURIComponent);
        const file = resolve(root, ...segments);
        if (!file.startsWith(root + sep) || !(await stat(file)).isFile()) throw new Error('not a file');
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(await readFile(file));
      } catch {
        response.writeHead(404).end('not found');
      }
    })();
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

describe('node verify.mjs <url>', () => {
  it('the same site over HTTP: exit 0, the same lines as from disk', async () => {
    const server = await serve(site.dir);
    try {
      const { port } = server.address() as AddressInfo;
      const run = await runVerify(`http://127.0.0.1:${port}/`);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toBe((await runVerify(site.dir)).stdout);
      expect(run.stdout).toMatch(/^\d+ checks, 0 mismatches$/m);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('a server that is not there: exit 2', async () => {
    const server = await serve(site.dir);
    const { port } = server.address() as AddressInfo;
    await new Promise((done) => server.close(done));
    const run = await runVerify(`http://127.0.0.1:${port}/`);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('cannot read');
  });
});

const vectorNames = readdirSync(new URL('input/', JCS)).filter((n) => n.endsWith('.json')).sort();
const vector = (name: string) => ({
  input: readFileSync(new URL(`input/${name}`, JCS), 'utf8'),
  output: readFileSync(new URL(`output/${name}`, JCS), 'utf8'),
});

/** The IEEE-754 double of a 1-16 hex digit bit pattern. */
function doubleFromHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}
const numberSamples = readFileSync(new URL('es6-number-samples.csv', JCS), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => line.split(',') as [string, string]);

describe('RFC 8785 inside verify.mjs', () => {
  it('has the six vectors', () => expect(vectorNames).toHaveLength(6));
  for (const name of vectorNames) {
    it(name, () => {
      const { input, output } = vector(name);
      expect(canonicalize(parseJson(input))).toBe(output);
      expect(canonicalize(parseJson(input))).toBe(canonicalJson(JSON.parse(input)));
    });
  }
  it('ES6 number samples', () => {
    for (const [hex, expected] of numberSamples) expect(canonicalize(doubleFromHex(hex)), hex).toBe(expected);
  });
  it('refuses what has no RFC 8785 form, and duplicate member names', () => {
    expect(() => canonicalize(Number.NaN)).toThrow(/finite/);
    expect(() => canonicalize(Infinity)).toThrow(/finite/);
    expect(() => canonicalize('\ud800')).toThrow(/surrogate/);
    expect(() => canonicalize({ ['\udc00']: 1 })).toThrow(/surrogate/);
    expect(() => canonicalize(undefined)).toThrow();
    expect(canonicalize('\ud83d\ude02')).toBe('"😂"');
    expect(canonicalize(-0)).toBe('0');
    expect(() => parseJson('{"a":1,"a":2}')).toThrow(/duplicate/);
    expect(() => parseJson('{"a":1,"\\u0061":2}')).toThrow(/duplicate/);
    expect(() => parseJson('{"a":{"b":1},"c":{"b":[{"b":"\\"b"}],"d":"a"}}')).not.toThrow();
    expect(() => parseJson('{"x":[{"a":1},{"a":2}],"a":3}')).not.toThrow();
    expect(() => parseJson('{"x":{"a":1,"y":"}","a":2}}')).toThrow(/duplicate/);
    expect(() => parseJson('{"a":1')).toThrow(SyntaxError);
  });
  it('reading a directory: percent-decoded segments, nothing outside it', async () => {
    const get = directorySource(site.dir);
    const bundle = site.bundles.find((b) => b.files.includes(ODD_PATH))!;
    const url = `/blobs/${digestHex(bundle.digests.get(ODD_PATH)!)}`;
    expect(Buffer.from((await get(url))!).toString()).toBe('a log line\n');
    expect(await get('/no-such-file.json')).toBeNull();
    await expect(get('/cohorts/%2e%2e/report.json')).rejects.toThrow(/unsafe path/);
    await expect(get('/bundles/..%2Freport.json')).rejects.toThrow(/unsafe path/);
    await expect(get('/%E0%A4%A.json')).rejects.toThrow(/percent-encoding/);
  });
  it('own __proto__ members are data, sorted like any other', () => {
    expect(canonicalize(parseJson('{"z":1,"__proto__":{"b":2}}'))).toBe('{"__proto__":{"b":2},"z":1}');
  });
});

describe('RFC 8785 inside verify-browser.js (loaded with node:vm, a fake document)', () => {
  const listeners: string[] = [];
  const context: Record<string, unknown> = { document: { addEventListener: (type: string) => listeners.push(type) } };
  runInNewContext(readFileSync(BROWSER_SCRIPT, 'utf8'), context, { filename: BROWSER_SCRIPT });
  const canonicalizeInBrowser = context.ledgerboardCanonicalize as (value: unknown) => string;
  const parseInBrowser = context.ledgerboardParseJson as (text: string) => unknown;

  it('registers one click listener (and one input listener, for a pinned key id) and exposes its canonicalization', () => {
    expect(listeners).toEqual(['click', 'input']);
    expect(typeof canonicalizeInBrowser).toBe('function');
  });
  for (const name of vectorNames) {
    it(name, () => {
      const { input, output } = vector(name);
      expect(canonicalizeInBrowser(parseInBrowser(input))).toBe(output);
    });
  }
  it('ES6 number samples, non-finite numbers, lone surrogates, duplicate members', () => {
    for (const [hex, expected] of numberSamples) expect(canonicalizeInBrowser(doubleFromHex(hex)), hex).toBe(expected);
    expect(() => canonicalizeInBrowser(Number.NaN)).toThrow(/finite/);
    expect(() => canonicalizeInBrowser('\udfff')).toThrow(/surrogate/);
    expect(() => parseInBrowser('{"a":1,"a":2}')).toThrow(/duplicate/);
  });
  it('agrees with verify.mjs on the published report', () => {
    const report = readFileSync(join(site.dir, 'report.json'), 'utf8');
    expect(`${canonicalizeInBrowser(parseInBrowser(report))}\n`).toBe(report);
  });
});
