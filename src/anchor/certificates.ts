/**
 * Certificates of a time-stamp token and the reader's pinned roots
 * (FORMAT.md 12, `timestamp_roots`): parsed from DER (roots from PEM), and
 * the chain from a token's signer up to a pinned root: each certificate's
 * issuer name is the next one's subject and its signature checks with the
 * next one's key, every certificate is valid at the token's genTime, every
 * issuer below the root is a CA, and the signer is a time-stamping
 * certificate (extendedKeyUsage critical, timeStamping alone: RFC 3161
 * 2.3). At most {@link MAX_CHAIN} certificates, signer and root included.
 * No revocation check, and never the network.
 */
import type { KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { BasicConstraints, Certificate, ExtendedKeyUsage, id_ce_basicConstraints, id_ce_extKeyUsage, id_ce_subjectKeyIdentifier, id_kp_timeStamping, SubjectKeyIdentifier } from '@peculiar/asn1-x509';
import { checkDer, childrenOf, bytesOf } from './der.ts';
import { digestBytes } from '../json/canonical.ts';
import { checkSignature, publicKeyOf, rethrowNotInBrowser } from './signatures.ts';

/** The longest chain followed, signer and pinned root included. */
export const MAX_CHAIN = 8;

/** A certificate with the bytes its signature covers and what the checks compare. */
export interface ParsedCertificate {
  readonly der: Uint8Array;
  readonly certificate: Certificate;
  readonly tbs: Uint8Array;
  readonly subjectDer: Uint8Array;
  readonly issuerDer: Uint8Array;
  key(): KeyObject;
}

/** A root certificate the reader trusts for time-stamps. */
export type PinnedRoot = ParsedCertificate;

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Parses one certificate's DER (exactly one DER value). Throws with a reason. */
export function parseCertificate(der: Uint8Array): ParsedCertificate {
  const outer = checkDer(der);
  const parts = childrenOf(der, outer);
  if (outer.tag !== 0x30 || parts.length !== 3 || parts[0]!.tag !== 0x30) throw new Error('a certificate is not a SEQUENCE of tbsCertificate, algorithm, signature');
  const certificate = AsnConvert.parse(der, Certificate);
  let key: KeyObject | undefined;
  return {
    der,
    certificate,
    tbs: bytesOf(der, parts[0]!),
    subjectDer: new Uint8Array(AsnConvert.serialize(certificate.tbsCertificate.subject)),
    issuerDer: new Uint8Array(AsnConvert.serialize(certificate.tbsCertificate.issuer)),
    key: () => (key ??= publicKeyOf(certificate.tbsCertificate.subjectPublicKeyInfo)),
  };
}

/** A pinned root's digest, `sha256:<hex of its DER>`: what the report's config records and the site's /timestamp-roots/<hex>.pem names. */
export function rootDigest(root: PinnedRoot): string {
  return digestBytes(root.der);
}

/** The digests of some roots, sorted and each once. */
export function rootDigests(roots: readonly PinnedRoot[]): string[] {
  return [...new Set(roots.map(rootDigest))].sort();
}

const PEM = /-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g;

/** The certificates of a PEM text (one file of `timestamp_roots`). Throws when it holds none or one does not parse. */
export function parsePinnedRoots(pem: string): PinnedRoot[] {
  const roots: PinnedRoot[] = [];
  for (const match of pem.matchAll(PEM)) {
    const text = match[1]!.replace(/\s+/g, '');
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) throw new Error(`certificate ${roots.length + 1} of the PEM text is not base64`);
    const der = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    try {
      roots.push(parseCertificate(der));
    } catch (error) {
      throw new Error(`certificate ${roots.length + 1} of the PEM text does not parse: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (roots.length === 0) throw new Error('the PEM text holds no certificate');
  return roots;
}

function extension(cert: ParsedCertificate, id: string) {
  return cert.certificate.tbsCertificate.extensions?.find((e) => e.extnID === id);
}

/** The subjectKeyIdentifier's bytes, when the certificate has one. */
export function subjectKeyIdentifierOf(cert: ParsedCertificate): Uint8Array | undefined {
  const ext = extension(cert, id_ce_subjectKeyIdentifier);
  if (ext === undefined) return undefined;
  return new Uint8Array(AsnConvert.parse(ext.extnValue, SubjectKeyIdentifier).buffer);
}

/** RFC 3161 2.3: exactly one extendedKeyUsage, critical, with timeStamping alone. */
function isTimeStamping(cert: ParsedCertificate): boolean {
  const all = cert.certificate.tbsCertificate.extensions?.filter((e) => e.extnID === id_ce_extKeyUsage) ?? [];
  if (all.length !== 1 || !all[0]!.critical) return false;
  const usages = [...AsnConvert.parse(all[0]!.extnValue, ExtendedKeyUsage)];
  return usages.length === 1 && usages[0] === id_kp_timeStamping;
}

function isCa(cert: ParsedCertificate): boolean {
  const ext = extension(cert, id_ce_basicConstraints);
  return ext !== undefined && AsnConvert.parse(ext.extnValue, BasicConstraints).cA;
}

function validAt(cert: ParsedCertificate, at: Date): boolean {
  const v = cert.certificate.tbsCertificate.validity;
  return v.notBefore.getTime().getTime() <= at.getTime() && at.getTime() <= v.notAfter.getTime().getTime();
}

/** Whether `issuer` issued `cert`: names, then the signature with the issuer's key. */
function issued(issuer: ParsedCertificate, cert: ParsedCertificate): boolean {
  if (!sameBytes(issuer.subjectDer, cert.issuerDer)) return false;
  try {
    const signature = new Uint8Array(cert.certificate.signatureValue);
    return checkSignature(cert.certificate.signatureAlgorithm, null, issuer.key(), cert.tbs, signature) === null;
  } catch (error) {
    rethrowNotInBrowser(error);
    return false;
  }
}

/** How many steps the search for a chain may take: a bound on tokens built to make it branch. */
export const MAX_CHAIN_STEPS = 10_000;

/**
 * Whether `signer` chains to one of `roots` at `genTime` through `intermediates` (the token's other
 * certificates): see the module comment. A signer that is itself a pinned root is pinned. A search past
 * {@link MAX_CHAIN_STEPS} steps answers false.
 */
export function chainsToRoot(signer: ParsedCertificate, intermediates: readonly ParsedCertificate[], roots: readonly PinnedRoot[], genTime: Date): boolean {
  if (roots.length === 0 || !isTimeStamping(signer)) return false;
  const checked = new Map<string, boolean>();
  const all = [...intermediates, ...roots];
  const issuedOnce = (issuer: ParsedCertificate, cert: ParsedCertificate): boolean => {
    const key = `${all.indexOf(issuer)}>${cert === signer ? 's' : all.indexOf(cert)}`;
    let answer = checked.get(key);
    if (answer === undefined) checked.set(key, (answer = issued(issuer, cert)));
    return answer;
  };
  let steps = 0;
  const climb = (cert: ParsedCertificate, length: number, path: readonly ParsedCertificate[]): boolean => {
    if (++steps > MAX_CHAIN_STEPS || !validAt(cert, genTime)) return false;
    if (roots.some((root) => sameBytes(root.der, cert.der))) return true;
    if (length >= MAX_CHAIN) return false;
    for (const root of roots) if (validAt(root, genTime) && issuedOnce(root, cert)) return true;
    if (length + 1 >= MAX_CHAIN) return false;
    for (const next of intermediates) {
      if (path.includes(next) || !isCa(next) || !issuedOnce(next, cert)) continue;
      if (climb(next, length + 1, [...path, next])) return true;
    }
    return false;
  };
  return climb(signer, 1, [signer]);
}
