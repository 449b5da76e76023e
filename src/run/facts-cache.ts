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
 */
import { join } from 'node:path';
import type { Report } from '../report/schema.ts';
import { digestCanonical } from '../json/canonical.ts';
import { readSealed, writeSealed } from '../cache/sealed.ts';
import { codeIdentity, type VerifyCache } from '../pipeline/verify-cache.ts';
import { CompareBoardFactsSchema, type CompareBoardFacts } from '../facts/compare.ts';
import type { CompareFactsStore } from '../facts/index.ts';

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
