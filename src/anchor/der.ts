/**
 * The DER framing of a time-stamp token (FORMAT.md 12): tags and lengths
 * only, never the meaning of a value (that is @peculiar/asn1-*'s). Used to
 * refuse what a BER reader would forgive (indefinite or non-minimal
 * lengths, trailing bytes, a constructed value its children do not fill
 * exactly) and to slice the exact bytes a signature covers: the signed
 * attributes and a certificate's tbsCertificate, which must be checked as
 * they were signed, never as re-encoded.
 */
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** One tag-length-value: where it starts, where its value starts and where it ends (exclusive). */
export interface Tlv {
  /** The identifier octet (tag class, constructed bit, tag number below 31). */
  readonly tag: number;
  readonly start: number;
  readonly valueStart: number;
  readonly end: number;
}

/** A DER framing error, with the reason and the byte offset. */
/** Bytes that break the DER rules (internal: a token check turns it into ANCHOR_UNREADABLE). */
export class DerError extends LedgerboardError {
  static override readonly code: string = 'DER_MALFORMED';
  static override readonly exitStatus = EXIT_STATUS.internal;
}

/** How deep constructed values may nest: far beyond a real token (about 12), a bound on the recursion. */
export const MAX_DER_DEPTH = 64;

/** The tag-length-value at `offset`, which must end by `limit`: definite, minimal lengths, one-octet tags. */
export function readTlv(bytes: Uint8Array, offset: number, limit: number = bytes.length): Tlv {
  if (offset + 2 > limit) throw new DerError(`truncated: a value at byte ${offset} has no room for its tag and length`);
  const tag = bytes[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError(`a multi-octet tag at byte ${offset} (none is used by a time-stamp token)`);
  const first = bytes[offset + 1]!;
  let length: number;
  let valueStart: number;
  if (first < 0x80) {
    length = first;
    valueStart = offset + 2;
  } else if (first === 0x80) {
    throw new DerError(`an indefinite length at byte ${offset + 1} (BER, not DER)`);
  } else {
    const count = first & 0x7f;
    if (count > 4) throw new DerError(`a length of ${count} octets at byte ${offset + 1}`);
    if (offset + 2 + count > limit) throw new DerError(`truncated: the length at byte ${offset + 1} runs past the end`);
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i]!;
    if (bytes[offset + 2] === 0 || length < 0x80) throw new DerError(`a non-minimal length at byte ${offset + 1} (BER, not DER)`);
    valueStart = offset + 2 + count;
  }
  const end = valueStart + length;
  if (end > limit) throw new DerError(`truncated: the value at byte ${offset} needs ${end - limit} more bytes`);
  return { tag, start: offset, valueStart, end };
}

/** The children of a constructed value, which must fill it exactly. */
export function childrenOf(bytes: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.valueStart; at < parent.end; ) {
    const child = readTlv(bytes, at, parent.end);
    out.push(child);
    at = child.end;
  }
  return out;
}

/**
 * Checks that `bytes` are exactly one DER value, every constructed value inside exactly filled by its
 * children (to {@link MAX_DER_DEPTH}); returns the outer value. Primitive values are not looked into
 * (an OCTET STRING holding DER is checked by its own call).
 */
export function checkDer(bytes: Uint8Array): Tlv {
  const outer = readTlv(bytes, 0);
  if (outer.end !== bytes.length) throw new DerError(`${bytes.length - outer.end} trailing bytes after the DER value`);
  const walk = (tlv: Tlv, depth: number): void => {
    if ((tlv.tag & 0x20) === 0) return;
    if (depth > MAX_DER_DEPTH) throw new DerError(`values nested deeper than ${MAX_DER_DEPTH}`);
    for (const child of childrenOf(bytes, tlv)) walk(child, depth + 1);
  };
  walk(outer, 0);
  return outer;
}

/** The bytes of a value, tag and length included. */
export function bytesOf(bytes: Uint8Array, tlv: Tlv): Uint8Array {
  return bytes.subarray(tlv.start, tlv.end);
}

/** The bytes of a value's contents. */
export function contentsOf(bytes: Uint8Array, tlv: Tlv): Uint8Array {
  return bytes.subarray(tlv.valueStart, tlv.end);
}
