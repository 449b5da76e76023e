/**
 * The pure part of verifying one read bundle: the reader's limits applied to
 * a snapshot's bytes, then the verifier (verifyBundle), and the content
 * digest that identifies a bundle by its entries. No disk access: the
 * pipeline (verify-directory.ts) runs it on a directory it read, the site's
 * re-derivation on a snapshot of published blobs.
 */
import type { BundleSnapshot } from '../evidence/read-bundle.ts';
import { jsonlLimitHit, LIMIT_DEFAULTS, limitMessage, nestingOver, type LimitHit, type Limits } from '../evidence/limits.ts';
import { digestCanonical } from '../json/canonical.ts';
import { finding, statusOf } from '../verify/findings.ts';
import { verifyBundle, type BundleVerification, type VerifyBundleOptions } from '../verify/verify-bundle.ts';
import { evidence } from '../bundle/evidence.ts';
import { isAnchorTokenPath } from '../evidence/paths.ts';

export type { VerifyBundleOptions } from '../verify/verify-bundle.ts';

/** The verifier run on each snapshot: verifyBundle, or a replacement in tests of crash isolation. */
export type VerifyFunction = (snapshot: BundleSnapshot, limits: Limits, options: VerifyBundleOptions) => BundleVerification;

/**
 * Verifies a snapshot as the pipeline does: a snapshot over a whole-bundle
 * limit (`notRead`) is not judged (LIMIT_EXCEEDED, no verdict); otherwise
 * the per-file limits, then `verify` with the reader's options (the pinned
 * time-stamp roots; default none). A throw is a bug (the pipeline makes it
 * INTERNAL_ERROR). The snapshot's entries over a limit lose their content.
 */
export function verifySnapshot(snapshot: BundleSnapshot, limits: Limits = LIMIT_DEFAULTS, options: VerifyBundleOptions = {}, verify: VerifyFunction = verifyBundle): BundleVerification {
  return snapshot.notRead ? notJudged([snapshot.notRead]) : withLimits(snapshot, limits, options, verify);
}

/**
 * Verifies a snapshot under the limits: the JSONL line limits (and a lowered
 * depth) are checked on the bytes before anything parses them; a file over a
 * limit is withheld from the verifier, its LIMIT_EXCEEDED finding comes first,
 * and the MISSING_FILE the verifier reports for it is dropped (it is there,
 * just not read).
 */
function withLimits(snapshot: BundleSnapshot, limits: Limits, options: VerifyBundleOptions, verify: VerifyFunction): BundleVerification {
  const hits: LimitHit[] = [];
  for (const entry of snapshot.entries) {
    if (entry.limit) {
      hits.push(entry.limit);
      continue;
    }
    // NOTES.md and the time-stamp tokens (DER) are not JSON: no line or nesting limit reads them.
    if (entry.content === undefined || entry.path === 'NOTES.md' || isAnchorTokenPath(entry.path)) continue;
    const jsonl = entry.path.endsWith('.jsonl');
    let hit = jsonl ? jsonlLimitHit(entry.path, entry.content, limits) : null;
    if (!hit && limits.depth < LIMIT_DEFAULTS.depth) {
      const over = nestingOver(entry.content, limits.depth, jsonl);
      if (over) hit = { path: entry.path, limit: 'depth', value: limits.depth, actual: over.depth, ...(jsonl ? { line: over.line } : {}) };
    }
    if (hit) {
      entry.limit = hit;
      entry.unreadable = `is over limits.${hit.limit}: not parsed`;
      delete entry.content;
      hits.push(hit);
    }
  }
  const verification = verify(snapshot, limits, options);
  if (hits.length === 0) return verification;
  const limited = new Set(hits.map((h) => h.path));
  const findings = [
    ...hits.map((h) => finding('LIMIT_EXCEEDED', h.path, limitMessage(h), h.line)),
    ...verification.findings.filter((f) => !(f.code === 'MISSING_FILE' && limited.has(f.file))),
  ];
  return { ...verification, findings, status: statusOf(findings) };
}

/** A bundle that was not judged at all (over a whole-bundle limit: nothing was read). */
export function notJudged(hits: readonly LimitHit[]): BundleVerification {
  return {
    bundle_id: null,
    plan_id: null,
    status: 'no_verdict',
    findings: hits.map((h) => finding('LIMIT_EXCEEDED', h.path, limitMessage(h))),
    evidence: evidence({}),
    anchor: null,
  };
}

/** The digest of a snapshot's sorted (path, kind, sha256) entries. */
export function contentDigest(snapshot: BundleSnapshot): string {
  return digestCanonical(snapshot.entries.map((e) => [e.path, e.kind, e.sha256 ?? null]));
}
