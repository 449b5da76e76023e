/**
 * `node:zlib` for the in-browser verifier's worker: `crc32` only (the CRC-32
 * of ISO 3309 / ITU-T V.42, as zlib's, with an optional running value), which
 * src/import/inspect/zip.ts checks a zip member by. Anything else is refused
 * as not available in the browser.
 */
import { NotInBrowserError } from './not-in-browser.ts';

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

const encoder = new TextEncoder();

/** zlib's crc32(data, value = 0): an unsigned 32-bit integer; a string is hashed as its UTF-8 bytes. */
export function crc32(data: string | Uint8Array | ArrayBufferView, value = 0): number {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  let c = ~value;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

function notInBrowser(name: string): () => never {
  return () => {
    throw new NotInBrowserError(`node:zlib ${name}`);
  };
}

export const inflateRawSync = notInBrowser('inflateRawSync');
export const createInflateRaw = notInBrowser('createInflateRaw');
export const gunzipSync = notInBrowser('gunzipSync');

export default { crc32, inflateRawSync, createInflateRaw, gunzipSync };
