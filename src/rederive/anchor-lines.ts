/**
 * A stranger's own check of each bundle's anchor (FORMAT.md 12), beside the
 * re-derived report: for every `anchors/*.tsr` token of a published bundle
 * (its bytes re-hashed against files.json), the token is checked again
 * (checkAnchorToken: its imprint is SHA-256 over the plan id's 32 bytes, its
 * signature checks with the certificate it carries) with the site's pinned
 * roots, and the report's `anchor.gen_time` must be the earliest genTime of
 * the tokens that check. For every anchored bundle, one line gives the
 * command that checks the anchoring token with a root the reader trusts
 * (`openssl ts -verify`), so the check does not rest on this code either.
 *
 * A token that does not check is a MISMATCH unless the report says so too
 * (the bundle carries that finding for that file): a report may publish a
 * bundle with a bad token, never hide one.
 */
import { checkAnchorToken, type AnchorCheck, type PinnedRoot } from '../anchor/check.ts';
import { childrenOf, readTlv } from '../anchor/der.ts';
import { earliestAnchor } from '../anchor/times.ts';
import { compareTimestamps } from '../schema/timestamp.ts';
import { compareUtf8 } from '../json/compare.ts';
import type { Report } from '../report/schema.ts';
import { isNotInBrowser } from './browser/not-in-browser.ts';
import type { RederiveLine } from './types.ts';

/** One token of a published bundle: its path in the bundle, its digest (its blob's name) and its bytes. */
export interface SiteToken {
  readonly path: string;
  readonly sha256: string;
  readonly bytes: Uint8Array;
}

export { isAnchorTokenPath } from '../evidence/paths.ts';

/** True when the bytes are a bare TimeStampToken (a ContentInfo: its first member an OID), not a TimeStampResp. */
export function isBareToken(bytes: Uint8Array): boolean {
  try {
    const outer = readTlv(bytes, 0);
    return outer.tag === 0x30 && childrenOf(bytes, outer)[0]?.tag === 0x06;
  } catch {
    return false;
  }
}

/**
 * The command that checks a token with the reader's own root: for a site on the web, curl fetches the blob first
 * (openssl reads files, not URLs). `location` is the blob's absolute URL or file path.
 */
export function opensslCommand(planIdHex: string, location: string, bare: boolean): string {
  const quoted = shellQuote(location);
  const verify = (file: string) => `openssl ts -verify -digest ${planIdHex} ${bare ? '-token_in ' : ''}-in ${file} -CAfile <your-root.pem>`;
  return /^https?:\/\//.test(location) ? `curl -fsSo token.tsr ${quoted} && ${verify('token.tsr')}` : verify(quoted);
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The anchor lines of one published bundle. `location` gives where a blob of the site is for a reader
 * (an absolute URL or path; default: its URL path).
 */
export function anchorLines(published: Report['bundles'][number], tokens: readonly SiteToken[], roots: readonly PinnedRoot[], location: (urlPath: string) => string = (p) => p): RederiveLine[] {
  const subject = published.bundle_id ?? published.content_digest;
  const planHex = published.plan_id?.slice(7);
  if (tokens.length === 0) {
    if (published.anchor) return [{ status: 'MISMATCH', check: 'anchor', subject, detail: `the report says anchored at ${published.anchor.gen_time}, but the bundle lists no anchors/*.tsr token` }];
    return [];
  }
  if (planHex === undefined || !/^[0-9a-f]{64}$/.test(planHex)) return [{ status: 'info', check: 'anchor', subject, detail: `${tokens.length} token(s) not checked: the report gives the bundle no plan id` }];
  const lines: RederiveLine[] = [];
  const checks: AnchorCheck[] = [];
  const tokenOf = new Map<AnchorCheck, SiteToken>();
  let notHere = 0;
  // In path order (UTF-8 bytes), as verification checks them.
  for (const token of [...tokens].sort((a, b) => compareUtf8(a.path, b.path))) {
    const name = JSON.stringify(token.path);
    let check: AnchorCheck;
    try {
      check = checkAnchorToken(token.bytes, planHex, roots);
    } catch (error) {
      if (!isNotInBrowser(error)) throw error;
      notHere++;
      lines.push({ status: 'info', check: 'anchor', subject, detail: `${name}: not checked here (${error.what}): run verify.mjs` });
      continue;
    }
    checks.push(check);
    tokenOf.set(check, token);
    if (check.ok) {
      lines.push({ status: 'ok', check: 'anchor', subject, detail: `${name}: the imprint is SHA-256 of the plan id's 32 bytes and the signature checks: stamped ${check.genTime} by ${JSON.stringify(check.authority)} (${check.pinned ? 'pinned' : 'not pinned'})` });
      continue;
    }
    const said = published.findings.some((f) => f.code === check.code && f.file === token.path);
    lines.push(
      said
        ? { status: 'info', check: 'anchor', subject, detail: `${name}: ${check.code} (${check.detail}), as the report says` }
        : { status: 'MISMATCH', check: 'anchor', subject, detail: `${name}: ${check.code} (${check.detail}), which the report does not say` },
    );
  }
  const best = earliestAnchor(checks);
  const stated = published.anchor ?? null;
  if (notHere > 0 && (best === undefined || (stated !== null && compareTimestamps(stated.gen_time, best.genTime) < 0))) {
    lines.push({ status: 'info', check: 'anchor', subject, detail: `anchor.gen_time not checked here: ${notHere} token(s) could not be checked in this verifier` });
  } else if (best === undefined) {
    if (stated !== null) lines.push({ status: 'MISMATCH', check: 'anchor', subject, detail: `the report says anchored at ${stated.gen_time}, but none of the bundle's ${tokens.length} token(s) checks` });
  } else if (stated === null) {
    lines.push({ status: 'MISMATCH', check: 'anchor', subject, detail: `the report gives no anchor, but a token checks: stamped ${best.genTime} by ${JSON.stringify(best.authority)}` });
  } else if (stated.gen_time !== best.genTime) {
    lines.push({ status: 'MISMATCH', check: 'anchor', subject, detail: `anchor.gen_time: the report gives ${stated.gen_time}, the earliest genTime of the tokens that check is ${best.genTime}` });
  } else {
    const ok = checks.filter((c) => c.ok).length;
    lines.push({ status: 'ok', check: 'anchor', subject, detail: `anchor.gen_time ${stated.gen_time} is the earliest genTime of the ${ok} token(s) that check` });
  }
  // The command for a stranger with their own root: the token that anchors the bundle (the earliest that checks).
  if (stated !== null && best !== undefined) {
    const token = tokenOf.get(best);
    if (token !== undefined) {
      lines.push({ status: 'info', check: 'anchor', subject, detail: `check ${JSON.stringify(token.path)} with a root you trust: ${opensslCommand(planHex, location(`/blobs/${token.sha256.slice(7)}`), isBareToken(token.bytes))}` });
    }
  }
  return lines;
}
