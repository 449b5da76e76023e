/**
 * RFC 3161 on the asking side (FORMAT.md 12), by hand: the TimeStampReq `freeze --anchor` sends, and the few fields of
 * the TimeStampResp it checks before it keeps the answer (status, imprint,
 * nonce, genTime). The token's signature is the verifier's to check
 * (src/anchor/); here an answer is only kept when it is the answer to this
 * request.
 *
 * TimeStampReq ::= SEQUENCE {
 *   version        INTEGER { v1(1) },
 *   messageImprint SEQUENCE { hashAlgorithm AlgorithmIdentifier (id-sha256, NULL), hashedMessage OCTET STRING (the plan id's 32 bytes) },
 *   nonce          INTEGER (64 random bits, positive) OPTIONAL,
 *   certReq        BOOLEAN TRUE }
 *
 * The reader is strict DER, framed by the verifier's own reader
 * (src/anchor/der.ts: definite, minimal lengths of at most 4 bytes, every
 * length inside its parent, no trailing bytes); anything else is "not DER".
 * It reads only the path to the fields above.
 */
import { randomBytes } from 'node:crypto';
import { childrenOf, DerError, readTlv as readDer, type Tlv as DerTlv } from '../anchor/der.ts';

/** id-sha256, 2.16.840.1.101.3.4.2.1, as DER content bytes. */
const ID_SHA256 = Buffer.from('608648016503040201', 'hex');
/** id-signedData, 1.2.840.113549.1.7.2. */
const ID_SIGNED_DATA = Buffer.from('2a864886f70d010702', 'hex');
/** id-ct-TSTInfo, 1.2.840.113549.1.9.16.1.4. */
const ID_CT_TSTINFO = Buffer.from('2a864886f70d0109100104', 'hex');

const PLAN_ID = /^sha256:([0-9a-f]{64})$/;

/** The 32 bytes a plan id names (the hashed message of its anchor). */
export function planIdBytes(planId: string): Buffer {
  const match = PLAN_ID.exec(planId);
  if (!match) throw new Error(`not a plan id: ${JSON.stringify(planId.slice(0, 80))}`);
  return Buffer.from(match[1]!, 'hex');
}

/** A request as sent: its DER bytes and what the answer must repeat. */
export interface AnchorRequest {
  der: Buffer;
  imprint: Buffer;
  /** The nonce's INTEGER content bytes (minimal, positive), or null when the request has none. */
  nonce: Buffer | null;
}

/** Builds the TimeStampReq for a plan id; `nonce: false` leaves the nonce out (as `openssl ts -query -no_nonce`). */
export function buildAnchorRequest(planId: string, options: { nonce?: boolean | Buffer } = {}): AnchorRequest {
  const imprint = planIdBytes(planId);
  const nonceOption = options.nonce ?? true;
  const nonce = nonceOption === false ? null : positiveInteger(nonceOption === true ? randomBytes(8) : nonceOption);
  const der = tlv(
    0x30,
    tlv(0x02, Buffer.from([1])),
    tlv(0x30, tlv(0x30, tlv(0x06, ID_SHA256), tlv(0x05, Buffer.alloc(0))), tlv(0x04, imprint)),
    ...(nonce === null ? [] : [tlv(0x02, nonce)]),
    tlv(0x01, Buffer.from([0xff])),
  );
  return { der, imprint, nonce };
}

/** The content bytes of a positive INTEGER with these magnitude bytes: leading zeros stripped, one 0x00 when the top bit is set. */
function positiveInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const magnitude = bytes.subarray(start);
  if (magnitude.length === 0 || (magnitude.length === 1 && magnitude[0] === 0)) return Buffer.from([1]); // never a zero nonce
  return (magnitude[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), magnitude]) : Buffer.from(magnitude);
}

function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
}

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** An answer that is not a granted answer to the request: why, in one line. */
export class AnchorAnswerProblem {
  constructor(readonly message: string) {}
}

/** What a kept answer says. */
export interface AnchorAnswer {
  /** granted (0) or grantedWithMods (1). */
  status: 0 | 1;
  /** The token's genTime as the authority wrote it (GeneralizedTime text). */
  genTime: string;
}

const STATUS_NAMES = ['granted', 'grantedWithMods', 'rejection', 'waiting', 'revocationWarning', 'revocationNotification'];
const FAILURE_NAMES = ['badAlg', '', 'badRequest', '', '', 'badDataFormat', '', '', '', '', '', '', '', '', 'timeNotAvailable', 'unacceptedPolicy', 'unacceptedExtension', 'addInfoNotAvailable', '', '', '', '', '', '', '', 'systemFailure'];

/**
 * Checks that `bytes` is a TimeStampResp whose status is granted or
 * grantedWithMods and whose token's TSTInfo has the request's imprint
 * (SHA-256 over the same 32 bytes) and nonce. Returns the status and genTime,
 * or an AnchorAnswerProblem saying what is wrong.
 */
export function checkAnchorAnswer(bytes: Uint8Array, request: AnchorRequest): AnchorAnswer | AnchorAnswerProblem {
  try {
    return readAnswer(Buffer.from(bytes), request);
  } catch (error) {
    if (error instanceof Error && NOT_DER.has(error)) return new AnchorAnswerProblem(`the answer is not a DER TimeStampResp (${error.message})`);
    throw error;
  }
}

function readAnswer(bytes: Buffer, request: AnchorRequest): AnchorAnswer | AnchorAnswerProblem {
  const resp = sequenceOf(one(bytes, 'TimeStampResp'), 'TimeStampResp');
  if (resp.length < 1 || resp.length > 2) throw derError(`TimeStampResp has ${resp.length} members`);
  const statusInfo = sequenceOf(resp[0]!, 'PKIStatusInfo');
  const status = smallInteger(expect(statusInfo[0], 0x02, 'PKIStatus'));
  if (status !== 0 && status !== 1) {
    const name = STATUS_NAMES[status] ?? `status ${status}`;
    const texts: string[] = [];
    let failure = '';
    for (const member of statusInfo.slice(1)) {
      if (member.tag === 0x30) {
        for (const text of children(member)) if (text.tag === 0x0c) texts.push(text.content.toString('utf8'));
      } else if (member.tag === 0x03) {
        failure = failureBits(member.content);
      }
    }
    const said = texts.join('; ').replace(/[^\x20-\x7e]/g, '?').slice(0, 200);
    return new AnchorAnswerProblem(`the authority answered ${name}${failure ? ` (${failure})` : ''}${said ? `: ${JSON.stringify(said)}` : ''}`);
  }
  if (resp.length !== 2) return new AnchorAnswerProblem(`the authority answered ${STATUS_NAMES[status]} but sent no token`);
  // ContentInfo { signedData, [0] SignedData }
  const contentInfo = sequenceOf(resp[1]!, 'TimeStampToken');
  if (!expect(contentInfo[0], 0x06, 'contentType').content.equals(ID_SIGNED_DATA)) throw derError('the token is not CMS SignedData');
  const signedData = sequenceOf(one(expect(contentInfo[1], 0xa0, 'content').content, 'SignedData'), 'SignedData');
  const encap = sequenceOf(expect(signedData[2], 0x30, 'encapContentInfo'), 'encapContentInfo');
  if (!expect(encap[0], 0x06, 'eContentType').content.equals(ID_CT_TSTINFO)) throw derError('the token does not hold a TSTInfo');
  const eContent = expect(one(expect(encap[1], 0xa0, 'eContent').content, 'eContent'), 0x04, 'eContent');
  const tst = sequenceOf(one(eContent.content, 'TSTInfo'), 'TSTInfo');
  expect(tst[0], 0x02, 'TSTInfo version');
  expect(tst[1], 0x06, 'policy');
  const imprint = sequenceOf(expect(tst[2], 0x30, 'messageImprint'), 'messageImprint');
  const algorithm = sequenceOf(expect(imprint[0], 0x30, 'hashAlgorithm'), 'hashAlgorithm');
  const hashed = expect(imprint[1], 0x04, 'hashedMessage').content;
  if (!expect(algorithm[0], 0x06, 'hashAlgorithm').content.equals(ID_SHA256) || !hashed.equals(request.imprint)) {
    return new AnchorAnswerProblem(`the token stamps another imprint (${hashed.toString('hex').slice(0, 64)}), not this plan's (${request.imprint.toString('hex')})`);
  }
  expect(tst[3], 0x02, 'serialNumber');
  const genTime = expect(tst[4], 0x18, 'genTime').content.toString('latin1');
  if (!/^[0-9]{14}(\.[0-9]+)?Z$/.test(genTime)) throw derError('genTime is not a UTC GeneralizedTime');
  const nonce = tst.slice(5).find((member) => member.tag === 0x02)?.content ?? null;
  if (request.nonce !== null && (nonce === null || !nonce.equals(request.nonce))) {
    return new AnchorAnswerProblem(nonce === null ? 'the token carries no nonce, and the request sent one' : 'the token carries another nonce than the request: not the answer to this request');
  }
  return { status, genTime };
}

function failureBits(content: Buffer): string {
  const names: string[] = [];
  for (let bit = 0; bit < (content.length - 1) * 8 && bit < 64; bit++) {
    if ((content[1 + (bit >> 3)]! & (0x80 >> (bit & 7))) !== 0) names.push(FAILURE_NAMES[bit] || `failure bit ${bit}`);
  }
  return names.join(', ');
}

/** Errors the DER reader raised (so a bug elsewhere is not mistaken for a bad answer). */
const NOT_DER = new WeakSet<Error>();

function derError(message: string): Error {
  const error = new Error(message);
  NOT_DER.add(error);
  return error;
}

/** One TLV: its tag byte and content. */
interface Tlv {
  tag: number;
  content: Buffer;
}

/** The one TLV that fills `bytes` exactly (framing by src/anchor/der.ts, the verifier's own DER reader). */
function one(bytes: Buffer, what: string): Tlv {
  const node = framed(() => readDer(bytes, 0), what);
  if (node.end !== bytes.length) throw derError(`${bytes.length - node.end} bytes after ${what}`);
  return { tag: node.tag, content: bytes.subarray(node.valueStart, node.end) };
}

/** The members of a constructed value, which must fill it exactly (at most 64). */
function children(node: Tlv): Tlv[] {
  const whole: DerTlv = { tag: node.tag, start: 0, valueStart: 0, end: node.content.length };
  const members = framed(() => childrenOf(node.content, whole), 'a member');
  if (members.length > 64) throw derError('too many members');
  return members.map((member) => ({ tag: member.tag, content: node.content.subarray(member.valueStart, member.end) }));
}

/** Runs a DER read, turning its DerError into this reader's "not DER" error naming what was read. */
function framed<T>(read: () => T, what: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof DerError) throw derError(`${what}: ${error.message}`);
    throw error;
  }
}

function sequenceOf(node: Tlv, what: string): Tlv[] {
  if (node.tag !== 0x30) throw derError(`${what} is not a SEQUENCE`);
  return children(node);
}

function expect(node: Tlv | undefined, tag: number, what: string): Tlv {
  if (node === undefined) throw derError(`${what} is missing`);
  if (node.tag !== tag) throw derError(`${what} has tag 0x${node.tag.toString(16)}, not 0x${tag.toString(16)}`);
  return node;
}

function smallInteger(node: Tlv): number {
  if (node.content.length < 1 || node.content.length > 2) throw derError('PKIStatus is not a small INTEGER');
  return node.content.reduce((value, byte) => value * 256 + byte, 0);
}
