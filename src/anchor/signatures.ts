/**
 * Signature and digest algorithms of a time-stamp token and its
 * certificates, checked with node:crypto (FORMAT.md 12): RSA PKCS#1 v1.5,
 * RSA-PSS (MGF1 with the same hash), ECDSA and EdDSA (Ed25519, Ed448),
 * with SHA-256, SHA-384 or SHA-512. SHA-1, MD5 and anything else are
 * refused with their name: a time-stamp is evidence for years, and a hash
 * with known collisions would let a token stand for another content.
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, SubjectPublicKeyInfo } from '@peculiar/asn1-x509';
import { childrenOf, contentsOf, readTlv } from './der.ts';

/** Hash algorithms by OID, with the name node:crypto knows them by (only the accepted ones have one). */
const HASHES: Readonly<Record<string, { readonly name: string; readonly node?: 'sha256' | 'sha384' | 'sha512' }>> = {
  '1.2.840.113549.2.5': { name: 'MD5' },
  '1.3.14.3.2.26': { name: 'SHA-1' },
  '2.16.840.1.101.3.4.2.4': { name: 'SHA-224' },
  '2.16.840.1.101.3.4.2.1': { name: 'SHA-256', node: 'sha256' },
  '2.16.840.1.101.3.4.2.2': { name: 'SHA-384', node: 'sha384' },
  '2.16.840.1.101.3.4.2.3': { name: 'SHA-512', node: 'sha512' },
  '2.16.840.1.101.3.4.2.5': { name: 'SHA-512/224' },
  '2.16.840.1.101.3.4.2.6': { name: 'SHA-512/256' },
  '2.16.840.1.101.3.4.2.7': { name: 'SHA3-224' },
  '2.16.840.1.101.3.4.2.8': { name: 'SHA3-256' },
  '2.16.840.1.101.3.4.2.9': { name: 'SHA3-384' },
  '2.16.840.1.101.3.4.2.10': { name: 'SHA3-512' },
};

export const SHA256_OID = '2.16.840.1.101.3.4.2.1';

/**
 * Rethrows the error a browser stand-in for node:crypto throws for what only Node can do (by name: it is
 * src/rederive/browser's NotInBrowserError, above this room): a check that cannot run here is not a token
 * that does not check, and the caller says "not re-derived here" rather than ANCHOR_UNREADABLE.
 */
export function rethrowNotInBrowser(error: unknown): void {
  if (error instanceof Error && error.name === 'NotInBrowserError') throw error;
}

/** A hash algorithm's name for a sentence: its common name, or its OID. */
export function hashName(oid: string): string {
  return HASHES[oid]?.name ?? `the algorithm ${oid}`;
}

/** The node:crypto name of an accepted hash (SHA-256, SHA-384, SHA-512), or a refusal's reason. */
export function acceptedHash(algorithm: AlgorithmIdentifier): { readonly hash: 'sha256' | 'sha384' | 'sha512' } | { readonly refused: string } {
  const known = HASHES[algorithm.algorithm];
  if (known?.node === undefined) return { refused: `${hashName(algorithm.algorithm)} is not an accepted digest (SHA-256, SHA-384 or SHA-512)` };
  if (!absentOrNull(algorithm.parameters)) return { refused: `${known.name} is given parameters` };
  return { hash: known.node };
}

function absentOrNull(parameters: ArrayBuffer | null | undefined): boolean {
  if (parameters === undefined || parameters === null) return true;
  const p = new Uint8Array(parameters);
  return p.length === 2 && p[0] === 0x05 && p[1] === 0x00;
}

const RSA = '1.2.840.113549.1.1.1';
const RSA_PSS = '1.2.840.113549.1.1.10';
const MGF1 = '1.2.840.113549.1.1.8';
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const ED25519 = '1.3.101.112';
const ED448 = '1.3.101.113';
/** Signature algorithms that name their hash. */
const WITH_HASH: Readonly<Record<string, { readonly family: 'rsa' | 'ecdsa'; readonly hash?: 'sha256' | 'sha384' | 'sha512'; readonly name: string }>> = {
  '1.2.840.113549.1.1.4': { family: 'rsa', name: 'md5WithRSAEncryption' },
  '1.2.840.113549.1.1.5': { family: 'rsa', name: 'sha1WithRSAEncryption' },
  '1.2.840.113549.1.1.11': { family: 'rsa', hash: 'sha256', name: 'sha256WithRSAEncryption' },
  '1.2.840.113549.1.1.12': { family: 'rsa', hash: 'sha384', name: 'sha384WithRSAEncryption' },
  '1.2.840.113549.1.1.13': { family: 'rsa', hash: 'sha512', name: 'sha512WithRSAEncryption' },
  '1.2.840.10045.4.1': { family: 'ecdsa', name: 'ecdsa-with-SHA1' },
  '1.2.840.10045.4.3.2': { family: 'ecdsa', hash: 'sha256', name: 'ecdsa-with-SHA256' },
  '1.2.840.10045.4.3.3': { family: 'ecdsa', hash: 'sha384', name: 'ecdsa-with-SHA384' },
  '1.2.840.10045.4.3.4': { family: 'ecdsa', hash: 'sha512', name: 'ecdsa-with-SHA512' },
};

/** A public key from a SubjectPublicKeyInfo, as node:crypto reads it. */
export function publicKeyOf(spki: SubjectPublicKeyInfo): KeyObject {
  return createPublicKey({ key: Buffer.from(AsnConvert.serialize(spki)), format: 'der', type: 'spki' });
}

/** The options of an RSA-PSS signature: its hash (MGF1 with the same), its salt length. */
function pssParameters(parameters: ArrayBuffer | null | undefined): { readonly hash: 'sha256' | 'sha384' | 'sha512'; readonly saltLength: number } {
  if (parameters === undefined || parameters === null) throw new Error('RSA-PSS without parameters means SHA-1, which is not accepted');
  const bytes = new Uint8Array(parameters);
  const outer = readTlv(bytes, 0);
  if (outer.tag !== 0x30 || outer.end !== bytes.length) throw new Error('RSA-PSS parameters are not one SEQUENCE');
  let hash: 'sha256' | 'sha384' | 'sha512' | undefined;
  let mgfHash: string | undefined;
  let saltLength = 20;
  for (const field of childrenOf(bytes, outer)) {
    const inner = readTlv(bytes, field.valueStart, field.end);
    const value = bytes.slice(inner.start, inner.end);
    if (field.tag === 0xa0) {
      const accepted = acceptedHash(AsnConvert.parse(value, AlgorithmIdentifier));
      if ('refused' in accepted) throw new Error(`RSA-PSS: ${accepted.refused}`);
      hash = accepted.hash;
    } else if (field.tag === 0xa1) {
      const mgf = AsnConvert.parse(value, AlgorithmIdentifier);
      if (mgf.algorithm !== MGF1 || !mgf.parameters) throw new Error(`RSA-PSS with the mask generation function ${mgf.algorithm} (only MGF1)`);
      const accepted = acceptedHash(AsnConvert.parse(mgf.parameters, AlgorithmIdentifier));
      if ('refused' in accepted) throw new Error(`RSA-PSS MGF1: ${accepted.refused}`);
      mgfHash = accepted.hash;
    } else if (field.tag === 0xa2) {
      if (inner.tag !== 0x02 || inner.end - inner.valueStart > 2) throw new Error('RSA-PSS salt length is not a small INTEGER');
      saltLength = contentsOf(bytes, inner).reduce((n, b) => n * 256 + b, 0);
    } else if (field.tag === 0xa3) {
      const trailer = contentsOf(bytes, inner);
      if (inner.tag !== 0x02 || trailer.length !== 1 || trailer[0] !== 1) throw new Error('RSA-PSS trailer field other than 1');
    } else throw new Error(`RSA-PSS parameters with an unknown field (tag 0x${field.tag.toString(16)})`);
  }
  if (hash === undefined) throw new Error('RSA-PSS with the default hash SHA-1, which is not accepted');
  if (mgfHash !== hash) throw new Error('RSA-PSS whose MGF1 hash is not its signature hash');
  return { hash, saltLength };
}

/**
 * Checks `signature` over `data` with `key` under `algorithm` (a certificate's signatureAlgorithm, or a
 * SignerInfo's signatureAlgorithm with its digestAlgorithm as `digest` for the algorithms that name none).
 * Returns null when it verifies, else the reason.
 */
export function checkSignature(algorithm: AlgorithmIdentifier, digest: 'sha256' | 'sha384' | 'sha512' | null, key: KeyObject, data: Uint8Array, signature: Uint8Array): string | null {
  try {
    const oid = algorithm.algorithm;
    let ok: boolean;
    const named = WITH_HASH[oid];
    if (named !== undefined) {
      if (named.hash === undefined) return `the signature algorithm ${named.name} is not accepted (its hash is broken)`;
      if (digest !== null && digest !== named.hash) return `the signature algorithm ${named.name} does not match the digest algorithm ${digest}`;
      if (key.asymmetricKeyType !== (named.family === 'rsa' ? 'rsa' : 'ec')) return `a ${key.asymmetricKeyType ?? 'unknown'} key cannot check a ${named.name} signature`;
      ok = verify(named.hash, data, key, signature);
    } else if (oid === RSA || oid === EC_PUBLIC_KEY) {
      if (digest === null) return `the signature algorithm ${oid} names no hash`;
      if (key.asymmetricKeyType !== (oid === RSA ? 'rsa' : 'ec')) return `a ${key.asymmetricKeyType ?? 'unknown'} key cannot check a ${oid === RSA ? 'RSA' : 'ECDSA'} signature`;
      ok = verify(digest, data, key, signature);
    } else if (oid === RSA_PSS) {
      const pss = pssParameters(algorithm.parameters);
      if (digest !== null && digest !== pss.hash) return 'the RSA-PSS hash does not match the digest algorithm';
      if (key.asymmetricKeyType !== 'rsa' && key.asymmetricKeyType !== 'rsa-pss') return `a ${key.asymmetricKeyType ?? 'unknown'} key cannot check an RSA-PSS signature`;
      ok = verify(pss.hash, data, { key, padding: 6 /* RSA_PKCS1_PSS_PADDING */, saltLength: pss.saltLength }, signature);
    } else if (oid === ED25519 || oid === ED448) {
      const type = oid === ED25519 ? 'ed25519' : 'ed448';
      if (key.asymmetricKeyType !== type) return `a ${key.asymmetricKeyType ?? 'unknown'} key cannot check an ${type} signature`;
      ok = verify(null, data, key, signature);
    } else return `the signature algorithm ${oid} is not supported`;
    return ok ? null : 'the signature does not verify';
  } catch (error) {
    rethrowNotInBrowser(error);
    return `the signature cannot be checked: ${error instanceof Error ? error.message : String(error)}`;
  }
}
