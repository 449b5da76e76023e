/**
 * The pure half of sealing (no disk access, so an importer and the import
 * re-derivation can run where there is no file system, e.g. a browser
 * worker): give a self-identifying object its id, and build a bundle's
 * manifest from its files. The manifest is written as its RFC 8785
 * canonical bytes, so that every single byte of it is significant (no
 * insignificant whitespace). seal.ts re-exports all of it and adds the
 * writing.
 */
import { Buffer } from 'node:buffer';
import { canonicalJson, digestBytes, selfId } from '../json/canonical.ts';
import { compareUtf8 } from '../json/compare.ts';
import { unsafePathReason } from './paths.ts';

/** Returns a copy of the object with its id member (first) set to its re-derived id. */
export function withSelfId<T extends Record<string, unknown>>(object: T, idMember: string): T {
  const rest: Record<string, unknown> = { ...object };
  delete rest[idMember];
  const { schema, ...others } = rest;
  const ordered = schema === undefined ? { [idMember]: selfId(rest, idMember), ...others } : { schema, [idMember]: selfId(rest, idMember), ...others };
  return ordered as T;
}

/** Bundle files by bundle-relative path (manifest.json excluded). */
export type BundleFiles = ReadonlyMap<string, Uint8Array>;

/** One manifest entry: a bundle-relative path, its digest and size. */
export interface ManifestFile {
  path: string;
  sha256: string;
  bytes: number;
}

/** The manifest object for a set of files, with its bundle_id. */
export function buildManifest(files: BundleFiles, planId: string): Record<string, unknown> {
  return manifestOf(
    [...files].map(([path, bytes]) => ({ path, sha256: digestBytes(bytes), bytes: bytes.length })),
    planId,
  );
}

/**
 * The manifest object for files already hashed (by `ledgerboard seal`), with
 * its bundle_id: entries sorted by UTF-8 byte order; an unsafe, reserved or
 * repeated path is refused (thrown), never sealed.
 */
export function manifestOf(files: readonly ManifestFile[], planId: string): Record<string, unknown> {
  const sorted = [...files].sort((a, b) => compareUtf8(a.path, b.path));
  const entries = sorted.map(({ path, sha256, bytes }, i) => {
    const reason = unsafePathReason(path);
    if (reason !== null || path === 'manifest.json') throw new Error(`cannot seal ${JSON.stringify(path)}: ${reason ?? 'reserved name'}`);
    if (i > 0 && sorted[i - 1]!.path === path) throw new Error(`cannot seal ${JSON.stringify(path)}: listed twice`);
    return { path, sha256, bytes };
  });
  return withSelfId({ schema: 'ledgerboard.manifest.v1', bundle_id: '', plan_id: planId, files: entries }, 'bundle_id');
}

/** Canonical manifest bytes for hashed files (RFC 8785, no final newline, as sealManifest). */
export function manifestBytesOf(files: readonly ManifestFile[], planId: string): Buffer {
  return Buffer.from(canonicalJson(manifestOf(files, planId)), 'utf8');
}

/** Canonical manifest bytes for a set of files. */
export function sealManifest(files: BundleFiles, planId: string): Buffer {
  return Buffer.from(canonicalJson(buildManifest(files, planId)), 'utf8');
}

/** Pretty JSON text (2-space indent, final newline) for evidence files written by tools. */
export function prettyJson(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

/** JSONL bytes: one compact object per line, final newline; empty input gives empty bytes. */
export function jsonlBytes(values: readonly unknown[]): Buffer {
  return Buffer.from(values.map((v) => `${JSON.stringify(v)}\n`).join(''), 'utf8');
}
