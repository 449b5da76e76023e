/**
 * One RFC 3161 time-stamp token over a plan id, checked as FORMAT.md 12
 * says, from its bytes alone (never the network):
 *
 * - the input is a DER TimeStampResp whose status is granted (0) or
 *   grantedWithMods (1), or a bare TimeStampToken (a ContentInfo holding
 *   SignedData); any other status, a truncation, trailing bytes or BER
 *   where DER is due is ANCHOR_UNREADABLE;
 * - the SignedData has one SignerInfo, identified by issuer and serial or
 *   by subject key identifier, whose certificate the token carries; its
 *   signed attributes hold the content type id-ct-TSTInfo and the message
 *   digest of the encapsulated TSTInfo, and its signature over the DER of
 *   those attributes (as a SET) checks with that certificate's key
 *   (signatures.ts names the algorithms); else ANCHOR_UNREADABLE;
 * - the TSTInfo's imprint is SHA-256 of nothing but the plan id's 32 bytes:
 *   else ANCHOR_MISMATCH, saying which algorithm or that the digest is
 *   another plan's;
 * - `pinned` when the signer chains to a root the reader pinned
 *   (certificates.ts).
 *
 * Bounded: at most {@link MAX_TOKEN_BYTES} bytes and
 * {@link MAX_TOKEN_CERTIFICATES} certificates a token, chains of at most
 * MAX_CHAIN certificates.
 */
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';
import { createHash } from 'node:crypto';
import { ContentInfo, EncapsulatedContentInfo, IssuerAndSerialNumber, SignedData, SignerIdentifier, SignerInfo } from '@peculiar/asn1-cms';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { TimeStampResp, TSTInfo, id_ct_tstInfo } from '@peculiar/asn1-tsp';
import { checkDer, childrenOf, bytesOf, DerError, type Tlv } from './der.ts';
import { chainsToRoot, parseCertificate, sameBytes, subjectKeyIdentifierOf, type ParsedCertificate, type PinnedRoot } from './certificates.ts';
import { rfc4514 } from './names.ts';
import { acceptedHash, checkSignature, hashName, rethrowNotInBrowser, SHA256_OID } from './signatures.ts';

export type { PinnedRoot } from './certificates.ts';
export { parsePinnedRoots, parseCertificate, rootDigest, rootDigests, MAX_CHAIN } from './certificates.ts';

/** The largest token read: real ones are a few KiB (a chain of three RSA certificates is about 4 KiB). */
export const MAX_TOKEN_BYTES = 1024 * 1024;
/** The most certificates a token may carry. */
export const MAX_TOKEN_CERTIFICATES = 16;

/** A token that checks. */
export interface AnchorOk {
  readonly ok: true;
  /** The TSTInfo's genTime, RFC 3339 UTC with `Z` (a fraction only when the token has one, to milliseconds). */
  readonly genTime: string;
  /** The signer certificate's subject, RFC 4514. */
  readonly authority: string;
  readonly pinned: boolean;
}

/** A token that does not, with its finding code and one sentence why. */
export interface AnchorProblem {
  readonly ok: false;
  readonly code: 'ANCHOR_UNREADABLE' | 'ANCHOR_MISMATCH';
  readonly detail: string;
}

export type AnchorCheck = AnchorOk | AnchorProblem;

const SIGNED_DATA = '1.2.840.113549.1.7.2';
const CONTENT_TYPE_ATTRIBUTE = '1.2.840.113549.1.9.3';
const MESSAGE_DIGEST_ATTRIBUTE = '1.2.840.113549.1.9.4';
/** The DER of the OID id-ct-TSTInfo (1.2.840.113549.1.9.16.1.4), as the content-type attribute holds it. */
const TST_INFO_OID_DER = Uint8Array.of(0x06, 0x0b, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x01, 0x04);

/** A reason the token cannot be read or checked (ANCHOR_UNREADABLE). */
/** A token that cannot be read or checked (internal: the check returns it as ANCHOR_UNREADABLE). */
export class TimeStampTokenError extends LedgerboardError {
  static override readonly code: string = 'TIME_STAMP_TOKEN_UNREADABLE';
  static override readonly exitStatus = EXIT_STATUS.internal;
}

function unreadable(detail: string): AnchorProblem {
  return { ok: false, code: 'ANCHOR_UNREADABLE', detail };
}

function parse<T>(bytes: Uint8Array, type: new () => T, what: string): T {
  try {
    return AsnConvert.parse(bytes, type);
  } catch (error) {
    throw new TimeStampTokenError(`the ${what} does not parse: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** RFC 3339 UTC with Z: whole seconds, or the milliseconds' significant digits. */
export function rfc3339(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso.replace(/0+Z$/, 'Z');
}

/** The parts of a token that the checks need, with the bytes each signature covers. */
export interface TokenParts {
  /** The ContentInfo's DER (the TimeStampToken). */
  readonly token: Uint8Array;
  readonly signedData: SignedData;
  readonly signerInfo: SignerInfo;
  /** The signed attributes' DER as a SET (tag 0x31), as the signature covers them. */
  readonly signedAttributes: Uint8Array;
  /** Where the signature value's bytes are in `token` (for tests that replace them). */
  readonly signatureAt: { readonly start: number; readonly end: number };
  readonly tstInfoBytes: Uint8Array;
  readonly tstInfo: TSTInfo;
  readonly certificates: readonly ParsedCertificate[];
}

/** A TimeStampResp's token, or a bare token: the ContentInfo's DER. */
function tokenBytes(bytes: Uint8Array, outer: Tlv): Uint8Array {
  const first = childrenOf(bytes, outer)[0];
  if (outer.tag !== 0x30 || first === undefined) throw new TimeStampTokenError('the bytes are not a DER SEQUENCE (a TimeStampResp or a TimeStampToken)');
  if (first.tag === 0x06) return bytes; // ContentInfo: contentType OID first
  if (first.tag !== 0x30) throw new TimeStampTokenError('the bytes are neither a TimeStampResp nor a TimeStampToken');
  const response = parse(bytes, TimeStampResp, 'TimeStampResp');
  const status = response.status.status as number;
  if (status !== 0 && status !== 1) {
    const text = response.status.statusString ? [...response.status.statusString].join(' ') : '';
    throw new TimeStampTokenError(`the response's status is ${status} (${['granted', 'grantedWithMods', 'rejection', 'waiting', 'revocationWarning', 'revocationNotification'][status] ?? 'unknown'})${text ? `: ${JSON.stringify(text)}` : ''}, not granted`);
  }
  const token = childrenOf(bytes, outer)[1];
  if (token === undefined || response.timeStampToken === undefined) throw new TimeStampTokenError('the response is granted but carries no token');
  return bytesOf(bytes, token);
}

/** Reads a token's parts, checking its framing and structure: throws TimeStampTokenError with the reason. */
function readParts(bytes: Uint8Array): TokenParts {
  let outer: Tlv;
  try {
    outer = checkDer(bytes);
  } catch (error) {
    if (error instanceof DerError) throw new TimeStampTokenError(`the bytes are not DER: ${error.message}`);
    throw error;
  }
  const token = tokenBytes(bytes, outer);
  const contentInfo = parse(token, ContentInfo, 'TimeStampToken (ContentInfo)');
  if (contentInfo.contentType !== SIGNED_DATA) throw new TimeStampTokenError(`the token's content type is ${contentInfo.contentType}, not SignedData`);
  // The SignedData's own bytes: ContentInfo ::= SEQUENCE { contentType, [0] EXPLICIT content }.
  const ciParts = childrenOf(token, checkDer(token));
  if (ciParts.length !== 2 || ciParts[1]!.tag !== 0xa0) throw new TimeStampTokenError('the token is not a ContentInfo of a type and one [0] content');
  const sdTlv = childrenOf(token, ciParts[1]!)[0];
  if (sdTlv === undefined || sdTlv.tag !== 0x30) throw new TimeStampTokenError('the token holds no SignedData SEQUENCE');
  const sdBytes = bytesOf(token, sdTlv);
  const signedData = parse(sdBytes, SignedData, 'SignedData');
  const sdParts = childrenOf(token, sdTlv);
  const infosTlv = sdParts[sdParts.length - 1]!;
  const infos = childrenOf(token, infosTlv);
  if (infos.length !== 1 || signedData.signerInfos.length !== 1) throw new TimeStampTokenError(`the token has ${infos.length} signers, not one (RFC 3161 2.4.2)`);
  const signerInfo = signedData.signerInfos[0]!;
  const siParts = childrenOf(token, infos[0]!);
  const attrsTlv = siParts[3];
  if (attrsTlv === undefined || attrsTlv.tag !== 0xa0 || signerInfo.signedAttrs === undefined) throw new TimeStampTokenError('the signer has no signed attributes');
  const signedAttributes = Uint8Array.from(bytesOf(token, attrsTlv));
  signedAttributes[0] = 0x31;
  const sigTlv = siParts[5];
  if (sigTlv === undefined || sigTlv.tag !== 0x04) throw new TimeStampTokenError('the signer has no signature value');

  const encap: EncapsulatedContentInfo = signedData.encapContentInfo;
  if (encap.eContentType !== id_ct_tstInfo) throw new TimeStampTokenError(`the signed content's type is ${encap.eContentType}, not id-ct-TSTInfo`);
  const single = encap.eContent?.single;
  if (single === undefined) throw new TimeStampTokenError('the signed content is missing (a detached signature)');
  const tstInfoBytes = new Uint8Array(single.buffer);
  try {
    checkDer(tstInfoBytes);
  } catch (error) {
    if (error instanceof DerError) throw new TimeStampTokenError(`the TSTInfo is not DER: ${error.message}`);
    throw error;
  }
  const tstInfo = parse(tstInfoBytes, TSTInfo, 'TSTInfo');

  const certificates: ParsedCertificate[] = [];
  const certsTlv = sdParts.find((p) => p.tag === 0xa0);
  if (certsTlv !== undefined) {
    for (const choice of childrenOf(token, certsTlv)) {
      if (choice.tag !== 0x30) continue; // attribute and other certificates are not X.509 certificates
      if (certificates.length === MAX_TOKEN_CERTIFICATES) throw new TimeStampTokenError(`the token carries more than ${MAX_TOKEN_CERTIFICATES} certificates`);
      try {
        certificates.push(parseCertificate(bytesOf(token, choice)));
      } catch (error) {
        throw new TimeStampTokenError(`certificate ${certificates.length + 1} of the token does not parse: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { token, signedData, signerInfo, signedAttributes, signatureAt: { start: sigTlv.valueStart, end: sigTlv.end }, tstInfoBytes, tstInfo, certificates };
}

/** The certificate the signer identifier names, among the token's. */
function signerCertificate(sid: SignerIdentifier, certificates: readonly ParsedCertificate[]): ParsedCertificate | undefined {
  if (sid.issuerAndSerialNumber !== undefined) {
    const want: IssuerAndSerialNumber = sid.issuerAndSerialNumber;
    const issuer = new Uint8Array(AsnConvert.serialize(want.issuer));
    const serial = new Uint8Array(want.serialNumber);
    return certificates.find((c) => sameBytes(c.issuerDer, issuer) && sameBytes(new Uint8Array(c.certificate.tbsCertificate.serialNumber), serial));
  }
  if (sid.subjectKeyIdentifier !== undefined) {
    const want = new Uint8Array(sid.subjectKeyIdentifier.buffer);
    return certificates.find((c) => {
      const ski = subjectKeyIdentifierOf(c);
      return ski !== undefined && sameBytes(ski, want);
    });
  }
  return undefined;
}

/** The one value of the one attribute of this type among the signed attributes. */
function attributeValue(signerInfo: SignerInfo, type: string, name: string): ArrayBuffer {
  const found = signerInfo.signedAttrs!.filter((a) => a.attrType === type);
  if (found.length !== 1 || found[0]!.attrValues.length !== 1) throw new TimeStampTokenError(`the signed attributes hold ${found.length === 1 ? 'a' : found.length} ${name} attribute${found.length === 1 ? ' with several values' : 's'}, not one`);
  return found[0]!.attrValues[0]!;
}

/** The signature check: ANCHOR_UNREADABLE's reasons, as an exception. Returns the signer's certificate. */
function checkCms(parts: TokenParts): ParsedCertificate {
  const { signerInfo } = parts;
  const signer = signerCertificate(signerInfo.sid, parts.certificates);
  if (signer === undefined) throw new TimeStampTokenError('the token does not carry the signer certificate');
  const digest = acceptedHash(signerInfo.digestAlgorithm);
  if ('refused' in digest) throw new TimeStampTokenError(`the signer's digest algorithm: ${digest.refused}`);
  const contentType = new Uint8Array(attributeValue(signerInfo, CONTENT_TYPE_ATTRIBUTE, 'content-type'));
  if (!sameBytes(contentType, TST_INFO_OID_DER)) throw new TimeStampTokenError(`the signed content-type attribute is not id-ct-TSTInfo (its DER is ${hex(contentType)})`);
  const messageDigest = new Uint8Array(parse(new Uint8Array(attributeValue(signerInfo, MESSAGE_DIGEST_ATTRIBUTE, 'message-digest')), OctetString, 'message-digest attribute').buffer);
  const actual = createHash(digest.hash).update(parts.tstInfoBytes).digest();
  if (!sameBytes(new Uint8Array(actual), messageDigest)) throw new TimeStampTokenError('the signed message digest does not match the TSTInfo (the time-stamp was altered)');
  const signature = parts.token.subarray(parts.signatureAt.start, parts.signatureAt.end);
  const problem = checkSignature(signerInfo.signatureAlgorithm, digest.hash, signer.key(), parts.signedAttributes, signature);
  if (problem !== null) throw new TimeStampTokenError(`the signature does not check with the signer certificate: ${problem}`);
  return signer;
}

/** The imprint check: null, or ANCHOR_MISMATCH's sentence. */
function imprintProblem(tstInfo: TSTInfo, planIdHex: string): string | null {
  const algorithm = tstInfo.messageImprint.hashAlgorithm;
  if (algorithm.algorithm !== SHA256_OID) return `the imprint is ${hashName(algorithm.algorithm)}, not SHA-256 of the plan id`;
  const hashed = hex(new Uint8Array(tstInfo.messageImprint.hashedMessage.buffer));
  if (hashed !== planIdHex) return `the imprint is sha256:${hashed.length === 64 ? hashed : `${hashed} (${hashed.length / 2} bytes)`}, not this plan's id`;
  return null;
}

/**
 * Checks one token (a TimeStampResp or a TimeStampToken, DER) over the plan whose id is `sha256:<planIdHex>`
 * against the reader's pinned roots. Never throws for the token's bytes; throws a TypeError for a plan id
 * that is not 64 lowercase hex digits (a bug of the caller), and lets a NotInBrowserError through (the
 * browser's node:crypto stand-in has no `verify` or `createPublicKey` today: there the check is not made).
 */
export function checkAnchorToken(bytes: Uint8Array, planIdHex: string, roots: readonly PinnedRoot[]): AnchorCheck {
  if (!/^[0-9a-f]{64}$/.test(planIdHex)) throw new TypeError(`checkAnchorToken: the plan id ${JSON.stringify(planIdHex)} is not 64 lowercase hex digits`);
  if (bytes.length > MAX_TOKEN_BYTES) return unreadable(`the token is ${bytes.length} bytes, over the limit of ${MAX_TOKEN_BYTES}`);
  try {
    const parts = readParts(bytes);
    const signer = checkCms(parts);
    const mismatch = imprintProblem(parts.tstInfo, planIdHex);
    if (mismatch !== null) return { ok: false, code: 'ANCHOR_MISMATCH', detail: mismatch };
    const genTime = parts.tstInfo.genTime;
    if (!(genTime instanceof Date) || Number.isNaN(genTime.getTime())) throw new TimeStampTokenError('the genTime is not a time');
    const intermediates = parts.certificates.filter((c) => c !== signer);
    return { ok: true, genTime: rfc3339(genTime), authority: rfc4514(signer.certificate.tbsCertificate.subject), pinned: chainsToRoot(signer, intermediates, roots, genTime) };
  } catch (error) {
    if (error instanceof TimeStampTokenError) return unreadable(error.message);
    rethrowNotInBrowser(error);
    return unreadable(`the token cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** For tests: a token's parts (throws with the reason when it cannot be read). */
export function tokenParts(bytes: Uint8Array): TokenParts {
  return readParts(bytes);
}
