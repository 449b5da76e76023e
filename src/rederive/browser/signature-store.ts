/**
 * The signatures the in-browser verifier checked ahead of the synchronous
 * re-derivation (issue 30): node:crypto's `verify` is synchronous, Web
 * Crypto's is not, so the worker first runs each time-stamp token's check
 * with this store empty, collects the signature each check asks for
 * (`verify` records it and throws NotInBrowserError), checks them with
 * crypto.subtle (anchor-signatures.ts), and runs the check again until it
 * asks for nothing new. The stand-in's `verify` (crypto.ts) then answers
 * from here; a signature never checked ahead still throws, so the answer is
 * never a guess.
 *
 * A signature is keyed by everything that decides it: the algorithm, the
 * RSA-PSS salt length, and the SHA-256 of the key's SubjectPublicKeyInfo, of
 * the signed bytes and of the signature (sha256.ts, synchronous).
 */
import { NotInBrowserError } from './not-in-browser.ts';

/** A public key as the stand-in's createPublicKey makes it: its node:crypto type and its SubjectPublicKeyInfo DER. */
export interface KeyStandIn {
  readonly type: 'public';
  readonly asymmetricKeyType: 'rsa' | 'rsa-pss' | 'ec' | 'ed25519' | 'ed448';
  /** For an EC key, its named curve as Web Crypto names it (P-256, P-384, P-521), when known. */
  readonly namedCurve?: 'P-256' | 'P-384' | 'P-521';
  readonly spki: Uint8Array;
}

/** One signature a check asked for. */
export interface SignatureRequest {
  readonly id: string;
  /** node:crypto's digest name (sha256, sha384, sha512), or null for EdDSA. */
  readonly algorithm: string | null;
  /** The RSA-PSS salt length when the padding is PSS; null for any other signature. */
  readonly pssSaltLength: number | null;
  readonly key: KeyStandIn;
  readonly data: Uint8Array;
  readonly signature: Uint8Array;
}

const answers = new Map<string, boolean>();
const cannot = new Set<string>();
const pending = new Map<string, SignatureRequest>();

/** The store's key of a signature (hash: a synchronous SHA-256 of bytes to hex). */
export function signatureId(hash: (bytes: Uint8Array) => string, algorithm: string | null, pssSaltLength: number | null, key: KeyStandIn, data: Uint8Array, signature: Uint8Array): string {
  return [algorithm ?? 'none', pssSaltLength ?? '-', hash(key.spki), hash(data), hash(signature)].join(' ');
}

/** The answer for a signature checked ahead; else records it as asked for and throws NotInBrowserError. */
export function answer(request: SignatureRequest): boolean {
  const known = answers.get(request.id);
  if (known !== undefined) return known;
  if (!cannot.has(request.id)) pending.set(request.id, { ...request, data: Uint8Array.from(request.data), signature: Uint8Array.from(request.signature) });
  throw new NotInBrowserError(cannot.has(request.id) ? 'node:crypto verify (a signature Web Crypto cannot check here)' : 'node:crypto verify (a signature not checked ahead)');
}

/** The signatures asked for since the last call, now handed to the caller. */
export function takePending(): SignatureRequest[] {
  const all = [...pending.values()];
  pending.clear();
  return all;
}

/** Records Web Crypto's answer for a signature; `null`: it cannot check it here (the check keeps throwing NotInBrowserError). */
export function record(id: string, ok: boolean | null): void {
  if (ok === null) cannot.add(id);
  else answers.set(id, ok);
}

/** How many signatures have an answer (for tests). */
export function answered(): number {
  return answers.size;
}
