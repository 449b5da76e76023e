/**
 * RFC 8785 (JSON Canonicalization Scheme) serialization and the digests of
 * FORMAT.md section 1, through the `canonicalize` package (4.0.0), which
 * sorts members by UTF-16 code units and formats numbers as ECMAScript does.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The `sha256:<64 lowercase hex>` form of every digest in the format. */
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** RFC 8785 canonical text of a JSON value; throws on values JSON cannot hold (a bug, not evidence). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

/** The UTF-8 bytes of the canonical form. */
export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'utf8');
}

/** `sha256:<hex>` of raw bytes. */
export function digestBytes(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** `sha256:<hex>` of a value's canonical form (the id of a key object). */
export function digestCanonical(value: unknown): string {
  return digestBytes(canonicalBytes(value));
}

/**
 * The id of a self-identifying object: the digest of its canonical form with
 * the id member removed (FORMAT.md section 1).
 */
export function selfId(object: Record<string, unknown>, idMember: string): string {
  return digestCanonical(withoutMember(object, idMember));
}

/** A shallow copy without one member; an own `__proto__` member is copied as data, never as the prototype. */
export function withoutMember(object: Record<string, unknown>, member: string): Record<string, unknown> {
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    if (key === member) continue;
    Object.defineProperty(rest, key, { value: object[key], enumerable: true, writable: true, configurable: true });
  }
  return rest;
}

/** The 64 hex digits of a digest (for URLs and short display). */
export function digestHex(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice(7) : digest;
}

/** The short display form of a digest: its first 12 hex digits. */
export function shortDigest(digest: string | null): string {
  return digest === null ? '-' : digestHex(digest).slice(0, 12);
}
