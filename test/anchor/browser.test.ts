/**
 * The anchor check under the in-browser verifier's node:crypto stand-in
 * (src/rederive/browser/crypto.ts): SHA-256 is there, and `createPublicKey`
 * and `verify` answer only for signatures the worker checked ahead with Web
 * Crypto (src/rederive/browser/anchor-signatures.ts; Node's own
 * crypto.subtle here). Before that, the check throws a NotInBrowserError
 * (the browser says "not re-derived here"), never a false ANCHOR_UNREADABLE;
 * after it, the check gives what Node's gives: ok, the genTime, the
 * authority, `pinned`, and a re-signed token is ANCHOR_UNREADABLE.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { checkAnchorToken, parsePinnedRoots, tokenParts } from '../../src/anchor/check.ts';
import { checkWithSubtle, ecdsaRaw, prepareAnchorSignatures } from '../../src/rederive/browser/anchor-signatures.ts';
import { createPublicKey as standInKey, verify as standInVerify } from '../../src/rederive/browser/crypto.ts';
import { makeTsa, type TsaKeyKind } from '../helpers/tsa-tokens.ts';

vi.mock('node:crypto', async () => {
  const real = await vi.importActual<typeof import('node:crypto')>('node:crypto');
  const browser = await import('../../src/rederive/browser/crypto.ts');
  // The test's own hashing (createHash below) stays Node's; the module under test gets the stand-in's.
  return { ...browser, default: browser.default, createHash: (algorithm: string) => (algorithm === 'sha256' ? browser.createHash(algorithm) : real.createHash(algorithm)) };
});

const tsa = makeTsa();
const others: ReturnType<typeof makeTsa>[] = [];
afterAll(() => [tsa, ...others].forEach((t) => t.remove()));
const PLAN = createHash('sha256').update('a plan checked in a browser').digest('hex');
const AUTHORITY = 'CN=Test TSA+OU=Stamps,O=Ledgerboard Test\\, Time,C=XX';

describe('in the browser verifier', () => {
  const response = tsa.reply(tsa.query(PLAN, { name: 'browser' }), 'browser');
  const roots = parsePinnedRoots(tsa.rootPem);

  it('a token whose signatures were not checked ahead: NotInBrowserError naming what was missing, never a verdict', () => {
    const unprepared = tsa.reply(tsa.query(PLAN, { name: 'unprepared' }), 'unprepared');
    expect(() => checkAnchorToken(unprepared.bytes, PLAN, roots)).toThrow(expect.objectContaining({ name: 'NotInBrowserError', what: 'node:crypto verify (a signature not checked ahead)' }));
  });

  it('framing and the message digest are still checked: a truncated or altered token is ANCHOR_UNREADABLE', () => {
    expect(checkAnchorToken(response.bytes.subarray(0, 50), PLAN, [])).toMatchObject({ ok: false, code: 'ANCHOR_UNREADABLE' });
    const policy = Buffer.of(0x06, 0x04, 0x2a, 0x03, 0x04, 0x01);
    const altered = Buffer.from(response.bytes);
    altered[altered.indexOf(policy) + 5]! ^= 1;
    expect(checkAnchorToken(altered, PLAN, [])).toMatchObject({ ok: false, code: 'ANCHOR_UNREADABLE', detail: expect.stringMatching(/^the signed message digest does not match/) });
  });

  it('checked ahead with Web Crypto: the check answers as in Node, pinned to the root that signed the chain', async () => {
    await prepareAnchorSignatures([response], PLAN, roots);
    const check = checkAnchorToken(response.bytes, PLAN, roots);
    expect(check).toMatchObject({ ok: true, authority: AUTHORITY, pinned: true });
    expect((check as { genTime: string }).genTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('another root: the same token checks and is not pinned (the chain signatures it asks for are checked ahead too)', async () => {
    const stranger = makeTsa({ rootSubject: '/C=XX/O=Elsewhere/CN=Another Root', signerKey: 'ec' });
    others.push(stranger);
    const theirs = parsePinnedRoots(stranger.rootPem);
    await prepareAnchorSignatures([response], PLAN, theirs);
    expect(checkAnchorToken(response.bytes, PLAN, theirs)).toMatchObject({ ok: true, pinned: false });
  });

  it('a token over another plan: ANCHOR_MISMATCH after its signature was checked ahead', async () => {
    const other = createHash('sha256').update('another plan').digest('hex');
    await prepareAnchorSignatures([response], other, roots);
    expect(checkAnchorToken(response.bytes, other, roots)).toMatchObject({ ok: false, code: 'ANCHOR_MISMATCH' });
  });

  it('a re-signed token (its signature bytes changed): Web Crypto says no, and the check is ANCHOR_UNREADABLE', async () => {
    const parts = tokenParts(response.bytes);
    const token = Buffer.from(parts.token);
    token[parts.signatureAt.start + 10]! ^= 0xff;
    await prepareAnchorSignatures([{ bytes: token }], PLAN, roots);
    expect(checkAnchorToken(token, PLAN, roots)).toMatchObject({ ok: false, code: 'ANCHOR_UNREADABLE', detail: 'the signature does not check with the signer certificate: the signature does not verify' });
  });

  // (openssl ts -reply cannot sign with an Ed25519 key: its tokens are RSA or ECDSA.)
  for (const kind of ['ec'] as const satisfies readonly TsaKeyKind[]) {
    it(`a TSA with an ${kind} key: checked ahead, ok and pinned`, async () => {
      const other = makeTsa({ signerKey: kind });
      others.push(other);
      const bytes = other.reply(other.query(PLAN, { name: kind }), kind).bytes;
      const theirs = parsePinnedRoots(other.rootPem);
      await prepareAnchorSignatures([{ bytes }], PLAN, theirs);
      expect(checkAnchorToken(bytes, PLAN, theirs)).toMatchObject({ ok: true, pinned: true });
    });
  }
});

describe('Web Crypto checks', () => {
  it('ECDSA signatures: strict DER to r || s, anything else refused (null), as node:crypto answers false', () => {
    expect(ecdsaRaw(Uint8Array.of(0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07), 4)).toEqual(Uint8Array.of(0, 0, 0, 5, 0, 0, 0, 7));
    expect(ecdsaRaw(Uint8Array.of(0x30, 0x07, 0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x07), 2)).toEqual(Uint8Array.of(0, 0x80, 0, 7));
    // not minimal, negative, trailing bytes, too long for the curve
    expect(ecdsaRaw(Uint8Array.of(0x30, 0x07, 0x02, 0x02, 0x00, 0x05, 0x02, 0x01, 0x07), 4)).toBeNull();
    expect(ecdsaRaw(Uint8Array.of(0x30, 0x06, 0x02, 0x01, 0x85, 0x02, 0x01, 0x07), 4)).toBeNull();
    expect(ecdsaRaw(Uint8Array.of(0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07, 0x00), 4)).toBeNull();
    expect(ecdsaRaw(Uint8Array.of(0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x07), 0)).toBeNull();
  });

  // Keys and signatures made by Node's own crypto; the stand-in's key and Web Crypto's answer checked against them.
  const cases = [
    { name: 'RSA-PSS (an rsaEncryption key, salt 32)', type: 'rsa', options: { modulusLength: 2048 }, algorithm: 'sha256', pss: 32 },
    { name: 'RSASSA-PKCS1-v1_5 with SHA-512', type: 'rsa', options: { modulusLength: 2048 }, algorithm: 'sha512', pss: null },
    { name: 'ECDSA P-384 with SHA-384', type: 'ec', options: { namedCurve: 'P-384' }, algorithm: 'sha384', pss: null },
    { name: 'ECDSA P-521 with SHA-512', type: 'ec', options: { namedCurve: 'P-521' }, algorithm: 'sha512', pss: null },
    { name: 'Ed25519', type: 'ed25519', options: {}, algorithm: null, pss: null },
  ] as const;
  for (const c of cases) {
    it(`${c.name}: Web Crypto says true for Node's signature and false for another`, async () => {
      const real = await vi.importActual<typeof import('node:crypto')>('node:crypto');
      const pair = real.generateKeyPairSync(c.type as 'rsa', c.options as { modulusLength: number });
      const data = Buffer.from('the signed attributes of a token');
      const signature = real.sign(c.algorithm, data, c.pss === null ? pair.privateKey : { key: pair.privateKey, padding: real.constants.RSA_PKCS1_PSS_PADDING, saltLength: c.pss });
      const key = standInKey({ key: pair.publicKey.export({ format: 'der', type: 'spki' }), format: 'der', type: 'spki' });
      expect(key.asymmetricKeyType).toBe(c.type);
      const request = { id: `case ${c.name}`, algorithm: c.algorithm, pssSaltLength: c.pss, key, data, signature };
      expect(await checkWithSubtle(request)).toBe(true);
      const other = Buffer.from(signature);
      other[other.length - 1]! ^= 1;
      expect(await checkWithSubtle({ ...request, signature: other })).toBe(false);
      // Not checked ahead: the stand-in's verify never answers.
      expect(() => standInVerify(c.algorithm, data, c.pss === null ? key : { key, padding: 6, saltLength: c.pss }, signature)).toThrow(expect.objectContaining({ name: 'NotInBrowserError' }));
    });
  }

  it('a key Web Crypto cannot check (Ed448): null, never false', async () => {
    const key = { type: 'public', asymmetricKeyType: 'ed448', spki: new Uint8Array(0) } as const;
    expect(await checkWithSubtle({ id: 'x', algorithm: null, pssSaltLength: null, key, data: new Uint8Array(1), signature: new Uint8Array(1) })).toBeNull();
  });
});
