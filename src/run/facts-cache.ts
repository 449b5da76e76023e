/**
 * The site facts' cache (src/facts), beside the report cache (same
 * directory, same secret): a board's compare facts (the paired bootstrap of
 * every compare page, the costly part of the facts) are a pure function of
 * what facts/compare.ts compareInputs names (the board's cohorts, pairs,
 * headline and per-task sides, the bundles each cohort pools, the config
 * digest, the cap), so a run whose board has the same inputs takes them
 * instead of resampling again. A run whose report is kept (report-cache.ts)
 * takes every board's; a run where one ledger gained a bundle computes only
 * the boards whose inputs changed. A hit reads no table: the inputs come from
 * the report alone.
 *
 * - The key is the SHA-256 of the canonical JSON of the format, the code
 *   identity (verify-cache.ts) and the digest of the board's compare inputs.
 * - An entry is `facts-<key-hex>.json`, sealed like every cache entry
 *   (cache/sealed.ts: the format, the key and an HMAC under the cache's
 *   secret); the rest is `{ board_id, facts }` as JSON. It is taken only when
 *   the seal checks, the JSON parses, the facts fit their schema
 *   (facts/compare.ts CompareBoardFactsSchema), name the same board and hold a
 *   side for each of its cohorts and pages of its pairs; anything else is
 *   ignored, computed again and rewritten.
 *
 * The task pages' attempt index (facts/attempt-index.ts) is kept here too,
 * one part per ledger (its counted bundles, its boards): the key is the
 * SHA-256 of the canonical JSON of its format, the code identity and the
 * digest of what the part is made from (facts/attempt-index-parts.ts
 * ledgerIndexInputs: the ledger, the grading pin, the ledger's boards, the
 * bundle ids, plan ids and content digests it pools). An entry is
 * `index-<key-hex>.json`, sealed, `{ ledger, part }` as JSON, taken only when
 * the seal checks, it names this ledger and the part checks against the
 * report (checkLedgerIndex: its schema, exactly the ledger's bundles, boards,
 * tasks and cohorts, counts agreeing with the report's per-cohort terminal
 * classes); anything else is ignored, made again and rewritten. A kept part
 * reads no table; a part made again first reads its bundles' kept tables
 * (pipeline/kept-tables.ts, which verifies a bundle again whose tables do
 * not check).
 */
import { join } from 'node:path';
import type { Report } from '../report/schema.ts';
import { digestCanonical } from '../json/canonical.ts';
import { readSealed, writeSealed } from '../cache/sealed.ts';
import { codeIdentity, type VerifyCache } from '../pipeline/verify-cache.ts';
import { CompareBoardFactsSchema, type CompareBoardFacts } from '../facts/compare.ts';
import type { AttemptIndexStore, CompareFactsStore } from '../facts/index.ts';
import type { AttemptIndex } from '../facts/attempt-index.ts';
import { checkLedgerIndex } from '../facts/attempt-index-parts.ts';
import type { BundleResult } from '../pipeline/results.ts';
import { readKeptTables } from '../pipeline/kept-tables.ts';
import type { Limits } from '../evidence/limits.ts';
import type { ImportLimits } from '../import/limits.ts';
import type { PinnedRoot } from '../anchor/check.ts';

/** The name of the entry format, on the first line of every compare facts entry. */
export const FACTS_CACHE_FORMAT = 'ledgerboard.compare-facts.v1';

/** The key of a board's compare facts whose inputs digest to `inputs` (facts/compare.ts compareInputsDigest). */
export function factsKey(inputs: string): string {
  return digestCanonical({ format: FACTS_CACHE_FORMAT, code: codeIdentity(), inputs });
}

/** The path of the entry of a key. */
export function factsPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `facts-${key.slice('sha256:'.length)}.json`);
}

/** The kept compare facts of a board for a key, or null (none, or one that does not check: see the module comment). */
export async function readCachedFacts(cache: VerifyCache, key: string, board: Pick<Report['boards'][number], 'board_id' | 'cohorts' | 'pairs'>): Promise<CompareBoardFacts | null> {
  const body = await readSealed(cache, factsPath(cache, key), FACTS_CACHE_FORMAT, key);
  if (body === null) return null;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value !== 'object' || value === null || (value as { board_id?: unknown }).board_id !== board.board_id) return null;
    const parsed = CompareBoardFactsSchema.safeParse((value as { facts?: unknown }).facts);
    if (!parsed.success) return null;
    const facts = parsed.data;
    // The facts of this board: a side for each of its cohorts (and no other), pages of its own pairs.
    const ids = Object.keys(facts.sides);
    if (ids.length !== board.cohorts.length || !board.cohorts.every((id) => Object.hasOwn(facts.sides, id))) return null;
    const pairs = board.pairs ?? [];
    if (facts.pairs !== pairs.length || !facts.pages.every((p) => p.pair < pairs.length && pairs[p.pair]!.a === p.a && pairs[p.pair]!.b === p.b)) return null;
    return facts;
  } catch {
    return null;
  }
}

/** Keeps a board's compare facts under its key (atomically; a failure is ignored: the cache only saves time). */
export async function writeCachedFacts(cache: VerifyCache, key: string, board_id: string, facts: CompareBoardFacts): Promise<void> {
  await writeSealed(cache, factsPath(cache, key), FACTS_CACHE_FORMAT, key, JSON.stringify({ board_id, facts }));
}

/** The compare facts store over a cache, for the report's boards (facts/index.ts computeSiteFacts). */
export function factsStore(cache: VerifyCache, report: Pick<Report, 'boards'>): CompareFactsStore {
  const boards = new Map(report.boards.map((b) => [b.board_id, b]));
  return {
    kept: async (board_id, inputs) => {
      const board = boards.get(board_id);
      return board === undefined ? null : readCachedFacts(cache, factsKey(inputs), board);
    },
    made: (board_id, inputs, facts) => writeCachedFacts(cache, factsKey(inputs), board_id, facts),
  };
}

/** The name of the entry format, on the first line of every attempt index entry. */
export const INDEX_CACHE_FORMAT = 'ledgerboard.attempt-index.v1';

/** The key of a ledger's part of the attempt index whose inputs digest to `inputs` (facts/attempt-index-parts.ts ledgerIndexInputs). */
export function indexKey(inputs: string): string {
  return digestCanonical({ format: INDEX_CACHE_FORMAT, code: codeIdentity(), inputs });
}

/** The path of the attempt index entry of a key. */
export function indexPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `index-${key.slice('sha256:'.length)}.json`);
}

/** The kept part of a ledger for a key, or null (none, or one that does not check: see the module comment). */
export async function readCachedIndex(cache: VerifyCache, key: string, report: Pick<Report, 'bundles' | 'boards' | 'cohorts'>, ledger: string): Promise<AttemptIndex | null> {
  const body = await readSealed(cache, indexPath(cache, key), INDEX_CACHE_FORMAT, key);
  if (body === null) return null;
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (typeof value !== 'object' || value === null || (value as { ledger?: unknown }).ledger !== ledger) return null;
    const checked = checkLedgerIndex(report, ledger, (value as { part?: unknown }).part);
    return 'part' in checked ? checked.part : null;
  } catch {
    return null;
  }
}

/** Keeps a ledger's part of the attempt index under its key (atomically; a failure is ignored: the cache only saves time). */
export async function writeCachedIndex(cache: VerifyCache, key: string, ledger: string, part: AttemptIndex): Promise<void> {
  await writeSealed(cache, indexPath(cache, key), INDEX_CACHE_FORMAT, key, JSON.stringify({ ledger, part }));
}

/**
 * The attempt index store over a cache, for a report (facts/index.ts
 * computeSiteFacts). With `results` (the pipeline's), a part made again
 * reads its bundles' kept tables first (pipeline/kept-tables.ts).
 */
export function attemptIndexStore(
  cache: VerifyCache,
  report: Pick<Report, 'bundles' | 'boards' | 'cohorts'>,
  results?: readonly BundleResult[],
  options: { limits?: Limits; importLimits?: ImportLimits; timestampRoots?: readonly PinnedRoot[] } = {},
): AttemptIndexStore {
  return {
    kept: (ledger, inputs) => readCachedIndex(cache, indexKey(inputs), report, ledger),
    made: (ledger, inputs, part) => writeCachedIndex(cache, indexKey(inputs), ledger, part),
    ...(results === undefined
      ? {}
      : {
          readTables: async (digests: readonly string[]) => {
            const wanted = new Set(digests);
            await readKeptTables(results.filter((r) => wanted.has(r.content_digest)), { cache, ...options });
          },
        }),
  };
}
