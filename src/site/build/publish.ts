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
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Report } from '../../report/schema.ts';
import { hexOf } from '../views/format.ts';
import { EvidenceChangedError } from './build-errors.ts';
import { withholdingRule, type WithholdRule } from '../../config/withhold.ts';
import { openNoFollow, openNoFollowSync } from '../../files/read.ts';
import { blobUrl, listingText, listingUrl, manifestUrl, type Published, type PublishedBundle, type ReadBundle, type ReadEntry, type SiteFile, type WithheldFile } from '../model/published.ts';

export type { Published, PublishedBundle, ReadBundle, ReadEntry, SiteFile, WithheldFile } from '../model/published.ts';
export { blobUrl, listingText, listingUrl, manifestUrl, withheldJson } from '../model/published.ts';

/** The paths a rule never withholds (src/config/withhold.ts NEVER_WITHHELD): their bytes are always published. */
const NEVER = /^(?:manifest\.json|plan\.json|ledger\.jsonl|attempts\.jsonl|grades\/[^/]+\.json|assessments\.json)$/;

/** What the build publishes for a report and the bundles it was built from (matched by content digest). */
export function publishedOf(report: Pick<Report, 'bundles'>, read: readonly ReadBundle[], withhold: readonly WithholdRule[] = []): Published {
  const byContent = new Map(read.map((r) => [r.content_digest, r]));
  // Each published digest's file and the size the reader saw (a read never takes more: see readVerified).
  const sources = new Map<string, { path: string; bytes: number }>();
  const readable = (e: ReadEntry): e is ReadEntry & { sha256: string; bytes: number } => e.kind === 'file' && !e.badName && e.sha256 !== null && e.bytes !== null;
  // The digests withheld anywhere (with the rule that withholds them first), and those a never-withheld file needs published.
  const withheldDigests = new Map<string, { rule: WithholdRule; path: string }>();
  const needed = new Map<string, string>();
  const matched = new Set<WithholdRule>();
  for (const bundle of read) {
    for (const e of bundle.entries) {
      if (!readable(e)) continue;
      if (NEVER.test(e.path)) {
        if (!needed.has(e.sha256)) needed.set(e.sha256, e.path);
        continue;
      }
      const rule = withholdingRule(withhold, e.path);
      if (rule === null) continue;
      matched.add(rule);
      if (!withheldDigests.has(e.sha256)) withheldDigests.set(e.sha256, { rule, path: e.path });
    }
  }
  const notWithheld: Published['notWithheld'] = [];
  for (const [sha256, { path }] of withheldDigests) {
    const because = needed.get(sha256);
    if (because === undefined) continue;
    withheldDigests.delete(sha256);
    notWithheld.push({ path, sha256, because });
  }
  const bundles = report.bundles.map((entry) => {
    const bundle = byContent.get(entry.content_digest);
    if (bundle === undefined) throw new Error(`no bundle read for the report's bundle ${entry.content_digest}`);
    const dirHex = hexOf(entry.status === 'verified' && entry.bundle_id ? entry.bundle_id : entry.content_digest);
    const files: SiteFile[] = [];
    const unpublished: string[] = [];
    const withheld: WithheldFile[] = [];
    for (const e of bundle.entries) {
      if (e.kind === 'directory') continue;
      // The path is only shown (as text); the URL is the digest's, so any readable regular file can be published.
      if (!readable(e)) {
        unpublished.push(e.path);
        continue;
      }
      const held = withheldDigests.get(e.sha256);
      if (held !== undefined) {
        const own = withholdingRule(withhold, e.path);
        const reason = own?.reason ?? `the same bytes as the withheld ${held.path}`;
        withheld.push({ path: e.path, bytes: e.bytes, sha256: e.sha256, reason, until: (own ?? held.rule).until ?? null });
        continue;
      }
      files.push({ path: e.path, url: blobUrl(e.sha256), bytes: e.bytes, sha256: e.sha256 });
      if (!sources.has(e.sha256)) sources.set(e.sha256, { path: join(bundle.path, ...e.path.split('/')), bytes: e.bytes });
    }
    return {
      dirHex,
      content_digest: entry.content_digest,
      sourceDir: bundle.path,
      entries: bundle.entries,
      files,
      unpublished,
      withheld,
      manifestUrl: files.some((f) => f.path === 'manifest.json') ? manifestUrl(dirHex) : null,
      listingUrl: listingUrl(dirHex),
    };
  });
  return {
    bundles,
    async blob(sha256) {
      const source = sources.get(sha256);
      if (source === undefined) throw new Error(`no published file has the digest ${sha256}`);
      return readVerified(source.path, sha256, source.bytes);
    },
    unmatchedRules: withhold.filter((r) => !matched.has(r)).map((r) => r.path),
    notWithheld,
  };
}

/**
 * Writes the blobs, manifests and listings of every bundle under `dir`;
 * returns how many files it wrote. A digest already written is not written
 * again (one copy per distinct digest across all bundles).
 */
export async function writeEvidence(bundles: readonly Pick<PublishedBundle, 'dirHex' | 'content_digest' | 'sourceDir' | 'entries' | 'files'>[], dir: string): Promise<number> {
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

/** The one buffer every copy reads through (copies are synchronous, so one at a time). */
const COPY_BUFFER = Buffer.allocUnsafeSlow(1 << 20);

/**
 * Copies one evidence file byte for byte, never following a link (nor
 * reading anything but a regular file), and checks the copy hashes to what
 * verification saw (evidence changing during the build is an error, not a
 * silent republish). Synchronous reads and writes through one reused
 * buffer: the asynchronous stream it replaced spent about four times as long
 * on the same 808 MB (docs/benchmarks.md, (j)).
 */
export async function copyVerified(source: string, destination: string, sha256: string): Promise<void> {
  let fd: number;
  try {
    fd = openNoFollowSync(source);
  } catch (error) {
    throw new EvidenceChangedError(source, `it can no longer be opened (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const hash = createHash('sha256');
  let out: number | undefined;
  try {
    if (!fstatSync(fd).isFile()) throw new EvidenceChangedError(source, 'it is no longer a regular file');
    out = openSync(destination, 'w');
    for (;;) {
      const read = readSync(fd, COPY_BUFFER, 0, COPY_BUFFER.length, null);
      if (read === 0) break;
      hash.update(COPY_BUFFER.subarray(0, read));
      for (let written = 0; written < read; ) written += writeSync(out, COPY_BUFFER, written, read - written);
    }
  } finally {
    closeSync(fd);
    if (out !== undefined) closeSync(out);
  }
  const copied = `sha256:${hash.digest('hex')}`;
  if (copied !== sha256) throw new EvidenceChangedError(source, `it now hashes to ${copied}, verification saw ${sha256}`);
}

/**
 * Reads one evidence file, never following a link (nor reading anything but
 * a regular file), and checks it hashes to what verification saw (as
 * {@link copyVerified}): the bytes the site publishes at its blob URL. Its
 * size is checked on the open handle before anything is read, and no more
 * than `bytes` (the size verification saw) is ever read: a file swapped or
 * grown since (2 GiB, /dev/zero behind a link) is EvidenceChangedError, not
 * a read.
 */
export async function readVerified(source: string, sha256: string, bytes: number): Promise<Uint8Array> {
  const handle = await openNoFollow(source).catch((error: NodeJS.ErrnoException) => {
    throw new EvidenceChangedError(source, `it can no longer be opened (${error.code ?? 'error'})`);
  });
  let buffer: Buffer;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new EvidenceChangedError(source, 'it is no longer a regular file');
    if (stats.size !== bytes) throw new EvidenceChangedError(source, `it is now ${stats.size} bytes, verification saw ${bytes}`);
    buffer = Buffer.allocUnsafeSlow(bytes);
    for (let at = 0; at < bytes; ) {
      const { bytesRead } = await handle.read(buffer, at, bytes - at, at);
      if (bytesRead === 0) throw new EvidenceChangedError(source, `it now ends after ${at} bytes, verification saw ${bytes}`);
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
  const read = `sha256:${createHash('sha256').update(buffer).digest('hex')}`;
  if (read !== sha256) throw new EvidenceChangedError(source, `it now hashes to ${read}, verification saw ${sha256}`);
  return buffer;
}
