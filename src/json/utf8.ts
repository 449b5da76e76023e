/**
 * Bytes to text for the strict parser: a fatal UTF-8 decode whose error (a
 * byte-order mark, an invalid sequence) carries the byte's line and column.
 * Valid input takes Node's native checks; only invalid input is walked byte
 * by byte, to find where it goes wrong.
 */

import { isAscii, isUtf8 } from 'node:buffer';
import type { JsonSyntaxError } from './strict-types.ts';

const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 fatally; a BOM or an invalid sequence is an error with its byte position. */
export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; error: JsonSyntaxError } {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { ok: false, error: { message: 'starts with a UTF-8 byte-order mark', line: 1, column: 1 } };
  }
  // Fast path: validate natively (simdutf), then decode without a second check. The same strings as
  // the fatal decoder gives for valid input (ignoreBOM: a BOM after the start is kept as U+FEFF).
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(buffer)) return { ok: true, text: buffer.toString('latin1') };
  if (isUtf8(buffer)) return { ok: true, text: buffer.toString('utf8') };
  try {
    return { ok: true, text: fatalDecoder.decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    return { ok: false, error: { message: 'invalid UTF-8', ...bytePosition(bytes, offset) } };
  }
}

/** 1-based line and column (in bytes) of a byte offset. */
export function bytePosition(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Offset of the first byte that starts an invalid UTF-8 sequence (RFC 3629: no overlongs, no surrogates). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
      cp = b & 0x07;
    } else {
      return i;
    }
    if (i + need >= n) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return n;
}
