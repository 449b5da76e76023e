/**
 * `node:crypto` for the in-browser verifier's worker (the bundle aliases
 * node:crypto and crypto to this file: scripts/bundle-browser-verifier.mjs).
 * Only what the re-derivation calls: a synchronous `createHash('sha256')`
 * (and 'md5' for an Every Eval Ever sidecar checksum)
 * with `update(string | bytes[, encoding])` and `digest('hex' | 'base64')`,
 * or `digest()` for the bytes (a Buffer, as Node returns). The browser's own
 * `crypto.subtle.digest` is asynchronous, and the core hashes synchronously
 * (src/json/canonical.ts, src/analysis/stats.ts), so SHA-256 (FIPS 180-4)
 * is written here in plain JavaScript over typed arrays: no allocation per
 * block or per byte, blocks read straight from the caller's bytes.
 *
 * `createPublicKey` (a SubjectPublicKeyInfo in DER) and `verify` serve the
 * time-stamp anchors' checks (src/anchor): `verify` answers only for a
 * signature the worker checked ahead with Web Crypto (signature-store.ts,
 * anchor-signatures.ts), and throws NotInBrowserError for any other.
 */
import { Buffer } from './buffer.ts';
import { NotInBrowserError } from './not-in-browser.ts';
import { answer, signatureId, type KeyStandIn } from './signature-store.ts';

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const INITIAL = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const encoder = new TextEncoder();

/** The compression function over every whole 64-byte block of `data` from `offset` to `end`: returns where it stopped. */
function compress(state: Int32Array, w: Int32Array, data: Uint8Array, offset: number, end: number): number {
  if (end - offset < 64) return offset;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let h0 = state[0]!;
  let h1 = state[1]!;
  let h2 = state[2]!;
  let h3 = state[3]!;
  let h4 = state[4]!;
  let h5 = state[5]!;
  let h6 = state[6]!;
  let h7 = state[7]!;
  let at = offset;
  while (end - at >= 64) {
    for (let i = 0; i < 16; i++, at += 4) w[i] = view.getInt32(at);
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    let f = h5;
    let g = h6;
    let h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (h + S1 + ch + K[i]! + w[i]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
    h5 = (h5 + f) | 0;
    h6 = (h6 + g) | 0;
    h7 = (h7 + h) | 0;
  }
  state[0] = h0;
  state[1] = h1;
  state[2] = h2;
  state[3] = h3;
  state[4] = h4;
  state[5] = h5;
  state[6] = h6;
  state[7] = h7;
  return at;
}

/** A string's bytes in the encodings the core passes (Node's default is UTF-8). */
function bytesOf(data: string | Uint8Array | ArrayBufferView, encoding?: string): Uint8Array {
  if (typeof data !== 'string') {
    if (data instanceof Uint8Array) return data;
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    throw new TypeError('update() takes a string or bytes');
  }
  const name = (encoding ?? 'utf8').toLowerCase();
  if (name === 'utf8' || name === 'utf-8') return encoder.encode(data);
  if (name === 'latin1' || name === 'binary' || name === 'hex' || name === 'base64' || name === 'ascii') return Buffer.from(data, name as BufferEncoding);
  throw new TypeError(`update(): the encoding ${encoding} is not supported in the browser`);
}

/** SHA-256 as Node's Hash object for it: update() any number of times, then digest() once. */
export class Sha256 {
  private readonly state = Int32Array.from(INITIAL);
  private readonly w = new Int32Array(64);
  private readonly pending = new Uint8Array(64);
  private pendingLength = 0;
  private length = 0;
  private finished = false;

  update(data: string | Uint8Array | ArrayBufferView, encoding?: string): this {
    if (this.finished) throw new Error('Digest already called');
    const bytes = bytesOf(data, encoding);
    let at = 0;
    const end = bytes.length;
    this.length += end;
    if (this.pendingLength > 0) {
      const take = Math.min(64 - this.pendingLength, end);
      this.pending.set(bytes.subarray(0, take), this.pendingLength);
      this.pendingLength += take;
      at = take;
      if (this.pendingLength < 64) return this;
      compress(this.state, this.w, this.pending, 0, 64);
      this.pendingLength = 0;
    }
    at = compress(this.state, this.w, bytes, at, end);
    if (at < end) {
      this.pending.set(bytes.subarray(at, end), 0);
      this.pendingLength = end - at;
    }
    return this;
  }

  digest(): Buffer;
  digest(encoding: 'hex' | 'base64'): string;
  digest(encoding?: 'hex' | 'base64'): Buffer | string {
    if (this.finished) throw new Error('Digest already called');
    this.finished = true;
    const block = this.pending;
    let used = this.pendingLength;
    block[used++] = 0x80;
    if (used > 56) {
      block.fill(0, used, 64);
      compress(this.state, this.w, block, 0, 64);
      used = 0;
    }
    block.fill(0, used, 56);
    // The message length in bits, big-endian, in the last 8 bytes (exact up to 2^53 bytes).
    const bits = this.length * 8;
    const high = Math.floor(bits / 0x100000000);
    const low = bits >>> 0;
    block[56] = high >>> 24;
    block[57] = high >>> 16;
    block[58] = high >>> 8;
    block[59] = high;
    block[60] = low >>> 24;
    block[61] = low >>> 16;
    block[62] = low >>> 8;
    block[63] = low;
    compress(this.state, this.w, block, 0, 64);
    const out = Buffer.alloc(32);
    for (let i = 0; i < 8; i++) {
      const v = this.state[i]!;
      out[i * 4] = v >>> 24;
      out[i * 4 + 1] = (v >>> 16) & 0xff;
      out[i * 4 + 2] = (v >>> 8) & 0xff;
      out[i * 4 + 3] = v & 0xff;
    }
    if (encoding === undefined) return out;
    if (encoding === 'hex') return hex(out);
    if (encoding === 'base64') return out.toString('base64');
    throw new TypeError(`digest(): the encoding ${String(encoding)} is not supported in the browser`);
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) text += HEX[bytes[i]!];
  return text;
}

/** MD5 (RFC 1321), only for an Every Eval Ever aggregate whose sidecar checksum is MD5 (src/import/eee/read.ts). */
const MD5_S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const MD5_K = Int32Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 0x100000000) | 0);

export class Md5 {
  private bytes: Uint8Array[] = [];
  private finished = false;

  update(data: string | Uint8Array | ArrayBufferView, encoding?: string): this {
    if (this.finished) throw new Error('Digest already called');
    this.bytes.push(Uint8Array.from(bytesOf(data, encoding)));
    return this;
  }

  digest(): Buffer;
  digest(encoding: 'hex' | 'base64'): string;
  digest(encoding?: 'hex' | 'base64'): Buffer | string {
    if (this.finished) throw new Error('Digest already called');
    this.finished = true;
    const length = this.bytes.reduce((n, b) => n + b.length, 0);
    const padded = new Uint8Array((((length + 8) >> 6) + 1) * 64);
    let at = 0;
    for (const b of this.bytes) {
      padded.set(b, at);
      at += b.length;
    }
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, (length * 8) >>> 0, true);
    view.setUint32(padded.length - 4, Math.floor((length * 8) / 0x100000000), true);
    let a0 = 0x67452301;
    let b0 = 0xefcdab89 | 0;
    let c0 = 0x98badcfe | 0;
    let d0 = 0x10325476;
    const m = new Int32Array(16);
    for (let block = 0; block < padded.length; block += 64) {
      for (let i = 0; i < 16; i++) m[i] = view.getInt32(block + i * 4, true);
      let a = a0;
      let b = b0;
      let c = c0;
      let d = d0;
      for (let i = 0; i < 64; i++) {
        let f: number;
        let g: number;
        if (i < 16) {
          f = (b & c) | (~b & d);
          g = i;
        } else if (i < 32) {
          f = (d & b) | (~d & c);
          g = (5 * i + 1) & 15;
        } else if (i < 48) {
          f = b ^ c ^ d;
          g = (3 * i + 5) & 15;
        } else {
          f = c ^ (b | ~d);
          g = (7 * i) & 15;
        }
        const shift = MD5_S[(i >> 4) * 4 + (i & 3)]!;
        const sum = (a + f + MD5_K[i]! + m[g]!) | 0;
        a = d;
        d = c;
        c = b;
        b = (b + ((sum << shift) | (sum >>> (32 - shift)))) | 0;
      }
      a0 = (a0 + a) | 0;
      b0 = (b0 + b) | 0;
      c0 = (c0 + c) | 0;
      d0 = (d0 + d) | 0;
    }
    const out = Buffer.alloc(16);
    const outView = new DataView(out.buffer, out.byteOffset, 16);
    [a0, b0, c0, d0].forEach((v, i) => outView.setInt32(i * 4, v, true));
    if (encoding === undefined) return out;
    if (encoding === 'hex') return hex(out);
    if (encoding === 'base64') return out.toString('base64');
    throw new TypeError(`digest(): the encoding ${String(encoding)} is not supported in the browser`);
  }
}

/**
 * `createHash('sha256')` (and 'md5', which an Every Eval Ever sidecar checksum may be); any other algorithm is
 * refused with a NotInBrowserError, so the core lists what needed it as not re-derived here.
 */
export function createHash(algorithm: 'md5'): Md5;
export function createHash(algorithm: string): Sha256;
export function createHash(algorithm: string): Sha256 | Md5 {
  const name = algorithm.toLowerCase();
  if (name === 'sha256') return new Sha256();
  if (name === 'md5') return new Md5();
  throw new NotInBrowserError(`createHash('${algorithm}') (only sha256 and md5 are in the browser build)`);
}

/** Anything else node:crypto exports that the core might reach: named, so the failure says what was missing. */
function notInBrowser(name: string): () => never {
  return () => {
    throw new NotInBrowserError(`node:crypto ${name}`);
  };
}

/** `randomBytes(n)` from the platform's CSPRNG (Web Crypto getRandomValues, at most 65,536 bytes a call). */
export function randomBytes(size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let at = 0; at < size; at += 65536) globalThis.crypto.getRandomValues(out.subarray(at, Math.min(size, at + 65536)));
  return out;
}

/** The DER of the OIDs a SubjectPublicKeyInfo names (hex), with node:crypto's key type or Web Crypto's curve. */
const KEY_TYPES: Readonly<Record<string, KeyStandIn['asymmetricKeyType']>> = {
  '06092a864886f70d010101': 'rsa',
  '06092a864886f70d01010a': 'rsa-pss',
  '06072a8648ce3d0201': 'ec',
  '06032b6570': 'ed25519',
  '06032b6571': 'ed448',
};
const CURVES: Readonly<Record<string, NonNullable<KeyStandIn['namedCurve']>>> = {
  '06082a8648ce3d030107': 'P-256',
  '06052b81040022': 'P-384',
  '06052b81040023': 'P-521',
};

/** A tag and length at `at` (short or long form, at most 4 length bytes): [tag, value start, end], or null. */
function tlvAt(bytes: Uint8Array, at: number, limit: number): [number, number, number] | null {
  if (at + 2 > limit) return null;
  const first = bytes[at + 1]!;
  let length = first;
  let start = at + 2;
  if (first >= 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4 || start + count > limit) return null;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
    start += count;
  }
  return start + length <= limit ? [bytes[at]!, start, start + length] : null;
}

/**
 * `createPublicKey({ key: <SPKI DER>, format: 'der', type: 'spki' })`: the key's type and bytes, for `verify`.
 * A key of another type, or input in another form, is a NotInBrowserError.
 */
export function createPublicKey(input: { key: Uint8Array; format?: string; type?: string }): KeyStandIn {
  if (input === null || typeof input !== 'object' || input.format !== 'der' || input.type !== 'spki' || !(input.key instanceof Uint8Array)) throw new NotInBrowserError('node:crypto createPublicKey (other than a DER SubjectPublicKeyInfo)');
  const spki = Uint8Array.from(input.key);
  const outer = tlvAt(spki, 0, spki.length);
  const algorithm = outer !== null && outer[0] === 0x30 && outer[2] === spki.length ? tlvAt(spki, outer[1], outer[2]) : null;
  const oid = algorithm !== null && algorithm[0] === 0x30 ? tlvAt(spki, algorithm[1], algorithm[2]) : null;
  const type = oid === null || oid[0] !== 0x06 ? undefined : KEY_TYPES[hex(spki.subarray(algorithm![1], oid[2]))];
  if (type === undefined) throw new NotInBrowserError('node:crypto createPublicKey (a key of a type the browser build does not know)');
  if (type !== 'ec') return { type: 'public', asymmetricKeyType: type, spki };
  const curve = tlvAt(spki, oid![2], algorithm![2]);
  const namedCurve = curve === null ? undefined : CURVES[hex(spki.subarray(oid![2], curve[2]))];
  return namedCurve === undefined ? { type: 'public', asymmetricKeyType: type, spki } : { type: 'public', asymmetricKeyType: type, namedCurve, spki };
}

const sha256Hex = (bytes: Uint8Array): string => new Sha256().update(bytes).digest('hex');

/**
 * `verify(algorithm, data, key | { key, padding, saltLength }, signature)`: the answer Web Crypto gave when the
 * worker checked this signature ahead (signature-store.ts); any other signature is a NotInBrowserError.
 */
export function verify(algorithm: string | null | undefined, data: Uint8Array, key: KeyStandIn | { key: KeyStandIn; padding?: number; saltLength?: number }, signature: Uint8Array): boolean {
  const plain = 'spki' in key ? key : key.key;
  if (plain === undefined || !('spki' in plain)) throw new NotInBrowserError('node:crypto verify (with a key not made by createPublicKey)');
  const pss = 'spki' in key ? null : key.padding === 6 ? (key.saltLength ?? null) : null;
  if (!('spki' in key) && key.padding !== undefined && key.padding !== 6) throw new NotInBrowserError(`node:crypto verify (padding ${key.padding})`);
  const name = algorithm === undefined || algorithm === null ? null : algorithm.toLowerCase();
  return answer({ id: signatureId(sha256Hex, name, pss, plain, data, signature), algorithm: name, pssSaltLength: pss, key: plain, data, signature });
}

export const createPrivateKey = notInBrowser('createPrivateKey');
export const generateKeyPairSync = notInBrowser('generateKeyPairSync');
export const sign = notInBrowser('sign');

export default { createHash, randomBytes, createPublicKey, createPrivateKey, generateKeyPairSync, sign, verify };
