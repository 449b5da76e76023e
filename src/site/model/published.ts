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
 *
 * Withheld files (the config's `withhold`, src/config/withhold.ts) are listed
 * with their digest, size and reason, and their bytes are never written: not
 * at their own blob URL, and not through another file with the same bytes
 * (a digest one withheld file has is withheld wherever it appears), unless
 * those bytes are also a file that is never withheld (manifest.json,
 * plan.json, ...), which a stranger needs: then they are published and the
 * build says the rule could not hold them back.
 *
 * This file holds the published shapes and URLs (pure: the site model's room); publishing
 * the bytes (publishedOf's reader, writeEvidence, copyVerified, readVerified) is the build's,
 * src/site/build/publish.ts.
 */
import { canonicalJson } from '../../json/canonical.ts';
import type { BundleEvidence } from '../../bundle/evidence.ts';
import { hexOf } from '../views/format.ts';

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

/** An entry of a bundle as read: path, kind, and for a readable regular file its size and digest (the pipeline's entries have all of it). */
export interface ReadEntry {
  path: string;
  kind: string;
  sha256: string | null;
  bytes: number | null;
  /** True when the name on disk is not UTF-8 (the path shows U+FFFD). */
  badName: boolean;
}

/** A bundle as read, as far as publishing needs it: where it was read from (never published), its content digest and its entries. */
export interface ReadBundle {
  path: string;
  content_digest: string;
  entries: readonly ReadEntry[];
  /** The verification the build holds for these bytes, when it has one: a verified bundle's evidence is read from it, not parsed again. */
  verification?: { status: string; evidence: BundleEvidence };
}

/** One entry of files.json. */
export interface ListingEntry {
  path: string;
  kind: string;
  bytes: number | null;
  sha256: string | null;
  /** Present (true) when the name on disk is not UTF-8 (the path shows U+FFFD). */
  bad_name?: true;
}

/**
 * files.json: `{ content_digest, entries }`, RFC 8785 plus a newline. The
 * content digest is the SHA-256 of the RFC 8785 form of
 * `[[path, kind, sha256], ...]` over `entries` in their order (verify-directory.ts
 * contentDigest), so it re-derives from this file alone.
 */
export function listingText(contentDigest: string, entries: readonly ReadEntry[]): string {
  // bad_name only where the name on disk is not UTF-8 (the verifier needs it to judge the entry again; absent elsewhere, so listings stay as they were).
  const listed: ListingEntry[] = entries.map((e) => ({ path: e.path, kind: e.kind, bytes: e.bytes, sha256: e.sha256, ...(e.badName ? { bad_name: true as const } : {}) }));
  return `${canonicalJson({ content_digest: contentDigest, entries: listed })}\n`;
}

/** A file of a bundle as the site publishes it. */
export interface SiteFile {
  path: string;
  /** Where its bytes are: /blobs/<sha256-hex>, from the digest alone (never from the path). */
  url: string;
  bytes: number;
  sha256: string;
}

/** A file whose bytes are withheld (config `withhold`): its digest and size stay public. */
export interface WithheldFile {
  path: string;
  bytes: number;
  sha256: string;
  reason: string;
  until: string | null;
}

/** A bundle as the build publishes it: its directory on the site, its listing and its files. */
export interface PublishedBundle {
  /** The hex of /bundles/<dirHex>/: the bundle_id when verified, else the content digest. */
  dirHex: string;
  content_digest: string;
  /** Where the bundle was read from; never published (a bundle is known by its id). */
  sourceDir: string;
  /** Every entry as read, in content-digest order: /bundles/<dirHex>/files.json. */
  entries: readonly ReadEntry[];
  /** The files published at their blob URL: regular files read with a digest (never a link, a name that is not UTF-8, or an unreadable file). */
  files: SiteFile[];
  /** Entries whose bytes are not published: not a regular file, a name that is not UTF-8, or unreadable. */
  unpublished: string[];
  /** Regular files whose bytes are withheld by a rule (or share their bytes with a withheld file), in entry order. */
  withheld: WithheldFile[];
  /** /bundles/<dirHex>/manifest.json, when the bundle has a readable manifest.json file (the bundle's own bytes). */
  manifestUrl: string | null;
  listingUrl: string;
}

/**
 * What a build publishes besides the pages: every bundle of the report (in
 * report order) with its files, and the bytes of any published blob, read
 * from the evidence and checked against the digest verification saw
 * (EvidenceChangedError otherwise). The site model is built from this and
 * the report only (docs/architecture.md).
 */
export interface Published {
  bundles: PublishedBundle[];
  /** The bytes published at /blobs/<hex of sha256>. */
  blob(sha256: string): Promise<Uint8Array>;
  /** Withhold rules that matched no file (a warning: a typo keeps nothing back). */
  unmatchedRules: string[];
  /** Withheld bytes published anyway, because a file that is never withheld has them too. */
  notWithheld: { path: string; sha256: string; because: string }[];
}

/** /withheld.json: every withheld file of every bundle (bundle directory hex, path, sha256, bytes, reason, until), RFC 8785 plus a newline. */
export function withheldJson(bundles: readonly Pick<PublishedBundle, 'dirHex' | 'withheld'>[]): string {
  const files = bundles.flatMap((b) => b.withheld.map((w) => ({ bundle: b.dirHex, ...w })));
  return `${canonicalJson({ files })}\n`;
}
