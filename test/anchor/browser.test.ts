/**
 * The anchor check under the in-browser verifier's node:crypto stand-in
 * (src/rederive/browser/crypto.ts), which has SHA-256 but no `verify` or
 * `createPublicKey` today: the framing and the message digest are still
 * checked there, and the signature check is not made: a NotInBrowserError
 * comes through (so the browser says "not re-derived here"), never a false
 * ANCHOR_UNREADABLE.
 */
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { checkAnchorToken, parsePinnedRoots } from '../../src/anchor/check.ts';
import { makeTsa } from '../helpers/tsa-tokens.ts';

vi.mock('node:crypto', async () => {
  const real = await vi.importActual<typeof import('node:crypto')>('node:crypto');
  const browser = await import('../../src/rederive/browser/crypto.ts');
  // The test's own hashing (createHash below) stays Node's; the module under test gets the stand-in's.
  return { ...browser, default: browser.default, createHash: (algorithm: string) => (algorithm === 'sha256' ? browser.createHash(algorithm) : real.createHash(algorithm)) };
});

const tsa = makeTsa();
afterAll(() => tsa.remove());
const PLAN = createHash('sha256').update('a plan checked in a browser').digest('hex');

describe('in the browser verifier', () => {
  const response = tsa.reply(tsa.query(PLAN, { name: 'browser' }), 'browser');

  it('a good token: the signature check is not made here (NotInBrowserError naming what was missing)', () => {
    expect(() => checkAnchorToken(response.bytes, PLAN, parsePinnedRoots(tsa.rootPem))).toThrow(expect.objectContaining({ name: 'NotInBrowserError', what: 'node:crypto createPublicKey' }));
  });

  it('framing and the message digest are still checked: a truncated or altered token is ANCHOR_UNREADABLE', () => {
    expect(checkAnchorToken(response.bytes.subarray(0, 50), PLAN, [])).toMatchObject({ ok: false, code: 'ANCHOR_UNREADABLE' });
    const policy = Buffer.of(0x06, 0x04, 0x2a, 0x03, 0x04, 0x01);
    const altered = Buffer.from(response.bytes);
    altered[altered.indexOf(policy) + 5]! ^= 1;
    expect(checkAnchorToken(altered, PLAN, [])).toMatchObject({ ok: false, code: 'ANCHOR_UNREADABLE', detail: expect.stringMatching(/^the signed message digest does not match/) });
  });
});
