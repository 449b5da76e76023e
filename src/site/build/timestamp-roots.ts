/**
 * The time-stamp authorities' roots the config pins (`timestamp_roots`,
 * FORMAT.md 12), published so a stranger checks an anchor with the same
 * roots the build used: each certificate at
 * `/timestamp-roots/<hex>.pem`, where hex is the SHA-256 of its DER (the
 * digest the report's config records), one PEM block made from the DER
 * (src/anchor/pem.ts), so the bytes depend on the certificate alone.
 */
import { rootDigest, type PinnedRoot } from '../../anchor/check.ts';
import { certificatePem } from '../../anchor/pem.ts';

/** The URL path of a pinned root's file, from its digest (`sha256:<hex>`). */
export function timestampRootPath(digest: string): string {
  if (!/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`not a certificate digest: ${JSON.stringify(digest)}`);
  return `/timestamp-roots/${digest.slice(7)}.pem`;
}

/** The files of the pinned roots: one per distinct certificate, by path order (hex); none without roots. */
export function timestampRootFiles(roots: readonly PinnedRoot[]): { path: string; text: string }[] {
  const byPath = new Map<string, string>();
  for (const root of roots) byPath.set(timestampRootPath(rootDigest(root)), certificatePem(root.der));
  return [...byPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, text]) => ({ path, text }));
}
