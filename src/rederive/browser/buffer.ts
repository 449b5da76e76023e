/**
 * `node:buffer` for the in-browser verifier's worker: Buffer from the npm
 * `buffer` package (feross/buffer, the browser's usual stand-in), its UTF-8
 * and Latin-1 paths put on the platform's TextDecoder/TextEncoder (the
 * package decodes byte by byte in JavaScript), and `isAscii` / `isUtf8` as
 * Node has them (since 18.14/19.4): UTF-8 checked by a fatal TextDecoder.
 */
import { Buffer } from 'buffer';

export { Buffer };

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
const utf8Fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

function view(input: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  return new Uint8Array(input);
}

/** Whether every byte is below 0x80 (node:buffer isAscii). */
export function isAscii(input: ArrayBuffer | ArrayBufferView): boolean {
  const bytes = view(input);
  // Eight bytes at a time where the view is aligned, the rest one by one.
  let i = 0;
  const n = bytes.length;
  if (bytes.byteOffset % 4 === 0 && n >= 16) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, n >>> 2);
    for (let w = 0; w < words.length; w++) if (words[w]! & 0x80808080) return false;
    i = words.length << 2;
  }
  for (; i < n; i++) if (bytes[i]! & 0x80) return false;
  return true;
}

/** Whether the bytes are well-formed UTF-8 (node:buffer isUtf8): a fatal TextDecoder decodes them. */
export function isUtf8(input: ArrayBuffer | ArrayBufferView): boolean {
  try {
    utf8Fatal.decode(view(input));
    return true;
  } catch {
    return false;
  }
}

/** Latin-1: each byte one code unit, 8 KiB per fromCharCode call. */
function latin1(bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let at = start; at < end; at += 8192) text += String.fromCharCode.apply(null, bytes.subarray(at, Math.min(end, at + 8192)) as unknown as number[]);
  return text;
}

type Proto = {
  utf8Slice(this: Uint8Array, start?: number, end?: number): string;
  latin1Slice(this: Uint8Array, start?: number, end?: number): string;
  utf8Write(this: Uint8Array, string: string, offset?: number, length?: number): number;
  toString(this: Uint8Array, encoding?: string, start?: number, end?: number): string;
};
const proto = Buffer.prototype as unknown as Proto;
const packageToString = proto.toString;

function bounds(bytes: Uint8Array, start?: number, end?: number): [number, number] {
  const s = Math.max(0, Math.min(bytes.length, start ?? 0));
  const e = Math.max(s, Math.min(bytes.length, end ?? bytes.length));
  return [s, e];
}

// Node has these on Buffer.prototype; src/json and src/bundle call them directly when they exist.
proto.utf8Slice = function (start, end) {
  const [s, e] = bounds(this, start, end);
  return utf8.decode(this.subarray(s, e));
};
proto.latin1Slice = function (start, end) {
  const [s, e] = bounds(this, start, end);
  return latin1(this, s, e);
};
proto.utf8Write = function (string, offset = 0, length) {
  const end = length === undefined ? this.length : Math.min(this.length, offset + length);
  return encoder.encodeInto(string, this.subarray(offset, end)).written;
};
proto.toString = function (encoding, start, end) {
  const name = encoding === undefined ? 'utf8' : String(encoding).toLowerCase();
  if (name === 'utf8' || name === 'utf-8') return proto.utf8Slice.call(this, start, end);
  if (name === 'latin1' || name === 'binary') return proto.latin1Slice.call(this, start, end);
  return packageToString.call(this, encoding, start, end);
};

// Buffer.byteLength of a UTF-8 string without encoding it (the package builds an array of its bytes).
const packageByteLength = Buffer.byteLength.bind(Buffer);
(Buffer as unknown as { byteLength: (value: unknown, encoding?: string) => number }).byteLength = (value, encoding) => {
  if (typeof value !== 'string' || (encoding !== undefined && !/^utf-?8$/i.test(encoding))) return packageByteLength(value as string, encoding as BufferEncoding);
  let bytes = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3; // a lone surrogate is written as U+FFFD (3 bytes), as Node does
  }
  return bytes;
};

export default { Buffer, isAscii, isUtf8 };
