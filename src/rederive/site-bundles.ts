/**
 * A published bundle, read back from a site and verified again (FORMAT.md 8):
 * `/bundles/<dir hex>/files.json` says what the build read (every entry's
 * path, kind, size and SHA-256, in content-digest order); each structured
 * file's bytes come from `/blobs/<sha256 hex>`, re-hashed before use. The
 * snapshot made from them is the one the build verified, so the same
 * verifier (verifySnapshot: the limits, then verifyBundle) and the same
 * import re-derivation give the same findings, byte for byte.
 *
 * Untrusted input: files.json is parsed strictly and every blob is checked
 * against the digest and size the listing gives before it is parsed. Nothing
 * here touches a disk.
 */
import { z } from 'zod';
import { digestBytes, digestCanonical, DIGEST_PATTERN } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { isAnchorTokenPath, isStructuredPath } from '../evidence/paths.ts';
import type { BundleSnapshot, EntryKind, SnapshotEntry } from '../evidence/read-bundle.ts';
import type { Limits } from '../evidence/limits.ts';
import type { ImportLimits } from '../import/limits.ts';
import { rederiveImport, withImportFindings } from '../import/rederive.ts';
import { verifySnapshot } from '../pipeline/verify-snapshot.ts';
import type { BundleResult } from '../pipeline/results.ts';
import type { Report } from '../report/schema.ts';
import { statusOf, type Finding } from '../verify/findings.ts';
import type { BundleVerification } from '../verify/verify-bundle.ts';
import { evidence } from '../bundle/evidence.ts';
import type { RederiveLine, SiteGet } from './types.ts';
import { BoundError } from './bounded-fetch.ts';
import type { PinnedRoot } from '../anchor/check.ts';
import type { SiteToken } from './anchor-lines.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

const ENTRY_KINDS = ['file', 'directory', 'symlink', 'fifo', 'socket', 'block-device', 'char-device', 'unknown'] as const satisfies readonly EntryKind[];

/** /bundles/<hex>/files.json as the build writes it (src/site/build/publish.ts listingText). */
export const Listing = z.strictObject({
  content_digest: z.string().regex(DIGEST_PATTERN),
  entries: z.array(
    z.strictObject({
      path: z.string(),
      kind: z.enum(ENTRY_KINDS),
      bytes: z.int().min(0).nullable(),
      sha256: z.string().regex(DIGEST_PATTERN).nullable(),
      bad_name: z.literal(true).optional(),
    }),
  ),
});
type Listing = z.infer<typeof Listing>;

/** The hex of the directory a report bundle is published under: its bundle_id when verified, else its content digest. */
export function bundleDirHex(bundle: Report['bundles'][number]): string {
  return (bundle.status === 'verified' && bundle.bundle_id !== null ? bundle.bundle_id : bundle.content_digest).slice(7);
}

/**
 * Fetches a blob and checks its size and digest; null when the site does not publish it. Throws a
 * BlobMismatch when it is not those bytes: never read past the listed size (one byte more and the read stops).
 */
export async function fetchBlob(get: SiteGet, sha256: string, bytes: number | null): Promise<Uint8Array | null> {
  let got: Uint8Array | null;
  try {
    got = await get(`/blobs/${sha256.slice(7)}`, bytes ?? undefined);
  } catch (error) {
    if (error instanceof BoundError && error.listed) throw new BlobMismatch(error.message);
    throw error;
  }
  if (got === null) return null;
  const digest = digestBytes(got);
  if (digest !== sha256 || (bytes !== null && got.length !== bytes)) {
    throw new BlobMismatch(`/blobs/${sha256.slice(7)} is ${got.length} bytes hashing to ${digest}, listed as ${bytes ?? '?'} bytes ${sha256}`);
  }
  return got;
}

/** A published blob whose bytes are not the digest it is published under. */
export class BlobMismatch extends LedgerboardError {
  static override readonly code: string = 'SITE_BLOB_MISMATCH';
  static override readonly exitStatus = EXIT_STATUS.notVerified;
}

/** A bundle read back from a site: the result the pipeline would give, and what could not be re-derived. */
export interface SiteBundle {
  result: BundleResult;
  /** Lines to print (a mismatch in the published bytes, an import not re-derived here). */
  lines: RederiveLine[];
  /** Evidence bytes fetched. */
  fetched: number;
  /** The bundle's time-stamp tokens (`anchors/*.tsr`, FORMAT.md 12) as fetched and re-hashed, by path. */
  anchors: SiteToken[];
}

/** What the bundle re-derivation needs besides the site. */
export interface SiteBundleOptions {
  limits: Limits;
  importLimits: ImportLimits;
  /** Recognises an import that cannot run here (the browser's archive reader): its published outcome is taken, and said. */
  cannotRunHere?: (error: unknown) => boolean;
  /** The time-stamp roots the report's config pins, as the site publishes them (timestamp-roots.ts): verification checks `pinned` with them. */
  timestampRoots?: readonly PinnedRoot[];
  /**
   * Called with the bundle's tokens before it is verified (the browser's worker checks their signatures
   * asynchronously there, so the synchronous check can answer: browser/anchor-signatures.ts).
   */
  prepareAnchors?: (tokens: readonly SiteToken[], planIdHex: string | null, roots: readonly PinnedRoot[]) => Promise<void>;
}

/** The codes only the reader or the pipeline gives (never from a bundle's bytes alone). */
const READ_STAGE = new Set(['LIMIT_EXCEEDED', 'INTERNAL_ERROR', 'NOT_REGULAR_FILE', 'MISSING_FILE']);

/**
 * Reads one bundle of the published report back from the site and verifies
 * it again. A bundle the build judged while reading it (its listing has no
 * entries, or a regular file it could not hash: a link, an unreadable file,
 * a limit) cannot be rebuilt from published bytes: its published entry is
 * taken as it is when it is not counted (it never adds a number), and said.
 */
export async function readSiteBundle(get: SiteGet, published: Report['bundles'][number], options: SiteBundleOptions): Promise<SiteBundle> {
  const dirHex = bundleDirHex(published);
  const subject = published.bundle_id ?? published.content_digest;
  const lines: RederiveLine[] = [];
  let fetched = 0;
  // A report that calls a bundle verified publishes it under its bundle_id; read it where the build put it either way.
  let listingPath = `/bundles/${dirHex}/files.json`;
  let listingBytes = await get(listingPath);
  const other = dirHex === published.content_digest.slice(7) ? published.bundle_id?.slice(7) : published.content_digest.slice(7);
  if (listingBytes === null && other !== undefined) {
    listingPath = `/bundles/${other}/files.json`;
    listingBytes = await get(listingPath);
  }
  if (listingBytes === null) throw new SiteProblem(subject, `/bundles/${dirHex}/files.json is not published`);
  const parsed = parseStrictJson(listingBytes);
  const listing = parsed.ok ? Listing.safeParse(parsed.value) : null;
  if (!parsed.ok || listing === null || !listing.success) throw new SiteProblem(subject, `${listingPath} is not a files listing (${parsed.ok ? 'schema' : parsed.error.message})`);
  const entries = listing.data.entries;
  const content_digest = digestCanonical(entries.map((e) => [e.path, e.kind, e.sha256]));
  if (content_digest !== listing.data.content_digest || content_digest !== published.content_digest) {
    throw new SiteProblem(subject, `content_digest: ${listingPath} re-derives ${content_digest}, it states ${listing.data.content_digest}, the report ${published.content_digest}`);
  }
  const result = (verification: BundleVerification): BundleResult => ({
    path: `site:${dirHex}`,
    content_digest,
    entries: entries.map((e) => ({ path: e.path, kind: e.kind, sha256: e.sha256, bytes: e.bytes, badName: e.bad_name === true })),
    verification,
  });
  // A listing the build could not have written under the report's limits (it records no digest past them) is not fetched: a host cannot make a verifier download more than the build read.
  const overLimits = listingOverLimits(listing.data, options.limits);
  if (overLimits !== null) throw new SiteProblem(subject, `${listingPath} ${overLimits}, past the report's limits, yet lists digests the build could not have read`);
  if (judgedWhenRead(listing.data)) {
    lines.push({ status: 'info', check: 'bundle', subject, detail: `judged when read by the build (${published.status}: ${readStageCodes(published)}): its bytes are not all published, so it is taken as published; it is not counted` });
    return { result: result(publishedVerification(published)), lines, fetched, anchors: [] };
  }
  // The structured files' bytes (manifest, plan, ledger, attempts, grades, grant, NOTES.md), each re-hashed.
  const snapshotEntries: SnapshotEntry[] = entries.map((e) => ({
    path: e.path,
    kind: e.kind,
    ...(e.sha256 !== null ? { sha256: e.sha256 } : {}),
    ...(e.bytes !== null ? { bytes: e.bytes } : {}),
    ...(e.bad_name ? { badName: true } : {}),
  }));
  // The time-stamp tokens are structured files too (FORMAT.md 12): verification checks them, and the anchor lines (anchor-lines.ts) again.
  const wanted = snapshotEntries.filter((e) => e.kind === 'file' && e.sha256 !== undefined && !e.badName && isStructuredPath(e.path));
  await inBatches(wanted, 6, async (entry) => {
    const bytes = await fetchBlob(get, entry.sha256!, entry.bytes ?? null).catch((error: unknown) => {
      if (error instanceof BlobMismatch) lines.push({ status: 'MISMATCH', check: 'blob', subject, detail: `${JSON.stringify(entry.path)}: ${error.message}` });
      else throw error;
      return null;
    });
    if (bytes === null) {
      // NOTES.md may be withheld (its text never changes a figure); every other structured file must be published.
      if (entry.path !== 'NOTES.md' && !lines.some((l) => l.detail.startsWith(JSON.stringify(entry.path)))) {
        lines.push({ status: 'MISMATCH', check: 'blob', subject, detail: `${JSON.stringify(entry.path)}: the site does not publish its bytes (/blobs/${entry.sha256!.slice(7)}), which a stranger needs to re-derive the report` });
      }
      return;
    }
    fetched += bytes.length;
    entry.content = bytes;
  });
  const snapshot: BundleSnapshot = { entries: snapshotEntries };
  const anchors: SiteToken[] = snapshotEntries.flatMap((e) => (isAnchorTokenPath(e.path) && e.content !== undefined ? [{ path: e.path, sha256: e.sha256!, bytes: e.content }] : []));
  const roots = options.timestampRoots ?? [];
  const planHex = published.plan_id !== null && /^sha256:[0-9a-f]{64}$/.test(published.plan_id) ? published.plan_id.slice(7) : null;
  if (anchors.length > 0) await options.prepareAnchors?.(anchors, planHex, roots);
  let verification: BundleVerification;
  try {
    verification = verifySnapshot(snapshot, options.limits, { timestampRoots: roots });
  } catch (error) {
    // A token whose signature this verifier cannot check (the browser's, for an algorithm Web Crypto lacks): the rest of
    // the bundle is verified again without its tokens, and its anchor and ANCHOR_* findings are taken as published, and said.
    if (!options.cannotRunHere?.(error)) throw error;
    const withoutTokens: BundleSnapshot = { entries: snapshotEntries.map((e) => (isAnchorTokenPath(e.path) ? withoutContent(e) : e)) };
    verification = takePublishedAnchor(verifySnapshot(withoutTokens, options.limits, { timestampRoots: roots }), published);
    lines.push({ status: 'info', check: 'anchor', subject, detail: `the time-stamp tokens are not re-derived here (${(error as Error).message}): the anchor and its findings are taken as published; verify.mjs checks them` });
  }
  // Imports are re-derived from the kept originals (FORMAT.md 9), read through the site's blobs.
  const byPath = new Map(entries.map((e) => [e.path, e]));
  const read = async (path: string): Promise<Uint8Array | null> => {
    const entry = byPath.get(path);
    if (entry === undefined || entry.kind !== 'file' || entry.sha256 === null) return null;
    const bytes = await fetchBlob(get, entry.sha256, entry.bytes);
    if (bytes !== null) fetched += bytes.length;
    return bytes;
  };
  try {
    const imported = await rederiveImport(verification, read, options.importLimits);
    if (imported.outcome === 'unavailable') {
      verification = takePublishedImport(verification, published);
      lines.push({ status: 'info', check: 'import', subject, detail: 'not re-derived: its originals are withheld on this site, so the published outcome of the import is taken as it is' });
    } else verification = withImportFindings(verification, imported.findings);
  } catch (error) {
    if (error instanceof BlobMismatch) {
      lines.push({ status: 'MISMATCH', check: 'blob', subject, detail: error.message });
      verification = takePublishedImport(verification, published);
    } else if (options.cannotRunHere?.(error)) {
      verification = takePublishedImport(verification, published);
      lines.push({ status: 'info', check: 'import', subject, detail: `not re-derived here (${(error as Error).message}); the published outcome of the import is taken as it is` });
    } else throw error;
  }
  return { result: result(verification), lines, fetched, anchors };
}

/** A problem with what the site publishes for a bundle (not with the evidence): the re-derivation of that bundle cannot go on. */
export class SiteProblem extends LedgerboardError {
  static override readonly code: string = 'SITE_PROBLEM';
  static override readonly exitStatus = EXIT_STATUS.notVerified;
  constructor(
    readonly subject: string,
    message: string,
  ) {
    super(message);
  }
}

/** Why a listing breaks the limits its bundle was read under (the report's config), or null. */
function listingOverLimits(listing: Listing, limits: Limits): string | null {
  if (listing.entries.length > limits.files) return `lists ${listing.entries.length} entries, more than limits.files (${limits.files})`;
  let structured = 0;
  for (const e of listing.entries) {
    if (e.kind !== 'file' || e.sha256 === null || e.bytes === null) continue;
    if (e.bytes > limits.file_bytes) return `lists ${JSON.stringify(e.path)} at ${e.bytes} bytes, more than limits.file_bytes (${limits.file_bytes})`;
    if (e.path === 'NOTES.md' && e.bytes > limits.notes_bytes) return `lists NOTES.md at ${e.bytes} bytes, more than limits.notes_bytes (${limits.notes_bytes})`;
    if (!isStructuredPath(e.path) || e.path === 'NOTES.md') continue;
    if (e.bytes > limits.structured_file_bytes) return `lists ${JSON.stringify(e.path)} at ${e.bytes} bytes, more than limits.structured_file_bytes (${limits.structured_file_bytes})`;
    structured += e.bytes;
  }
  if (structured > limits.structured_total_bytes) return `lists ${structured} bytes of structured files, more than limits.structured_total_bytes (${limits.structured_total_bytes})`;
  return null;
}

/** True when the build could not read every regular file of the bundle (nothing listed, or a file without a digest). */
function judgedWhenRead(listing: Listing): boolean {
  return listing.entries.length === 0 || listing.entries.some((e) => e.kind === 'file' && (e.sha256 === null || e.bytes === null));
}

function readStageCodes(published: Report['bundles'][number]): string {
  const codes = [...new Set(published.findings.filter((f) => READ_STAGE.has(f.code)).map((f) => f.code))];
  return codes.length > 0 ? codes.join(', ') : 'no read-stage finding';
}

/** The published entry as a verification: its status and findings (never counted: the caller checks). */
function publishedVerification(published: Report['bundles'][number]): BundleVerification {
  const findings = published.findings.map((f) => ({ ...f }) as Finding);
  return { bundle_id: published.bundle_id, plan_id: published.plan_id, status: statusOf(findings), findings, evidence: evidence({}), anchor: published.anchor ?? null };
}

function withoutContent(entry: SnapshotEntry): SnapshotEntry {
  const { content: _content, ...rest } = entry;
  return rest;
}

const ANCHOR_CODES = new Set(['ANCHOR_UNREADABLE', 'ANCHOR_MISMATCH', 'ANCHOR_AFTER_ATTEMPT', 'ANCHOR_BEFORE_CREATED']);

/**
 * A verification made without the bundle's tokens, with the published anchor and ANCHOR_* findings put back where
 * the published list has them (the other findings keep their own order: a site whose other findings differ still
 * differs).
 */
function takePublishedAnchor(verification: BundleVerification, published: Report['bundles'][number]): BundleVerification {
  const own = verification.findings.filter((f) => !ANCHOR_CODES.has(f.code));
  const findings: Finding[] = [];
  let next = 0;
  for (const f of published.findings) {
    if (ANCHOR_CODES.has(f.code)) findings.push({ ...f } as Finding);
    else if (next < own.length) findings.push(own[next++]!);
  }
  findings.push(...own.slice(next));
  return { ...verification, findings, status: statusOf(findings), anchor: published.anchor ?? null };
}

/** The verification with the published report's import findings for this bundle (an import that could not be re-run here). */
function takePublishedImport(verification: BundleVerification, published: Report['bundles'][number]): BundleVerification {
  if (verification.status !== 'verified') return verification;
  const taken = published.findings.filter((f) => f.code === 'IMPORT_MISMATCH' || f.code === 'IMPORT_NOT_REPRODUCED').map((f) => ({ ...f }) as Finding);
  return withImportFindings(verification, taken);
}

/** Runs `work` over the items, at most `width` at a time. */
export async function inBatches<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

