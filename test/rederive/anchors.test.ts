/**
 * A stranger's check of the anchors of a published site (issue 30, FORMAT.md
 * 12): the pinned roots at /timestamp-roots/<hex>.pem are checked against
 * their names (src/rederive/timestamp-roots.ts); each token is checked again
 * and the report's anchor.gen_time against the earliest genTime, and each
 * anchored bundle gets the `openssl ts -verify` command, which openssl
 * accepts with the test root (src/rederive/anchor-lines.ts); a bundle's
 * tokens are fetched from /blobs/ with its structured files
 * (site-bundles.ts).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnchorToken, parsePinnedRoots, rootDigest } from '../../src/anchor/check.ts';
import { certificatePem } from '../../src/anchor/pem.ts';
import { canonicalJson, digestBytes, digestCanonical } from '../../src/json/canonical.ts';
import { LIMIT_DEFAULTS } from '../../src/evidence/limits.ts';
import { DEFAULT_IMPORT_LIMITS } from '../../src/import/limits.ts';
import { anchorLines, isBareToken, opensslCommand, type SiteToken } from '../../src/rederive/anchor-lines.ts';
import { readSiteBundle } from '../../src/rederive/site-bundles.ts';
import { readSiteRoots, timestampRootDigests } from '../../src/rederive/timestamp-roots.ts';
import { siteLocation } from '../../src/rederive/verify-main.ts';
import { timestampRootFiles } from '../../src/site/build/timestamp-roots.ts';
import type { Report } from '../../src/report/schema.ts';
import { makeTsa } from '../helpers/tsa-tokens.ts';

const tsa = makeTsa();
const stranger = makeTsa({ rootSubject: '/C=XX/O=Elsewhere/CN=Another Root', signerKey: 'ec' });
afterAll(() => [tsa, stranger].forEach((t) => t.remove()));
const PLAN = digestBytes('an anchored plan').slice(7);
const OTHER_PLAN = digestBytes('another plan').slice(7);
const root = parsePinnedRoots(tsa.rootPem)[0]!;
const ROOT_DIGEST = rootDigest(root);
const strangerRoot = parsePinnedRoots(stranger.rootPem)[0]!;

/** A site of files by URL path; records what was asked for. */
function siteOf(files: Record<string, Uint8Array | string>) {
  const asked: string[] = [];
  const get = async (path: string): Promise<Uint8Array | null> => {
    asked.push(path);
    const file = files[path];
    return file === undefined ? null : typeof file === 'string' ? new TextEncoder().encode(file) : file;
  };
  return { get, asked };
}

function tokenOf(bytes: Uint8Array, path = 'anchors/tsa.example.tsr'): SiteToken {
  return { path, sha256: digestBytes(bytes), bytes };
}

/** A published bundle entry as the report gives it, anchored (or not) as said. */
function entryOf(anchor: Report['bundles'][number]['anchor'], findings: { code: string; file: string }[] = []): Report['bundles'][number] {
  return { bundle_id: `sha256:${'b'.repeat(64)}`, plan_id: `sha256:${PLAN}`, content_digest: `sha256:${'c'.repeat(64)}`, status: 'verified', counted: true, findings, plan: null, anchor } as unknown as Report['bundles'][number];
}

describe('the pinned roots a site publishes', () => {
  it('one file per certificate, named by the SHA-256 of its DER, one PEM block made from the DER (the same bytes however the PEM was written)', () => {
    const files = timestampRootFiles([root, strangerRoot, root]);
    expect(files.map((f) => f.path)).toEqual([`/timestamp-roots/${ROOT_DIGEST.slice(7)}.pem`, `/timestamp-roots/${rootDigest(strangerRoot).slice(7)}.pem`].sort());
    const ours = files.find((f) => f.path.includes(ROOT_DIGEST.slice(7)))!;
    expect(ours.text).toBe(certificatePem(root.der));
    expect(ours.text).toMatch(/^-----BEGIN CERTIFICATE-----\n(?:[A-Za-z0-9+/=]{64}\n)*[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/);
    expect(rootDigest(parsePinnedRoots(ours.text)[0]!)).toBe(ROOT_DIGEST);
    // openssl reads it as the same certificate.
    const file = join(tsa.dir, 'published-root.pem');
    writeFileSync(file, ours.text);
    expect(tsa.openssl(['x509', '-in', file, '-noout', '-fingerprint', '-sha256']).replace(/[:\s]/g, '').toLowerCase()).toContain(ROOT_DIGEST.slice(7));
  });

  it('read back: a root whose certificate is its name is used; a swapped one is a MISMATCH naming the file and is not used', async () => {
    const path = `/timestamp-roots/${ROOT_DIGEST.slice(7)}.pem`;
    const good = await readSiteRoots(siteOf({ [path]: certificatePem(root.der) }).get, { timestamp_roots: [ROOT_DIGEST] });
    expect(good.roots.map((r) => rootDigest(r))).toEqual([ROOT_DIGEST]);
    expect(good.lines).toEqual([{ status: 'ok', check: 'timestamp root', subject: path, detail: `the pinned time-stamp root "CN=Test Root CA,O=Ledgerboard Test,C=XX": its certificate's SHA-256 is its name, ${ROOT_DIGEST}` }]);

    const swapped = await readSiteRoots(siteOf({ [path]: stranger.rootPem }).get, { timestamp_roots: [ROOT_DIGEST] });
    expect(swapped.roots).toEqual([]);
    expect(swapped.lines).toEqual([{ status: 'MISMATCH', check: 'timestamp root', subject: path, detail: `holds the certificate ${rootDigest(strangerRoot)}, not the one certificate ${ROOT_DIGEST} its name and the report's config give: a swapped root; not used` }]);
  });

  it('not published, not PEM, or a config whose member is not digests: MISMATCH; no member: nothing to read', async () => {
    const path = `/timestamp-roots/${ROOT_DIGEST.slice(7)}.pem`;
    expect((await readSiteRoots(siteOf({}).get, { timestamp_roots: [ROOT_DIGEST] })).lines).toMatchObject([{ status: 'MISMATCH', subject: path, detail: expect.stringMatching(/^not published, but the report's config pins/) }]);
    expect((await readSiteRoots(siteOf({ [path]: 'no certificate here' }).get, { timestamp_roots: [ROOT_DIGEST] })).lines).toMatchObject([{ status: 'MISMATCH', subject: path, detail: 'not a PEM certificate (the PEM text holds no certificate)' }]);
    const hostile = siteOf({});
    expect((await readSiteRoots(hostile.get, { timestamp_roots: ['../../etc/passwd'] })).lines).toMatchObject([{ status: 'MISMATCH', subject: '/report.json' }]);
    expect(hostile.asked).toEqual([]);
    expect(timestampRootDigests({})).toEqual([]);
    expect(timestampRootDigests({ timestamp_roots: 'x' })).toBeNull();
  });
});

describe('each anchored bundle checked again', () => {
  const response = tsa.reply(tsa.query(PLAN, { name: 'site' }), 'site').bytes;
  const check = checkAnchorToken(response, PLAN, [root]);
  if (!check.ok) throw new Error(`the test token does not check: ${check.detail}`);
  const anchor = { gen_time: check.genTime, authority: check.authority, pinned: true, before_first_attempt: true };

  it('a token that checks and the report\'s gen_time: ok lines, and the openssl command for a root of your own', () => {
    const token = tokenOf(response);
    const lines = anchorLines(entryOf(anchor), [token], [root], (p) => `https://example.org/board${p}`);
    const subject = `sha256:${'b'.repeat(64)}`;
    expect(lines).toEqual([
      { status: 'ok', check: 'anchor', subject, detail: `"anchors/tsa.example.tsr": the imprint is SHA-256 of the plan id's 32 bytes and the signature checks: stamped ${check.genTime} by "CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\\\, Time,C=XX" (pinned)` },
      { status: 'ok', check: 'anchor', subject, detail: `anchor.gen_time ${check.genTime} is the earliest genTime of the 1 token(s) that check` },
      { status: 'info', check: 'anchor', subject, detail: `check "anchors/tsa.example.tsr" with a root you trust: curl -fsSo token.tsr https://example.org/board/blobs/${token.sha256.slice(7)} && openssl ts -verify -digest ${PLAN} -in token.tsr -CAfile <your-root.pem>` },
    ]);
  });

  it('the printed command, run with the test root, is accepted by openssl (a TimeStampResp and a bare token: -token_in)', () => {
    const bare = tsa.token(tsa.query(PLAN, { name: 'bare' }), 'bare').bytes;
    expect([isBareToken(response), isBareToken(bare)]).toEqual([false, true]);
    for (const [name, bytes] of [['response.tsr', response], ['bare.tsr', bare]] as const) {
      const file = join(tsa.dir, name);
      writeFileSync(file, bytes);
      const command = opensslCommand(PLAN, file, isBareToken(bytes)).replace('<your-root.pem>', tsa.paths.root);
      expect(execFileSync('sh', ['-c', command], { cwd: tsa.dir }).toString()).toContain('Verification: OK');
      // The stranger's root is not the authority's: openssl refuses.
      expect(() => execFileSync('sh', ['-c', opensslCommand(PLAN, file, isBareToken(bytes)).replace('<your-root.pem>', join(stranger.dir, 'root.pem'))], { cwd: tsa.dir, stdio: 'pipe' })).toThrow();
    }
  });

  it('a report whose anchor.gen_time is not the tokens\' earliest: MISMATCH', () => {
    const lines = anchorLines(entryOf({ ...anchor, gen_time: '2020-01-01T00:00:00Z' }), [tokenOf(response)], [root]);
    expect(lines.filter((l) => l.status === 'MISMATCH')).toEqual([
      { status: 'MISMATCH', check: 'anchor', subject: `sha256:${'b'.repeat(64)}`, detail: `anchor.gen_time: the report gives 2020-01-01T00:00:00Z, the earliest genTime of the tokens that check is ${check.genTime}` },
    ]);
  });

  it('a tampered token the report calls fine: MISMATCH naming the token; the same token with the report\'s finding for it: said, not a mismatch', () => {
    const tampered = Uint8Array.from(response);
    tampered[tampered.length - 5]! ^= 0xff;
    const token = tokenOf(tampered);
    const lines = anchorLines(entryOf(anchor), [token], [root]);
    expect(lines).toContainEqual({ status: 'MISMATCH', check: 'anchor', subject: `sha256:${'b'.repeat(64)}`, detail: expect.stringMatching(/^"anchors\/tsa\.example\.tsr": ANCHOR_UNREADABLE \(.*\), which the report does not say$/) });
    expect(lines).toContainEqual({ status: 'MISMATCH', check: 'anchor', subject: `sha256:${'b'.repeat(64)}`, detail: `the report says anchored at ${check.genTime}, but none of the bundle's 1 token(s) checks` });
    const said = anchorLines(entryOf(null, [{ code: 'ANCHOR_UNREADABLE', file: token.path }]), [token], [root]);
    expect(said).toEqual([{ status: 'info', check: 'anchor', subject: `sha256:${'b'.repeat(64)}`, detail: expect.stringMatching(/^"anchors\/tsa\.example\.tsr": ANCHOR_UNREADABLE \(.*\), as the report says$/) }]);
  });

  it('a token over another plan: ANCHOR_MISMATCH unless the report says so; a report anchored without a token, or unanchored with one that checks: MISMATCH', () => {
    const foreign = tokenOf(tsa.reply(tsa.query(OTHER_PLAN, { name: 'foreign' }), 'foreign').bytes, 'anchors/other.tsr');
    expect(anchorLines(entryOf(null), [foreign], [root])).toEqual([{ status: 'MISMATCH', check: 'anchor', subject: `sha256:${'b'.repeat(64)}`, detail: expect.stringMatching(/^"anchors\/other\.tsr": ANCHOR_MISMATCH \(the imprint is sha256:[0-9a-f]{64}, not this plan's id\), which the report does not say$/) }]);
    expect(anchorLines(entryOf(anchor), [], [root])).toMatchObject([{ status: 'MISMATCH', detail: `the report says anchored at ${check.genTime}, but the bundle lists no anchors/*.tsr token` }]);
    expect(anchorLines(entryOf(null), [tokenOf(response)], [root]).at(-1)).toMatchObject({ status: 'MISMATCH', detail: expect.stringMatching(/^the report gives no anchor, but a token checks/) });
    expect(anchorLines(entryOf(null), [], [])).toEqual([]);
  });
});

describe('reading a bundle back', () => {
  it('its anchors/*.tsr tokens are fetched from /blobs/ (re-hashed) with the structured files, and handed back', async () => {
    const token = tsa.reply(tsa.query(PLAN, { name: 'fetched' }), 'fetched').bytes;
    const entries = [
      { path: 'anchors/a.tsr', kind: 'file', bytes: token.length, sha256: digestBytes(token) },
      { path: 'anchors/notes.txt', kind: 'file', bytes: 3, sha256: digestBytes('abc') },
    ];
    const content_digest = digestCanonical(entries.map((e) => [e.path, e.kind, e.sha256]));
    const site = siteOf({ [`/bundles/${content_digest.slice(7)}/files.json`]: `${canonicalJson({ content_digest, entries })}\n`, [`/blobs/${digestBytes(token).slice(7)}`]: token });
    const entry = { bundle_id: null, plan_id: null, content_digest, status: 'invalid', counted: false, findings: [], plan: null, cost: null } as unknown as Report['bundles'][number];
    const prepared: number[] = [];
    const read = await readSiteBundle(site.get, entry, { limits: LIMIT_DEFAULTS, importLimits: DEFAULT_IMPORT_LIMITS, prepareAnchors: async (tokens) => void prepared.push(tokens.length) });
    expect(read.anchors.map((a) => [a.path, a.sha256, Buffer.from(a.bytes).equals(token)])).toEqual([['anchors/a.tsr', digestBytes(token), true]]);
    expect(site.asked).toContain(`/blobs/${digestBytes(token).slice(7)}`);
    expect(site.asked).not.toContain(`/blobs/${digestBytes('abc').slice(7)}`);
    expect(prepared).toEqual([1]);
  });

  it('where verify.mjs says a token is: its absolute URL, or its absolute path in a copy on disk', () => {
    expect(siteLocation('https://example.org/board?x=1')('/blobs/ab')).toBe('https://example.org/board/blobs/ab');
    expect(siteLocation('/srv/site/')('/blobs/ab')).toBe('/srv/site/blobs/ab');
  });
});
