/**
 * What cannot be compared (FORMAT.md 7.1): every pair of cohorts on the same
 * ledger but different boards, with each differing key component and both
 * values; and ledgers with the same name but different digests, with how many
 * tasks changed, were added or removed.
 */
import { digestCanonical } from '../json/canonical.ts';
import type { LedgerRecord } from '../schema/index.ts';
import { keyDifferences, type BoardKey, type KeyDifference } from './keys.ts';

/** Two cohorts that share a ledger but not a board. `a` < `b` by cohort id. */
export interface CohortIncompatibility {
  a: string;
  b: string;
  board_a: string;
  board_b: string;
  differences: KeyDifference[];
}

/** Two ledgers with one name. `a` < `b` by digest. */
export interface LedgerIncompatibility {
  name: string;
  a: string;
  b: string;
  changed: string[];
  added: string[];
  removed: string[];
}

/** Pairs of cohorts on one ledger and different boards, sorted by (a, b). */
export function cohortIncompatibilities(
  cohorts: readonly { cohort_id: string; board_id: string }[],
  boards: ReadonlyMap<string, BoardKey>,
): CohortIncompatibility[] {
  const sorted = [...cohorts].sort((x, y) => (x.cohort_id < y.cohort_id ? -1 : 1));
  const diffCache = new Map<string, KeyDifference[]>();
  const out: CohortIncompatibility[] = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      const x = sorted[i]!;
      const y = sorted[j]!;
      if (x.board_id === y.board_id) continue;
      const kx = boards.get(x.board_id)!;
      const ky = boards.get(y.board_id)!;
      if (kx.ledger_digest !== ky.ledger_digest) continue;
      const cacheKey = `${x.board_id}/${y.board_id}`;
      let differences = diffCache.get(cacheKey);
      if (!differences) {
        differences = keyDifferences(kx, ky);
        diffCache.set(cacheKey, differences);
      }
      out.push({ a: x.cohort_id, b: y.cohort_id, board_a: x.board_id, board_b: y.board_id, differences });
    }
  }
  return out;
}

/** Ledgers sharing a name with different digests, with the task ids that changed, were added (in b) or removed (from a). */
export function ledgerIncompatibilities(ledgers: ReadonlyMap<string, { name: string; records: readonly LedgerRecord[] }>): LedgerIncompatibility[] {
  const byName = new Map<string, string[]>();
  for (const [digest, { name }] of ledgers) byName.set(name, [...(byName.get(name) ?? []), digest]);
  const out: LedgerIncompatibility[] = [];
  for (const [name, digests] of [...byName].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    const sorted = [...digests].sort();
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length; j++) {
        const a = new Map(ledgers.get(sorted[i]!)!.records.map((r) => [r.task_id, digestCanonical(r)]));
        const b = new Map(ledgers.get(sorted[j]!)!.records.map((r) => [r.task_id, digestCanonical(r)]));
        const changed = [...a.keys()].filter((id) => b.has(id) && b.get(id) !== a.get(id)).sort();
        const removed = [...a.keys()].filter((id) => !b.has(id)).sort();
        const added = [...b.keys()].filter((id) => !a.has(id)).sort();
        out.push({ name, a: sorted[i]!, b: sorted[j]!, changed, added, removed });
      }
    }
  }
  return out;
}
