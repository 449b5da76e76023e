/**
 * The reader's own root (issue 30, item 3; docs/site.md, "Re-deriving in the
 * browser"): the verify page lets a reader paste or choose a PEM root
 * certificate they trust, and the worker says, for every anchored bundle of
 * the report, whether each of its tokens checks and its signer chains to
 * that root, computed in the browser from the published bytes (the tokens
 * re-hashed against files.json; no other network). The site's own pinned
 * roots play no part: this is the reader's pin.
 *
 * Untrusted input: the PEM is the reader's, the report, listings and tokens
 * the site's (parsed strictly, every blob checked against its digest).
 */
import { checkAnchorToken, parsePinnedRoots, rootDigest, type PinnedRoot } from '../anchor/check.ts';
import { rfc4514 } from '../anchor/names.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { Report } from '../report/schema.ts';
import { isAnchorTokenPath } from '../evidence/paths.ts';
import type { SiteToken } from './anchor-lines.ts';
import { bundleDirHex, fetchBlob, Listing } from './site-bundles.ts';
import { isNotInBrowser } from './browser/not-in-browser.ts';
import type { SiteGet } from './types.ts';

/** The largest PEM text a reader may give (a root certificate is a few KiB). */
export const MAX_READER_PEM_BYTES = 256 * 1024;

/** One token checked with the reader's root. */
export interface ReaderToken {
  readonly path: string;
  /** The token's published blob (URL path). */
  readonly blob: string;
  /** `chains`: it checks and its signer chains to the reader's root; `other-root`: it checks, but not to it; `not-checked`: it does not check (the reason), or cannot be checked here. */
  readonly result: 'chains' | 'other-root' | 'fails' | 'not-checked';
  readonly detail: string;
}

/** What the reader's root says of the site's anchors. */
export interface ReaderRootResult {
  /** The reader's certificates: subject and digest; empty with a problem. */
  readonly roots: readonly { readonly subject: string; readonly digest: string }[];
  readonly problem: string | null;
  readonly bundles: readonly { readonly subject: string; readonly title: string | null; readonly tokens: readonly ReaderToken[] }[];
}


/**
 * Checks every anchored bundle's tokens with the reader's root(s) (see the module comment). `prepare` is the
 * browser's signature pre-check (browser/anchor-signatures.ts); absent in Node.
 */
export async function checkReaderRoot(get: SiteGet, pem: string, prepare?: (tokens: readonly SiteToken[], planIdHex: string | null, roots: readonly PinnedRoot[]) => Promise<void>): Promise<ReaderRootResult> {
  if (pem.length > MAX_READER_PEM_BYTES) return { roots: [], problem: `the PEM text is ${pem.length} characters, more than a root certificate file may be (${MAX_READER_PEM_BYTES})`, bundles: [] };
  let roots: PinnedRoot[];
  try {
    roots = parsePinnedRoots(pem);
  } catch (error) {
    return { roots: [], problem: `not a PEM certificate: ${error instanceof Error ? error.message : String(error)}`, bundles: [] };
  }
  const named = roots.map((r) => ({ subject: rfc4514(r.certificate.tbsCertificate.subject), digest: rootDigest(r) }));
  const reportBytes = await get('/report.json');
  const parsed = reportBytes === null ? null : parseStrictJson(reportBytes);
  const report = parsed?.ok ? Report.safeParse(parsed.value) : null;
  if (report === null || !report.success) return { roots: named, problem: 'the site has no readable /report.json', bundles: [] };
  const bundles: { subject: string; title: string | null; tokens: ReaderToken[] }[] = [];
  for (const entry of report.data.bundles) {
    if (!entry.anchor) continue;
    const subject = entry.bundle_id ?? entry.content_digest;
    const planHex = entry.plan_id?.slice(7) ?? null;
    const tokens: ReaderToken[] = [];
    const listingBytes = await get(`/bundles/${bundleDirHex(entry)}/files.json`);
    const listingJson = listingBytes === null ? null : parseStrictJson(listingBytes);
    const listing = listingJson?.ok ? Listing.safeParse(listingJson.value) : null;
    if (listing === null || !listing.success) {
      bundles.push({ subject, title: entry.plan?.title ?? null, tokens: [{ path: '', blob: '', result: 'not-checked', detail: `/bundles/${bundleDirHex(entry)}/files.json is not a files listing` }] });
      continue;
    }
    const fetched: SiteToken[] = [];
    for (const e of listing.data.entries) {
      if (e.kind !== 'file' || e.sha256 === null || !isAnchorTokenPath(e.path)) continue;
      const blob = `/blobs/${e.sha256.slice(7)}`;
      const bytes = await fetchBlob(get, e.sha256, e.bytes).catch((error: unknown) => error as Error);
      if (bytes === null || bytes instanceof Error) tokens.push({ path: e.path, blob, result: 'not-checked', detail: bytes === null ? 'its bytes are not published' : bytes.message });
      else fetched.push({ path: e.path, sha256: e.sha256, bytes });
    }
    if (planHex !== null && /^[0-9a-f]{64}$/.test(planHex)) {
      if (prepare !== undefined && fetched.length > 0) await prepare(fetched, planHex, roots);
      for (const token of fetched) tokens.push(readerToken(token, planHex, roots));
    }
    bundles.push({ subject, title: entry.plan?.title ?? null, tokens: tokens.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) });
  }
  return { roots: named, problem: null, bundles };
}

function readerToken(token: SiteToken, planHex: string, roots: readonly PinnedRoot[]): ReaderToken {
  const blob = `/blobs/${token.sha256.slice(7)}`;
  try {
    const check = checkAnchorToken(token.bytes, planHex, roots);
    if (!check.ok) return { path: token.path, blob, result: 'fails', detail: `${check.code}: ${check.detail}` };
    return check.pinned
      ? { path: token.path, blob, result: 'chains', detail: `stamped ${check.genTime} by ${JSON.stringify(check.authority)}, whose certificate chains to your root` }
      : { path: token.path, blob, result: 'other-root', detail: `stamped ${check.genTime} by ${JSON.stringify(check.authority)}, whose certificate does not chain to your root` };
  } catch (error) {
    if (!isNotInBrowser(error)) throw error;
    return { path: token.path, blob, result: 'not-checked', detail: `not checked here (${error.what}): run openssl ts -verify with your root` };
  }
}

