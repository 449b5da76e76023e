/**
 * The verifier's anchors step (FORMAT.md 12; src/verify/check-anchors.ts):
 * tokens made at test time by a throw-away openssl TSA
 * (test/helpers/tsa-tokens.ts), at chosen genTimes (anchored-bundle.ts),
 * in bundles sealed by the test helpers. Asserts codes, files, statuses and
 * the bundle's `anchor`, never the wording (but for the times the
 * ANCHOR_AFTER_ATTEMPT message must name).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import * as anchorCheck from '../../src/anchor/check.ts';
import { MAX_TOKEN_BYTES, parsePinnedRoots, tokenParts } from '../../src/anchor/check.ts';
import { LIMIT_DEFAULTS } from '../../src/evidence/limits.ts';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { isAnchorTokenPath } from '../../src/evidence/paths.ts';
import { verifySnapshot } from '../../src/pipeline/verify-snapshot.ts';
import { verifyBundle, type BundleVerification } from '../../src/verify/verify-bundle.ts';
import { bytesOf, snapshotOf, writeModel, type BundleModel, type SealOptions } from '../helpers/bundle-builder.ts';
import { FUTURE_CREATED_AT, FUTURE_FIRST_START, futureBundle, planHexOf, tokenAt, withTokens, twoAuthorities } from '../helpers/anchored-bundle.ts';

const { tsa, other, roots } = twoAuthorities();
const AUTHORITY = 'CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\, Time,C=XX';

/** Between the freeze (2030-09-14T12:00:00Z) and the first attempt (2030-09-15T08:00:02Z). */
const BEFORE_RUN = '2030-09-14T13:00:00Z';

function verify(model: BundleModel, pinned = roots, options: SealOptions = {}): BundleVerification {
  return verifyBundle(snapshotOf(model, options), LIMIT_DEFAULTS, { timestampRoots: pinned });
}

function codes(v: BundleVerification): [string, string][] {
  return v.findings.map((f) => [f.code, f.file]);
}

/** A future bundle with tokens of `tsa` over its own plan at these genTimes, as anchors/<name>.tsr. */
function anchoredAt(times: Record<string, string>): BundleModel {
  const model = futureBundle();
  const hex = planHexOf(model);
  return withTokens(model, Object.fromEntries(Object.entries(times).map(([name, time]) => [`${name}.tsr`, tokenAt(tsa, hex, time)])));
}

describe('a token over the plan before the first attempt', () => {
  it('verifies with no finding; the anchor is pinned to the root and before the first attempt', () => {
    expect(futureBundle().plan.created_at).toBe(FUTURE_CREATED_AT);
    const v = verify(anchoredAt({ tsa: BEFORE_RUN }));
    expect(v.findings).toEqual([]);
    expect(v.status).toBe('verified');
    expect(v.anchor).toEqual({ gen_time: BEFORE_RUN, authority: AUTHORITY, pinned: true, before_first_attempt: true });
  });

  it('is not pinned without roots, nor with another authority\'s root; the rest is the same', () => {
    const model = anchoredAt({ tsa: BEFORE_RUN });
    expect(verify(model, []).anchor).toEqual({ gen_time: BEFORE_RUN, authority: AUTHORITY, pinned: false, before_first_attempt: true });
    expect(verify(model, parsePinnedRoots(other.rootPem)).anchor).toMatchObject({ pinned: false });
    expect(verify(model, parsePinnedRoots(other.rootPem + tsa.rootPem)).anchor).toMatchObject({ pinned: true });
    expect(verify(model, []).findings).toEqual([]);
  });

  it('read from disk (readBundle keeps the token\'s bytes) gives the same verification', async () => {
    const model = anchoredAt({ tsa: BEFORE_RUN });
    const fromDisk = verifyBundle(await readBundle(await writeModel(model)), LIMIT_DEFAULTS, { timestampRoots: roots });
    expect(fromDisk.findings).toEqual([]);
    expect(fromDisk.anchor).toEqual(verify(model).anchor);
  });

  it('the TSA\'s own TimeStampResp (openssl ts -reply, genTime now) is an anchor too: before this bundle\'s attempts and, as created_at is later, ANCHOR_BEFORE_CREATED', () => {
    const model = futureBundle();
    const response = tsa.reply(tsa.query(planHexOf(model)));
    const v = verify(withTokens(model, { 'tsa.tsr': response.bytes }));
    expect(codes(v)).toEqual([['ANCHOR_BEFORE_CREATED', 'anchors/tsa.tsr']]);
    expect(v.status).toBe('verified');
    expect(v.anchor).toMatchObject({ authority: AUTHORITY, pinned: true, before_first_attempt: true });
  });
});

describe('no anchor', () => {
  it('a bundle without anchors/ has anchor null and no anchor finding', () => {
    const v = verify(futureBundle());
    expect(v.anchor).toBeNull();
    expect(v.findings).toEqual([]);
  });

  it('files under anchors/ that are not anchors/<name>.tsr are ordinary files: only hashed', () => {
    const model = withTokens(futureBundle(), { 'README.txt': bytesOf('not a token'), 'old/x.tsr': bytesOf('not a token either'), 'x.TSR': bytesOf('case matters'), '.tsr': bytesOf('no name') });
    const v = verify(model);
    expect(v.findings).toEqual([]);
    expect(v.anchor).toBeNull();
    for (const path of ['anchors/README.txt', 'anchors/old/x.tsr', 'anchors/x.TSR', 'anchors/.tsr']) expect(isAnchorTokenPath(path), path).toBe(false);
    expect(isAnchorTokenPath('anchors/x.tsr')).toBe(true);
  });

  it('a token on disk that the manifest does not list is UNLISTED_FILE and is not checked', () => {
    const model = futureBundle();
    const v = verify(model, roots, { after: { 'anchors/tsa.tsr': tokenAt(tsa, planHexOf(model), BEFORE_RUN) } });
    expect(codes(v)).toEqual([['UNLISTED_FILE', 'anchors/tsa.tsr']]);
    expect(v.anchor).toBeNull();
  });

  it('a plan.json that does not parse: the tokens are not checked (no plan id to check them against), anchor null', () => {
    const model = anchoredAt({ tsa: BEFORE_RUN });
    const v = verify(model, roots, { raw: { 'plan.json': '{"schema":' } });
    expect(v.findings.filter((f) => f.code.startsWith('ANCHOR_'))).toEqual([]);
    expect(v.findings.map((f) => f.code)).toContain('BAD_JSON');
    expect(v.anchor).toBeNull();
  });

  it('a token withheld by a lowered depth limit is never nesting-checked (DER is not JSON)', () => {
    const model = anchoredAt({ tsa: BEFORE_RUN });
    const v = verifySnapshot(snapshotOf(model), { ...LIMIT_DEFAULTS, depth: 8 }, { timestampRoots: roots });
    expect(v.findings).toEqual([]);
    expect(v.anchor).toMatchObject({ pinned: true });
  });
});

describe('ANCHOR_UNREADABLE', () => {
  it('a truncated token: error on the token, the bundle invalid, no anchor', () => {
    const model = futureBundle();
    const token = tokenAt(tsa, planHexOf(model), BEFORE_RUN);
    const v = verify(withTokens(model, { 'tsa.tsr': token.subarray(0, token.length - 10) }));
    expect(codes(v)).toEqual([['ANCHOR_UNREADABLE', 'anchors/tsa.tsr']]);
    expect(v.findings[0]!.severity).toBe('error');
    expect(v.status).toBe('invalid');
    expect(v.anchor).toBeNull();
  });

  it('a token whose signature bytes were changed (re-signed by nobody) does not check', () => {
    const model = futureBundle();
    const token = Buffer.from(tokenAt(tsa, planHexOf(model), BEFORE_RUN));
    token[tokenParts(token).signatureAt.start + 5]! ^= 0x01;
    const v = verify(withTokens(model, { 'tsa.tsr': token }));
    expect(codes(v)).toEqual([['ANCHOR_UNREADABLE', 'anchors/tsa.tsr']]);
    expect(v.findings[0]!.message).toMatch(/signature does not check/);
  });

  it('a token over MAX_TOKEN_BYTES is not parsed', () => {
    const v = verify(withTokens(futureBundle(), { 'big.tsr': new Uint8Array(MAX_TOKEN_BYTES + 1) }));
    expect(codes(v)).toEqual([['ANCHOR_UNREADABLE', 'anchors/big.tsr']]);
    expect(v.findings[0]!.message).toContain(String(MAX_TOKEN_BYTES));
  });

  it('a token that does not check does not keep a good one from anchoring', () => {
    const model = anchoredAt({ good: BEFORE_RUN });
    model.extra.set('anchors/bad.tsr', bytesOf('garbage'));
    const v = verify(model);
    expect(codes(v)).toEqual([['ANCHOR_UNREADABLE', 'anchors/bad.tsr']]);
    expect(v.anchor).toMatchObject({ gen_time: BEFORE_RUN, before_first_attempt: true });
  });
});

describe('ANCHOR_MISMATCH', () => {
  it('a token over another plan: error on the token, invalid, no anchor', () => {
    const model = futureBundle();
    const otherPlan = createHash('sha256').update('another plan').digest('hex');
    const v = verify(withTokens(model, { 'tsa.tsr': tokenAt(tsa, otherPlan, BEFORE_RUN) }));
    expect(codes(v)).toEqual([['ANCHOR_MISMATCH', 'anchors/tsa.tsr']]);
    expect(v.status).toBe('invalid');
    expect(v.anchor).toBeNull();
  });

  it('a SHA-1 imprint (openssl ts -query -sha1) is ANCHOR_MISMATCH', () => {
    const model = futureBundle();
    const sha1 = tsa.reply(tsa.query(planHexOf(model).slice(0, 40), { algorithm: 'sha1' }));
    expect(codes(verify(withTokens(model, { 'tsa.tsr': sha1.bytes })))).toEqual([['ANCHOR_MISMATCH', 'anchors/tsa.tsr']]);
  });
});

describe('ANCHOR_AFTER_ATTEMPT', () => {
  it('a token after the first attempt started: a warning on the token naming both times; the bundle stays verified', () => {
    const v = verify(anchoredAt({ late: '2030-09-16T00:00:00Z' }));
    expect(codes(v)).toEqual([['ANCHOR_AFTER_ATTEMPT', 'anchors/late.tsr']]);
    expect(v.findings[0]!.severity).toBe('warning');
    expect(v.findings[0]!.message).toContain('2030-09-16T00:00:00Z');
    expect(v.findings[0]!.message).toContain(FUTURE_FIRST_START);
    expect(v.status).toBe('verified');
    expect(v.anchor).toEqual({ gen_time: '2030-09-16T00:00:00Z', authority: AUTHORITY, pinned: true, before_first_attempt: false });
  });

  it('a genTime equal to the first start is after (strictly before is required)', () => {
    const v = verify(anchoredAt({ tsa: FUTURE_FIRST_START }));
    expect(codes(v)).toEqual([['ANCHOR_AFTER_ATTEMPT', 'anchors/tsa.tsr']]);
    expect(v.anchor).toMatchObject({ before_first_attempt: false });
    const second = new Date(Date.parse(FUTURE_FIRST_START) - 1000).toISOString().replace('.000Z', 'Z');
    expect(verify(anchoredAt({ tsa: second })).anchor).toMatchObject({ gen_time: second, before_first_attempt: true });
  });

  it('the first attempt is the earliest started_at, not the first line', () => {
    const model = futureBundle();
    model.attempts[5]!.started_at = '2030-09-14T12:30:00Z';
    const hex = planHexOf(model);
    const v = verify(withTokens(model, { 'tsa.tsr': tokenAt(tsa, hex, BEFORE_RUN) }));
    expect(codes(v)).toEqual([['ANCHOR_AFTER_ATTEMPT', 'anchors/tsa.tsr']]);
    expect(v.findings[0]!.message).toContain('2030-09-14T12:30:00Z');
  });

  it('a bundle with no attempts is before its first attempt', () => {
    const model = futureBundle();
    model.attempts = [];
    model.grades = [];
    const v = verify(withTokens(model, { 'late.tsr': tokenAt(tsa, planHexOf(model), '2031-01-01T00:00:00Z') }));
    expect(v.findings.filter((f) => f.code.startsWith('ANCHOR_'))).toEqual([]);
    expect(v.anchor).toEqual({ gen_time: '2031-01-01T00:00:00Z', authority: AUTHORITY, pinned: true, before_first_attempt: true });
  });
});

describe('ANCHOR_BEFORE_CREATED', () => {
  it('a genTime before created_at: a warning on that token; still before the first attempt', () => {
    const v = verify(anchoredAt({ early: '2030-09-14T11:59:59Z' }));
    expect(codes(v)).toEqual([['ANCHOR_BEFORE_CREATED', 'anchors/early.tsr']]);
    expect(v.findings[0]!.severity).toBe('warning');
    expect(v.status).toBe('verified');
    expect(v.anchor).toMatchObject({ gen_time: '2030-09-14T11:59:59Z', before_first_attempt: true });
  });

  it('one warning per such token, in path order; a genTime equal to created_at is not before it', () => {
    const v = verify(anchoredAt({ b: '2030-09-14T10:00:00Z', a: '2030-09-14T11:00:00Z', c: FUTURE_CREATED_AT }));
    expect(codes(v)).toEqual([
      ['ANCHOR_BEFORE_CREATED', 'anchors/a.tsr'],
      ['ANCHOR_BEFORE_CREATED', 'anchors/b.tsr'],
    ]);
  });
});

describe('several tokens', () => {
  it('the earliest genTime that checks is the anchor, whatever the names and their order', () => {
    const early = '2030-09-14T12:30:00Z';
    const late = '2030-09-16T00:00:00Z';
    const one = verify(anchoredAt({ a: late, b: early }));
    const two = verify(anchoredAt({ a: early, b: late }));
    expect(one.anchor).toEqual({ gen_time: early, authority: AUTHORITY, pinned: true, before_first_attempt: true });
    expect(two.anchor).toEqual(one.anchor);
    // The later token is after the first attempt, but the anchor (the earliest) is not: no warning.
    expect(one.findings).toEqual([]);
    expect(two.findings).toEqual([]);
  });

  it('at one instant a pinned token is the anchor, in either order', () => {
    const model = futureBundle();
    const hex = planHexOf(model);
    const pinned = tokenAt(tsa, hex, BEFORE_RUN);
    const unpinned = tokenAt(other, hex, BEFORE_RUN);
    const a = verify(withTokens(futureBundle(), { 'a.tsr': pinned, 'b.tsr': unpinned }));
    const b = verify(withTokens(futureBundle(), { 'a.tsr': unpinned, 'b.tsr': pinned }));
    expect(a.anchor).toEqual({ gen_time: BEFORE_RUN, authority: AUTHORITY, pinned: true, before_first_attempt: true });
    expect(b.anchor).toEqual(a.anchor);
  });

  it('ANCHOR_AFTER_ATTEMPT names the anchoring token when every token is late', () => {
    const v = verify(anchoredAt({ a: '2030-09-17T00:00:00Z', b: '2030-09-16T00:00:00Z' }));
    expect(codes(v)).toEqual([['ANCHOR_AFTER_ATTEMPT', 'anchors/b.tsr']]);
  });
});

describe('in the browser verifier', () => {
  it("a NotInBrowserError from the check goes through verifyBundle (the browser's verifier says it was not re-derived there), never a finding", () => {
    const model = anchoredAt({ tsa: BEFORE_RUN });
    const notInBrowser = Object.assign(new Error('node:crypto verify is not in this browser'), { name: 'NotInBrowserError' });
    const spy = vi.spyOn(anchorCheck, 'checkAnchorToken').mockImplementation(() => {
      throw notInBrowser;
    });
    try {
      expect(() => verify(model)).toThrow(notInBrowser);
    } finally {
      spy.mockRestore();
    }
    expect(verify(model).findings).toEqual([]);
  });
});
