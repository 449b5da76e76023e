/**
 * Reading kept verifications' tables ahead of their use. A verification
 * taken from the cache (verify-cache.ts) holds only its head: status,
 * findings, ids, the evidence without its tables, and the tables' summary
 * (bundle/evidence-summary.ts), which is all the report and its cache key
 * read. Where a report is made again and a bundle has no kept pooling, its
 * rows are pooled: the pipeline (run/pipeline.ts) reads those bundles'
 * tables here first. A tables entry that does not check (missing, changed,
 * not V8) is never trusted: the bundle's head is removed and the bundle
 * verified again from its directory, whose tables then serve (and both
 * entries are written again).
 */
import type { Limits } from '../evidence/limits.ts';
import type { ImportLimits } from '../import/limits.ts';
import type { VerifyCache } from './verify-cache.ts';
import type { PinnedRoot } from '../anchor/check.ts';
import { verifyDirectory, type BundleResult } from './verify-directory.ts';
import { installTables, readPendingTables, tablesPending } from './wire.ts';

/** What reading ahead did: tables read from the cache, and bundles verified again because theirs did not check. */
export interface KeptTablesRead {
  read: number;
  verifiedAgain: number;
}

/** Reads the tables of these results' kept verifications (see the module comment); results verified in this run are left as they are. */
export async function readKeptTables(results: readonly BundleResult[], options: { cache: VerifyCache; limits?: Limits; importLimits?: ImportLimits; timestampRoots?: readonly PinnedRoot[] }): Promise<KeptTablesRead> {
  const done: KeptTablesRead = { read: 0, verifiedAgain: 0 };
  for (const result of results) {
    const evidence = result.verification.evidence;
    if (!tablesPending(evidence)) continue;
    if (await readPendingTables(evidence)) {
      done.read++;
      continue;
    }
    // The head is gone now: this verifies in full and keeps both entries again.
    const fresh = await verifyDirectory(result.path, undefined, options);
    const v = fresh.verification;
    // (The history only ever takes a verified bundle's verdict away, so a kept "verified" must verify again.)
    const kept = result.verification;
    if (fresh.content_digest !== result.content_digest || v.bundle_id !== kept.bundle_id || v.plan_id !== kept.plan_id || (kept.status === 'verified' && v.status !== 'verified')) {
      throw new Error(`${result.path} changed while it was read (verified again, it is not the bundle its kept verification described): run again`);
    }
    installTables(evidence, v.evidence);
    done.verifiedAgain++;
  }
  return done;
}
