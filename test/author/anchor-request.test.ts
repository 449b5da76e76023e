/**
 * The TimeStampReq freeze --anchor sends and the answer check it makes
 * (FORMAT.md 12; src/author/anchor-request.ts), against openssl itself: the
 * request without a nonce is byte for byte openssl's, openssl reads ours and
 * prints the plan id, and openssl's answers from the local TSA are kept only
 * when they answer this request.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnchorAnswerProblem, buildAnchorRequest, checkAnchorAnswer, planIdBytes, type AnchorRequest } from '../../src/author/anchor-request.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import { startLocalTsa, type LocalTsa, type TsaMode } from '../helpers/local-tsa.ts';

const planId = digestBytes('a plan frozen before it ran');
const hex = planId.slice('sha256:'.length);
let tsa: LocalTsa;
beforeAll(async () => {
  tsa = await startLocalTsa();
}, 60_000);
afterAll(() => tsa.close());

const openssl = (...args: string[]): Buffer => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

/** POSTs a request to the local TSA in the given mode; the raw answer. */
async function ask(request: AnchorRequest, mode: TsaMode = 'ok'): Promise<Buffer> {
  tsa.setMode(mode);
  const response = await fetch(tsa.url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body: new Uint8Array(request.der) });
  return Buffer.from(await response.arrayBuffer());
}

describe('the request', () => {
  it('without a nonce is the bytes of openssl ts -query -digest <plan-id-hex> -sha256 -cert -no_nonce', () => {
    const file = join(tsa.dir, 'openssl-query.tsq');
    openssl('ts', '-query', '-digest', hex, '-sha256', '-cert', '-no_nonce', '-out', file);
    const ours = buildAnchorRequest(planId, { nonce: false });
    expect(ours.der.toString('hex')).toBe(execFileSync('xxd', ['-p', '-c', '0', file]).toString('utf8').trim());
    expect(ours.der.length).toBe(59);
    expect(ours.nonce).toBeNull();
  });

  it('with a nonce is read by openssl ts -query -text: the plan id as the imprint, its nonce, a certificate asked for', () => {
    const request = buildAnchorRequest(planId);
    const file = join(tsa.dir, 'ours.tsq');
    writeFileSync(file, request.der);
    const text = openssl('ts', '-query', '-in', file, '-text').toString('utf8');
    expect(text).toContain('Hash Algorithm: sha256');
    const dumped = [...text.matchAll(/^ {4}[0-9a-f]{4} - ((?:[0-9a-f]{2}[ -]){15}[0-9a-f]{2})/gm)].map((m) => m[1]!.replace(/[ -]/g, '')).join('');
    expect(dumped).toBe(hex);
    const nonce = /^Nonce: 0x([0-9A-F]+)$/m.exec(text)?.[1];
    expect(BigInt(`0x${nonce}`)).toBe(BigInt(`0x${request.nonce!.toString('hex')}`));
    expect(text).toContain('Certificate required: yes');
  });

  it('nonces are positive minimal INTEGERs of 64 random bits, a new one each time', () => {
    const nonces = Array.from({ length: 40 }, () => buildAnchorRequest(planId).nonce!);
    for (const nonce of nonces) {
      expect(nonce.length).toBeGreaterThanOrEqual(1);
      expect(nonce.length).toBeLessThanOrEqual(9);
      expect(nonce[0]! & 0x80).toBe(0);
      if (nonce.length > 1) expect(nonce[0] === 0 && (nonce[1]! & 0x80) === 0).toBe(false);
    }
    expect(new Set(nonces.map((n) => n.toString('hex'))).size).toBe(40);
    // A magnitude with its top bit set gets one leading zero byte.
    expect(buildAnchorRequest(planId, { nonce: Buffer.from('ff00000000000001', 'hex') }).nonce!.toString('hex')).toBe('00ff00000000000001');
    expect(buildAnchorRequest(planId, { nonce: Buffer.from('0000000000000701', 'hex') }).nonce!.toString('hex')).toBe('0701');
  });

  it('takes only a plan id', () => {
    expect(planIdBytes(planId).toString('hex')).toBe(hex);
    expect(() => buildAnchorRequest('sha256:abc')).toThrow(/not a plan id/);
  });
});

describe('the answer', () => {
  it("openssl's granted answer to this request is kept, with its genTime", async () => {
    const request = buildAnchorRequest(planId);
    const answer = checkAnchorAnswer(await ask(request), request);
    expect(answer).not.toBeInstanceOf(AnchorAnswerProblem);
    if (answer instanceof AnchorAnswerProblem) return;
    expect(answer.status).toBe(0);
    expect(answer.genTime).toMatch(/^[0-9]{14}Z$/);
    const stamped = Date.UTC(+answer.genTime.slice(0, 4), +answer.genTime.slice(4, 6) - 1, +answer.genTime.slice(6, 8), +answer.genTime.slice(8, 10), +answer.genTime.slice(10, 12), +answer.genTime.slice(12, 14));
    expect(Math.abs(stamped - Date.now())).toBeLessThan(120_000);
  });

  it('a rejection is refused with its status and failure', async () => {
    const request = buildAnchorRequest(planId);
    const answer = checkAnchorAnswer(await ask(request, 'rejection'), request);
    expect(answer).toBeInstanceOf(AnchorAnswerProblem);
    expect((answer as AnchorAnswerProblem).message).toMatch(/^the authority answered rejection \(badAlg\): ".*digest algorithm is not supported/);
  });

  it('a token over another imprint is refused, naming both', async () => {
    const request = buildAnchorRequest(planId);
    const answer = checkAnchorAnswer(await ask(request, 'wrong-imprint'), request);
    const other = Buffer.from(planIdBytes(planId).map((b) => b ^ 0xff)).toString('hex');
    expect((answer as AnchorAnswerProblem).message).toBe(`the token stamps another imprint (${other}), not this plan's (${hex})`);
  });

  it("another request's answer (its nonce) is refused; so is a token without the nonce asked for", async () => {
    const first = buildAnchorRequest(planId);
    const second = buildAnchorRequest(planId);
    const answer = await ask(first);
    expect((checkAnchorAnswer(answer, second) as AnchorAnswerProblem).message).toBe('the token carries another nonce than the request: not the answer to this request');
    const noNonce = buildAnchorRequest(planId, { nonce: false });
    expect((checkAnchorAnswer(await ask(noNonce), first) as AnchorAnswerProblem).message).toBe('the token carries no nonce, and the request sent one');
    // Without a nonce asked, the nonce-less answer is kept.
    expect(checkAnchorAnswer(await ask(noNonce), noNonce)).not.toBeInstanceOf(AnchorAnswerProblem);
  });

  it('bytes that are not a DER TimeStampResp are refused: garbage, not a SEQUENCE, empty, cut short, trailing bytes, indefinite length', async () => {
    const request = buildAnchorRequest(planId);
    const good = await ask(request);
    const cases: [Buffer, RegExp][] = [
      [await ask(request, 'garbage'), /^the answer is not a DER TimeStampResp \(TimeStampResp: truncated: the value at byte 0 needs \d+ more bytes\)$/],
      [Buffer.from('0400', 'hex'), /^the answer is not a DER TimeStampResp \(TimeStampResp is not a SEQUENCE\)$/],
      [Buffer.alloc(0), /TimeStampResp: truncated: a value at byte 0 has no room for its tag and length/],
      [good.subarray(0, good.length - 1), /TimeStampResp: truncated: the value at byte 0 needs 1 more bytes/],
      [Buffer.concat([good, Buffer.from([0])]), /1 bytes after TimeStampResp/],
      [Buffer.from('30800000', 'hex'), /indefinite length at byte 1 \(BER, not DER\)/],
    ];
    for (const [bytes, message] of cases) {
      const answer = checkAnchorAnswer(bytes, request);
      expect(answer).toBeInstanceOf(AnchorAnswerProblem);
      expect((answer as AnchorAnswerProblem).message).toMatch(message);
    }
  });
});
