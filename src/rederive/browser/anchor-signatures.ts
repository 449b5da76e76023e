/**
 * The time-stamp tokens' signatures, checked ahead with Web Crypto in the
 * in-browser verifier's worker (issue 30; signature-store.ts says why): for
 * each token, the synchronous check (checkAnchorToken) is run with the
 * signatures known so far; each signature it asks for is checked with
 * crypto.subtle and recorded, and the check runs again, until it asks for
 * nothing new (at most {@link MAX_ROUNDS} rounds a token). Web Crypto checks
 * RSASSA-PKCS1-v1_5, RSA-PSS (with an rsaEncryption key), ECDSA on P-256,
 * P-384 and P-521 and Ed25519; anything else it cannot import or check is
 * recorded as "cannot check here", so the check says "not re-derived here",
 * never a verdict it did not make.
 */
import { checkAnchorToken, type PinnedRoot } from '../../anchor/check.ts';
import { isNotInBrowser } from './not-in-browser.ts';
import { record, takePending, type SignatureRequest } from './signature-store.ts';

/** The most rounds one token's check takes: one signature is learnt a round (its own, then one a link of its chain). */
export const MAX_ROUNDS = 64;

const HASHES: Readonly<Record<string, string>> = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' };
const CURVE_BYTES: Readonly<Record<string, number>> = { 'P-256': 32, 'P-384': 48, 'P-521': 66 };

/**
 * An ECDSA-Sig-Value (DER SEQUENCE of two INTEGERs, as node:crypto takes it) as Web Crypto's r || s, each
 * `size` bytes; null when it is not strict DER or a value does not fit (node:crypto answers false then).
 */
export function ecdsaRaw(der: Uint8Array, size: number): Uint8Array | null {
  const read = (at: number, limit: number): [number, number, number] | null => {
    if (at + 2 > limit) return null;
    const first = der[at + 1]!;
    let length = first;
    let start = at + 2;
    if (first === 0x81) {
      if (start + 1 > limit || der[start]! < 0x80) return null;
      length = der[start]!;
      start++;
    } else if (first >= 0x80) return null;
    return start + length <= limit ? [der[at]!, start, start + length] : null;
  };
  const outer = read(0, der.length);
  if (outer === null || outer[0] !== 0x30 || outer[2] !== der.length) return null;
  const out = new Uint8Array(size * 2);
  let at = outer[1];
  for (let part = 0; part < 2; part++) {
    const int = read(at, outer[2]);
    if (int === null || int[0] !== 0x02 || int[2] === int[1]) return null;
    let value = der.subarray(int[1], int[2]);
    if (value[0]! & 0x80) return null; // negative
    if (value[0] === 0 && value.length > 1) {
      if (!(value[1]! & 0x80)) return null; // not minimal
      value = value.subarray(1);
    }
    if (value.length > size) return null;
    out.set(value, part * size + size - value.length);
    at = int[2];
  }
  return at === outer[2] ? out : null;
}

/** A copy of the bytes in an ArrayBuffer of their own (a Buffer's slice() is a view into a shared pool). */
const buffer = (bytes: Uint8Array): ArrayBuffer => Uint8Array.from(bytes).buffer;

/** Web Crypto's answer for one signature: true or false, or null when it cannot check it here. */
export async function checkWithSubtle(request: SignatureRequest, subtle: SubtleCrypto = globalThis.crypto.subtle): Promise<boolean | null> {
  const { key, algorithm, pssSaltLength } = request;
  const hash = algorithm === null ? undefined : HASHES[algorithm];
  let importAs: RsaHashedImportParams | EcKeyImportParams | Algorithm;
  let verifyAs: Algorithm | RsaPssParams | EcdsaParams;
  let signature = request.signature;
  if (key.asymmetricKeyType === 'rsa' && hash !== undefined) {
    const name = pssSaltLength === null ? 'RSASSA-PKCS1-v1_5' : 'RSA-PSS';
    importAs = { name, hash };
    verifyAs = pssSaltLength === null ? { name } : { name, saltLength: pssSaltLength };
  } else if (key.asymmetricKeyType === 'ec' && hash !== undefined && key.namedCurve !== undefined && pssSaltLength === null) {
    importAs = { name: 'ECDSA', namedCurve: key.namedCurve };
    verifyAs = { name: 'ECDSA', hash };
    const raw = ecdsaRaw(request.signature, CURVE_BYTES[key.namedCurve]!);
    if (raw === null) return false;
    signature = raw;
  } else if (key.asymmetricKeyType === 'ed25519' && algorithm === null && pssSaltLength === null) {
    importAs = { name: 'Ed25519' };
    verifyAs = { name: 'Ed25519' };
  } else return null;
  let cryptoKey: CryptoKey;
  try {
    cryptoKey = await subtle.importKey('spki', buffer(key.spki), importAs, false, ['verify']);
  } catch {
    return null; // a key Web Crypto will not import here (an RSA-PSS-only key, a curve it lacks): not a verdict
  }
  try {
    return await subtle.verify(verifyAs, cryptoKey, buffer(signature), buffer(request.data));
  } catch {
    return null;
  }
}

/**
 * Checks ahead every signature the tokens' checks ask for (see the module comment), so that checkAnchorToken
 * then answers synchronously. `planIdHex` is the plan the tokens should be over (null: any, the check stops at
 * the imprint and the chain is not asked for). Never throws for a token's bytes.
 */
export async function prepareAnchorSignatures(tokens: readonly { readonly bytes: Uint8Array }[], planIdHex: string | null, roots: readonly PinnedRoot[], subtle?: SubtleCrypto): Promise<void> {
  const plan = planIdHex ?? '0'.repeat(64);
  for (const token of tokens) {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        checkAnchorToken(token.bytes, plan, roots);
        break;
      } catch (error) {
        if (!isNotInBrowser(error)) throw error;
      }
      const asked = takePending();
      if (asked.length === 0) break; // something else only Node can do: the check will say so
      for (const request of asked) record(request.id, await checkWithSubtle(request, subtle));
    }
  }
}
