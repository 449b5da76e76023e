/**
 * Where evidence bytes are published (docs/site.md, "Evidence: blobs and
 * bundle directories"). No published name or extension comes from evidence:
 *
 * - every published file's bytes once, at `/blobs/<sha256-hex>` (no
 *   extension, so a static host serves them as application/octet-stream and
 *   a browser never runs them as a page or a script on the site's origin);
 * - `/bundles/<dir-hex>/manifest.json`: the bundle's own manifest.json bytes
 *   (a fixed name: it maps paths to digests);
 * - `/bundles/<dir-hex>/files.json`: what ledgerboard read (every entry's
 *   path, kind, bytes and sha256, in the order the content digest hashes),
 *   from which the bundle's content_digest re-derives.
 */
import { constants } from 'node:fs';
import { copyFile, mkdir, open, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { canonicalJson } from '../json/canonical.ts';
import type { BundleEntry } from '../pipeline/verify-paths.ts';
import { hexOf } from './format.ts';
import { EvidenceChangedError } from './build-errors.ts';

/** The URL path of a file's bytes: its digest, nothing else. */
export function blobUrl(sha256: string): string {
  return `/blobs/${hexOf(sha256)}`;
}

/** The URL path of a bundle's manifest.json (the bundle's own bytes). */
export function manifestUrl(dirHex: string): string {
  return `/bundles/${dirHex}/manifest.json`;
}

/** The URL path of the listing of what ledgerboard read in a bundle (files.json). */
export function listingUrl(dirHex: string): string {
  return `/bundles/${dirHex}/files.json`;
}

/** One entry of files.json. */
export interface ListingEntry {
  path: string;
  kind: BundleEntry['kind'];
  bytes: number | null;
  sha256: string | null;
}

/**
 * files.json: `{ content_digest, entries }`, RFC 8785 plus a newline. The
 * content digest is the SHA-256 of the RFC 8785 form of
 * `[[path, kind, sha256], ...]` over `entries` in their order (verify-directory.ts
 * contentDigest), so it re-derives from this file alone.
 */
export function listingText(contentDigest: string, entries: readonly BundleEntry[]): string {
  const listed: ListingEntry[] = entries.map((e) => ({ path: e.path, kind: e.kind, bytes: e.bytes, sha256: e.sha256 }));
  return `${canonicalJson({ content_digest: contentDigest, entries: listed })}\n`;
}

/** What writeEvidence needs of a bundle (a SiteBundle has all of it). */
export interface PublishedBundle {
  dirHex: string;
  content_digest: string;
  sourceDir: string;
  entries: readonly BundleEntry[];
  /** The files to publish: regular files read with a digest (never a link, a name that is not UTF-8, or an unreadable file). */
  files: readonly { path: string; sha256: string }[];
}

/**
 * Writes the blobs, manifests and listings of every bundle under `dir`;
 * returns how many files it wrote. A digest already written is not written
 * again (one copy per distinct digest across all bundles).
 */
export async function writeEvidence(bundles: readonly PublishedBundle[], dir: string): Promise<number> {
  const written = new Set<string>();
  let count = 0;
  await mkdir(join(dir, 'blobs'), { recursive: true });
  for (const bundle of bundles) {
    for (const file of bundle.files) {
      const hex = hexOf(file.sha256);
      if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a SHA-256 digest: ${JSON.stringify(file.sha256)}`);
      if (written.has(hex)) continue;
      await copyVerified(join(bundle.sourceDir, ...file.path.split('/')), join(dir, 'blobs', hex), file.sha256);
      written.add(hex);
      count++;
    }
    const bundleDir = join(dir, 'bundles', bundle.dirHex);
    await mkdir(bundleDir, { recursive: true });
    const manifest = bundle.files.find((f) => f.path === 'manifest.json');
    if (manifest) {
      await copyFile(join(dir, 'blobs', hexOf(manifest.sha256)), join(bundleDir, 'manifest.json'));
      count++;
    }
    await writeFile(join(bundleDir, 'files.json'), listingText(bundle.content_digest, bundle.entries));
    count++;
  }
  return count;
}

/** Files up to this size are copied with one read and one write. */
const SMALL_FILE = 1 << 20;

/**
 * Copies one evidence file byte for byte, never following a link, and checks
 * the copy hashes to what verification saw (evidence changing during the
 * build is an error, not a silent republish).
 */
export async function copyVerified(source: string, destination: string, sha256: string): Promise<void> {
  const handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw new EvidenceChangedError(source, `it can no longer be opened (${error.code ?? 'error'})`);
  });
  const hash = createHash('sha256');
  try {
    const { size } = await handle.stat();
    if (size <= SMALL_FILE) {
      // Most evidence files are small: one read and one write, without a stream per file.
      const bytes = await handle.readFile();
      hash.update(bytes);
      await writeFile(destination, bytes);
    } else {
      const out = await open(destination, 'w');
      try {
        for await (const chunk of handle.createReadStream({ autoClose: false, highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
          hash.update(chunk);
          await out.write(chunk);
        }
      } finally {
        await out.close();
      }
    }
  } finally {
    await handle.close();
  }
  const copied = `sha256:${hash.digest('hex')}`;
  if (copied !== sha256) throw new EvidenceChangedError(source, `it now hashes to ${copied}, verification saw ${sha256}`);
}
