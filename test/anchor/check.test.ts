/**
 * FORMAT.md 12: RFC 3161 time-stamp tokens over a plan id, checked from
 * their bytes. The tokens come from a throw-away TSA made with `openssl`
 * (test/helpers/tsa-tokens.ts: root CA, intermediate, TSA certificate with
 * extendedKeyUsage critical timeStamping, all keys in a temp directory),
 * and standard in both directions: `openssl ts -verify` accepts every token
 * checkAnchorToken calls ok and pinned, and every token openssl accepts is
 * ok and pinned here but for the two where the format is stricter on purpose.
 */
import { execFileSync } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnchorToken, MAX_CHAIN, MAX_TOKEN_BYTES, MAX_TOKEN_CERTIFICATES, parsePinnedRoots, tokenParts, type AnchorCheck, type PinnedRoot } from '../../src/anchor/check.ts';
import { makeTsa, type Tsa } from '../helpers/tsa-tokens.ts';

const PLAN = createHash('sha256').update('a frozen plan').digest('hex');
const OTHER_PLAN = createHash('sha256').update('another plan').digest('hex');

const tsa = makeTsa();
const ecTsa = makeTsa({ signerKey: 'ec' });
const msTsa = makeTsa({ precisionDigits: 3 });
const sha384Tsa = makeTsa({ digest: 'sha384', signerKey: 'ec' });
const stranger = makeTsa({ rootSubject: '/C=XX/O=Someone Else/CN=Other Root CA' });
afterAll(() => [tsa, ecTsa, msTsa, sha384Tsa, stranger].forEach((t) => t.remove()));

const roots = parsePinnedRoots(tsa.rootPem);
const strangerRoots = parsePinnedRoots(stranger.rootPem);

/** Every token checked in this file, to hold openssl to the same answers at the end. */
const seen: { label: string; bytes: Buffer; plan: string; tsa: Tsa; pinnedTo: Tsa | undefined; result: AnchorCheck }[] = [];

function check(label: string, bytes: Uint8Array, plan: string, of: Tsa, pinnedTo: Tsa | undefined): AnchorCheck {
  const pinned: readonly PinnedRoot[] = pinnedTo === undefined ? [] : pinnedTo === tsa ? roots : pinnedTo === stranger ? strangerRoots : parsePinnedRoots(pinnedTo.rootPem);
  const result = checkAnchorToken(bytes, plan, pinned);
  seen.push({ label, bytes: Buffer.from(bytes), plan, tsa: of, pinnedTo, result });
  return result;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The genTime openssl prints (`Time stamp: Dec  2 11:20:25[.123] 2026 GMT`), as RFC 3339. */
function opensslGenTime(text: string): string {
  const m = /^Time stamp: (\w{3}) +(\d{1,2}) (\d\d:\d\d:\d\d)(\.\d+)? (\d{4}) GMT$/m.exec(text);
  if (m === null) throw new Error(`no time stamp in:\n${text}`);
  const month = String(MONTHS.indexOf(m[1]!) + 1).padStart(2, '0');
  const fraction = (m[4] ?? '').replace(/0+$/, '').replace(/^\.$/, '');
  return `${m[5]}-${month}-${m[2]!.padStart(2, '0')}T${m[3]}${fraction}Z`;
}

/** The subject openssl prints for a certificate as an RFC 2253/4514 string. */
function opensslSubject(certPath: string): string {
  return execFileSync('openssl', ['x509', '-in', certPath, '-noout', '-subject', '-nameopt', 'RFC2253']).toString().trim().replace(/^subject=/, '');
}

const query = tsa.query(PLAN, { name: 'good' });
const response = tsa.reply(query, 'good');
const token = tsa.token(query, 'good-token');

describe('a good token', () => {
  it('a TimeStampResp and the bare TimeStampToken give ok, the genTime openssl prints and the TSA subject as RFC 4514, pinned to the root', () => {
    const authority = opensslSubject(tsa.paths.tsaCert);
    expect(authority).toBe('CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\, Time,C=XX');
    const fromResponse = check('response', response.bytes, PLAN, tsa, tsa);
    expect(fromResponse).toEqual({ ok: true, genTime: opensslGenTime(tsa.text(response.path)), authority, pinned: true });
    const fromToken = check('token', token.bytes, PLAN, tsa, tsa);
    expect(fromToken).toEqual({ ok: true, genTime: opensslGenTime(tsa.text(token.path, true)), authority, pinned: true });
    expect(fromResponse.ok && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(fromResponse.genTime)).toBe(true);
  });

  it('is not pinned with another root, nor with none, and is pinned with a PEM file holding both roots', () => {
    expect(check('other root', response.bytes, PLAN, tsa, stranger)).toMatchObject({ ok: true, pinned: false });
    expect(check('no root', response.bytes, PLAN, tsa, undefined)).toMatchObject({ ok: true, pinned: false });
    const both = parsePinnedRoots(stranger.rootPem + tsa.rootPem);
    expect(both).toHaveLength(2);
    expect(checkAnchorToken(response.bytes, PLAN, both)).toMatchObject({ ok: true, pinned: true });
  });

  it('an ECDSA (P-256) signer checks and is pinned', () => {
    const r = ecTsa.reply(ecTsa.query(PLAN, { name: 'ec' }), 'ec');
    expect(check('ecdsa', r.bytes, PLAN, ecTsa, ecTsa)).toEqual({ ok: true, genTime: opensslGenTime(ecTsa.text(r.path)), authority: opensslSubject(ecTsa.paths.tsaCert), pinned: true });
  });

  it('a SHA-384 signer digest checks; a SHA-1 one is refused by name (openssl accepts it)', () => {
    const r = sha384Tsa.reply(sha384Tsa.query(PLAN, { name: 'sha384' }), 'sha384');
    expect(check('sha384 signer digest', r.bytes, PLAN, sha384Tsa, sha384Tsa)).toMatchObject({ ok: true, pinned: true });
    const sha1 = makeTsa({ digest: 'sha1' });
    try {
      const old = sha1.reply(sha1.query(PLAN));
      expect(sha1.openssl(['ts', '-verify', '-digest', PLAN, '-in', old.path, '-CAfile', sha1.paths.root, '-untrusted', sha1.paths.chain])).toMatch(/Verification: OK/);
      expect(checkAnchorToken(old.bytes, PLAN, parsePinnedRoots(sha1.rootPem))).toEqual({
        ok: false,
        code: 'ANCHOR_UNREADABLE',
        detail: "the signer's digest algorithm: SHA-1 is not an accepted digest (SHA-256, SHA-384 or SHA-512)",
      });
    } finally {
      sha1.remove();
    }
  });

  it('RSA-PSS signatures (openssl cms, salt 32) check; a signer named by its subject key identifier (-keyid) is found', () => {
    const tstInfo = tokenParts(response.bytes).tstInfoBytes;
    const pss = tsa.cmsToken(tstInfo, ['-keyopt', 'rsa_padding_mode:pss', '-keyopt', 'rsa_pss_saltlen:32']);
    expect(tokenParts(pss).signerInfo.signatureAlgorithm.algorithm).toBe('1.2.840.113549.1.1.10');
    const authority = opensslSubject(tsa.paths.tsaCert);
    const genTime = opensslGenTime(tsa.text(response.path));
    expect(checkAnchorToken(pss, PLAN, roots)).toEqual({ ok: true, genTime, authority, pinned: true });
    const byKeyId = tsa.cmsToken(tstInfo, ['-keyid']);
    expect(tokenParts(byKeyId).signerInfo.sid.subjectKeyIdentifier).toBeDefined();
    expect(checkAnchorToken(byKeyId, PLAN, roots)).toEqual({ ok: true, genTime, authority, pinned: true });
    // The same PSS token with one signature byte flipped does not check.
    const parts = tokenParts(pss);
    const flipped = Buffer.from(pss);
    flipped[parts.signatureAt.start + 3]! ^= 0x80;
    expect(checkAnchorToken(flipped, PLAN, roots)).toMatchObject({ ok: false, code: 'ANCHOR_UNREADABLE' });
  });

  it('a grantedWithMods status (1) is read like granted; waiting (3) with the same token is ANCHOR_UNREADABLE', () => {
    // The status is outside what the TSA signs: PKIStatusInfo SEQUENCE { INTEGER 0 } right after the outer header.
    const at = response.bytes.indexOf(Buffer.of(0x30, 0x03, 0x02, 0x01, 0x00));
    expect(at).toBe(4);
    const withMods = Buffer.from(response.bytes);
    withMods[at + 4] = 1;
    expect(checkAnchorToken(withMods, PLAN, roots)).toEqual(checkAnchorToken(response.bytes, PLAN, roots));
    const waiting = Buffer.from(response.bytes);
    waiting[at + 4] = 3;
    expect(checkAnchorToken(waiting, PLAN, roots)).toEqual({ ok: false, code: 'ANCHOR_UNREADABLE', detail: "the response's status is 3 (waiting), not granted" });
  });

  it('a genTime with milliseconds keeps them exactly', () => {
    // A time whose milliseconds are all zeros has no fraction (DER drops trailing zeros): ask again then.
    let r = msTsa.reply(msTsa.query(PLAN, { name: 'ms' }), 'ms');
    for (let i = 0; i < 3 && !/\d\.\d+ \d{4} GMT/.test(msTsa.text(r.path)); i++) r = msTsa.reply(msTsa.query(PLAN, { name: `ms${i}` }), `ms${i}`);
    const printed = opensslGenTime(msTsa.text(r.path));
    expect(printed).toMatch(/T\d\d:\d\d:\d\d\.\d{1,3}Z$/);
    expect(check('milliseconds', r.bytes, PLAN, msTsa, msTsa)).toMatchObject({ ok: true, genTime: printed, pinned: true });
  });
});

describe('ANCHOR_MISMATCH', () => {
  it("another plan's digest, named in the detail", () => {
    const r = tsa.reply(tsa.query(OTHER_PLAN, { name: 'other-plan' }), 'other-plan');
    expect(check('other plan', r.bytes, PLAN, tsa, tsa)).toEqual({ ok: false, code: 'ANCHOR_MISMATCH', detail: `the imprint is sha256:${OTHER_PLAN}, not this plan's id` });
    // The same token is good for the plan it stamps.
    expect(check('other plan, its own', r.bytes, OTHER_PLAN, tsa, tsa)).toMatchObject({ ok: true, pinned: true });
  });

  it('a SHA-1 or a SHA-512 imprint, saying which', () => {
    const sha1 = tsa.reply(tsa.query(PLAN.slice(0, 40), { algorithm: 'sha1', name: 'sha1' }), 'sha1');
    expect(check('sha1 imprint', sha1.bytes, PLAN, tsa, tsa)).toEqual({ ok: false, code: 'ANCHOR_MISMATCH', detail: 'the imprint is SHA-1, not SHA-256 of the plan id' });
    const sha512 = tsa.reply(tsa.query(PLAN + PLAN, { algorithm: 'sha512', name: 'sha512' }), 'sha512');
    expect(check('sha512 imprint', sha512.bytes, PLAN, tsa, tsa)).toEqual({ ok: false, code: 'ANCHOR_MISMATCH', detail: 'the imprint is SHA-512, not SHA-256 of the plan id' });
  });
});

describe('ANCHOR_UNREADABLE', () => {
  const unreadable = (label: string, bytes: Uint8Array, reason: RegExp) => {
    const result = check(label, bytes, PLAN, tsa, tsa);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('ANCHOR_UNREADABLE');
    expect(result.detail).toMatch(reason);
  };

  it('truncated bytes, at the start, in the middle and one byte short; a trailing byte', () => {
    for (const cut of [0, 1, 2, 100, Math.floor(response.bytes.length / 2), response.bytes.length - 1]) {
      unreadable(`truncated at ${cut}`, response.bytes.subarray(0, cut), /truncated/);
    }
    unreadable('truncated token', token.bytes.subarray(0, token.bytes.length - 1), /truncated/);
    unreadable('trailing byte', Buffer.concat([response.bytes, Buffer.of(0)]), /^the bytes are not DER: 1 trailing bytes/);
  });

  it('one flipped byte of the signature', () => {
    const parts = tokenParts(response.bytes);
    expect(parts.signatureAt.end - parts.signatureAt.start).toBe(256);
    const at = response.bytes.length - parts.token.length + parts.signatureAt.start + 17;
    const flipped = Buffer.from(response.bytes);
    flipped[at]! ^= 0x01;
    unreadable('flipped signature byte', flipped, /^the signature does not check with the signer certificate: the signature does not verify$/);
  });

  it('one flipped byte of the TSTInfo (its policy OID): the message digest no longer matches', () => {
    const policy = Buffer.of(0x06, 0x04, 0x2a, 0x03, 0x04, 0x01); // 1.2.3.4.1, the default policy
    const at = response.bytes.indexOf(policy);
    expect(at).toBeGreaterThan(0);
    expect(response.bytes.indexOf(policy, at + 1)).toBe(-1);
    const flipped = Buffer.from(response.bytes);
    flipped[at + policy.length - 1]! ^= 0x01;
    unreadable('flipped TSTInfo byte', flipped, /^the signed message digest does not match the TSTInfo/);
  });

  /** The response with its signature replaced by `key`'s over the same signed attributes (RSA 2048: same length). */
  const resigned = (key: Parameters<typeof sign>[2]): Buffer => {
    const parts = tokenParts(response.bytes);
    const signature = sign('sha256', parts.signedAttributes, key);
    expect(signature).toHaveLength(parts.signatureAt.end - parts.signatureAt.start);
    const out = Buffer.from(response.bytes);
    signature.copy(out, response.bytes.length - parts.token.length + parts.signatureAt.start);
    return out;
  };

  it('re-signed by another key with the original certificate kept (and, as a control, re-signed by the TSA key: ok)', () => {
    const control = resigned(createPrivateKey(readFileSync(tsa.paths.tsaKey)));
    expect(check('re-signed by the TSA key', control, PLAN, tsa, tsa)).toMatchObject({ ok: true, pinned: true });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    unreadable('re-signed by another key', resigned(other), /^the signature does not check with the signer certificate: the signature does not verify$/);
  });

  it('a rejection status response (an unaccepted policy)', () => {
    const rejected = tsa.reply(tsa.query(PLAN, { policy: '1.2.9.9', name: 'rejected' }), 'rejected');
    expect(tsa.text(rejected.path)).toMatch(/Status: Rejected/);
    unreadable('rejection', rejected.bytes, /^the response's status is 2 \(rejection\).*not granted$/);
  });

  it('a token that does not carry the signer certificate (requested without -cert)', () => {
    const bare = tsa.reply(tsa.query(PLAN, { cert: false, name: 'nocert' }), 'nocert');
    unreadable('no certificate', bare.bytes, /^the token does not carry the signer certificate$/);
  });

  it(`a token over ${MAX_TOKEN_BYTES} bytes, and bytes that are no token`, () => {
    unreadable('over the limit', new Uint8Array(MAX_TOKEN_BYTES + 1), new RegExp(`^the token is ${MAX_TOKEN_BYTES + 1} bytes, over the limit of ${MAX_TOKEN_BYTES}$`));
    unreadable('a certificate', readFileSync(tsa.paths.tsaCert), /not DER/);
    unreadable('an indefinite length', Buffer.of(0x30, 0x80, 0x00, 0x00), /indefinite length/);
    unreadable('a request', readFileSync(query), /not parse|neither|SignedData|does not/);
  });

  it(`a token carrying ${MAX_TOKEN_CERTIFICATES} certificates is read; ${MAX_TOKEN_CERTIFICATES + 1} is ANCHOR_UNREADABLE`, () => {
    // openssl carries the intermediates and the signer twice (as the signer and from `certs`).
    const at = makeTsa({ intermediates: MAX_TOKEN_CERTIFICATES - 2 });
    const over = makeTsa({ intermediates: MAX_TOKEN_CERTIFICATES - 1 });
    try {
      const a = at.reply(at.query(PLAN));
      expect(tokenParts(a.bytes).certificates).toHaveLength(MAX_TOKEN_CERTIFICATES);
      expect(checkAnchorToken(a.bytes, PLAN, parsePinnedRoots(at.rootPem))).toMatchObject({ ok: true, pinned: false });
      expect(checkAnchorToken(over.reply(over.query(PLAN)).bytes, PLAN, parsePinnedRoots(over.rootPem))).toEqual({
        ok: false,
        code: 'ANCHOR_UNREADABLE',
        detail: `the token carries more than ${MAX_TOKEN_CERTIFICATES} certificates`,
      });
    } finally {
      at.remove();
      over.remove();
    }
  });

  it('refuses a plan id that is not 64 lowercase hex digits (a bug of the caller)', () => {
    expect(() => checkAnchorToken(response.bytes, `sha256:${PLAN}`, roots)).toThrow(TypeError);
    expect(() => checkAnchorToken(response.bytes, PLAN.toUpperCase(), roots)).toThrow(TypeError);
  });
});

describe('pinned roots', () => {
  it('a PEM text without a certificate, or with one that is not base64, is refused', () => {
    expect(() => parsePinnedRoots('nothing here')).toThrow('the PEM text holds no certificate');
    expect(() => parsePinnedRoots('-----BEGIN CERTIFICATE-----\nAB*D\n-----END CERTIFICATE-----\n')).toThrow('certificate 1 of the PEM text is not base64');
  });
});

describe('the chain to a pinned root', () => {
  /** openssl's answer with the root and the full chain given (-untrusted), for the cases its rules and ours share. */
  const opensslAccepts = (t: Tsa, path: string): boolean => {
    try {
      return /Verification: OK/.test(t.openssl(['ts', '-verify', '-digest', PLAN, '-in', path, '-CAfile', t.paths.root, '-untrusted', t.paths.chain]));
    } catch {
      return false;
    }
  };

  it(`${MAX_CHAIN} certificates (signer, 6 intermediates, root) are pinned; ${MAX_CHAIN + 1} are not, though openssl accepts both`, () => {
    const eight = makeTsa({ intermediates: 6 });
    const nine = makeTsa({ intermediates: 7 });
    try {
      const a = eight.reply(eight.query(PLAN));
      const b = nine.reply(nine.query(PLAN));
      // The 6 intermediates and the signer (openssl puts the signer in twice: as the signer and from `certs`).
      expect(new Set(tokenParts(a.bytes).certificates.map((c) => Buffer.from(c.der).toString('hex'))).size).toBe(7);
      expect(checkAnchorToken(a.bytes, PLAN, parsePinnedRoots(eight.rootPem))).toMatchObject({ ok: true, pinned: true });
      expect(checkAnchorToken(b.bytes, PLAN, parsePinnedRoots(nine.rootPem))).toMatchObject({ ok: true, pinned: false });
      expect([opensslAccepts(eight, a.path), opensslAccepts(nine, b.path)]).toEqual([true, true]);
    } finally {
      eight.remove();
      nine.remove();
    }
  });

  it('intermediates come from the token only: a token carrying the signer alone is ok but not pinned; pinning the intermediate pins it', () => {
    const alone = makeTsa({ carryChain: false });
    try {
      const r = alone.reply(alone.query(PLAN));
      expect(tokenParts(r.bytes).certificates).toHaveLength(1);
      expect(checkAnchorToken(r.bytes, PLAN, parsePinnedRoots(alone.rootPem))).toMatchObject({ ok: true, pinned: false });
      expect(checkAnchorToken(r.bytes, PLAN, parsePinnedRoots(readFileSync(join(alone.dir, 'int.pem'), 'utf8')))).toMatchObject({ ok: true, pinned: true });
    } finally {
      alone.remove();
    }
  });

  it('a signer certificate not valid at the genTime (expired the day before) is ok but not pinned, and openssl refuses it too', () => {
    const expired = makeTsa({ signerDays: -1 });
    try {
      const r = expired.reply(expired.query(PLAN));
      expect(checkAnchorToken(r.bytes, PLAN, parsePinnedRoots(expired.rootPem))).toMatchObject({ ok: true, pinned: false });
      expect(opensslAccepts(expired, r.path)).toBe(false);
    } finally {
      expired.remove();
    }
  });
});

describe('openssl agrees, both directions', () => {
  it('`openssl ts -verify -digest <plan> -CAfile <root> -untrusted <chain>` accepts exactly the tokens called ok and pinned', () => {
    const rows: string[] = [];
    for (const [i, s] of seen.entries()) {
      const file = join(s.tsa.dir, `seen-${i}.bin`);
      writeFileSync(file, s.bytes);
      const isToken = s.bytes.length > 4 && s.bytes[s.bytes[1]! & 0x80 ? 2 + (s.bytes[1]! & 0x7f) : 2] === 0x06;
      const root = (s.pinnedTo ?? s.tsa).paths.root;
      let accepted: boolean;
      try {
        const out = execFileSync('openssl', ['ts', '-verify', '-digest', s.plan, ...(isToken ? ['-token_in'] : []), '-in', file, '-CAfile', root, '-untrusted', s.tsa.paths.chain], { stdio: 'pipe' }).toString();
        accepted = /Verification: OK/.test(out) && s.pinnedTo !== undefined;
      } catch {
        accepted = false;
      }
      rows.push(`${s.label}: ours ${s.result.ok && s.result.pinned}, openssl ${accepted}`);
    }
    expect(rows.length).toBeGreaterThanOrEqual(28);
    expect(rows.filter((r) => r.endsWith('ours true, openssl true')).map((r) => r.split(':')[0])).toEqual(['response', 'token', 'ecdsa', 'sha384 signer digest', 'milliseconds', 'other plan, its own', 're-signed by the TSA key']);
    // Ours ok and pinned: openssl accepts, no exception.
    expect(rows.filter((r) => r.endsWith('ours true, openssl false'))).toEqual([]);
    // openssl accepts: ours ok and pinned, except where FORMAT.md 12 and format-decisions.md are stricter on
    // purpose: DER means no trailing bytes, and the token must carry its signer's certificate (openssl took it
    // from -untrusted).
    expect(rows.filter((r) => r.endsWith('ours false, openssl true'))).toEqual(['trailing byte: ours false, openssl true', 'no certificate: ours false, openssl true']);
  });
});
