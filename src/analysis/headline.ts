/**
 * The headline set (FORMAT.md section 7.3): the first holdout task of each
 * cluster, in ledger order. Other holdout tasks of a cluster form the leakage
 * watch list; non-holdout tasks are the public split. Each is reported apart.
 */
import type { LedgerRecord } from '../schema/index.ts';

/** Which split a task belongs to. */
export type Split = 'headline' | 'watch_list' | 'public';

/** A ledger's task ids by split, in ledger order, and the split of each task. */
export interface LedgerSplits {
  headline: string[];
  watch_list: string[];
  public: string[];
  splitOf: ReadonlyMap<string, Split>;
}

/** Splits a ledger (records in ledger order). */
export function splitLedger(ledger: readonly LedgerRecord[]): LedgerSplits {
  const seenClusters = new Set<string>();
  const splits: LedgerSplits = { headline: [], watch_list: [], public: [], splitOf: new Map() };
  const splitOf = splits.splitOf as Map<string, Split>;
  for (const task of ledger) {
    let split: Split;
    if (!task.holdout) split = 'public';
    else if (seenClusters.has(task.cluster_id)) split = 'watch_list';
    else {
      seenClusters.add(task.cluster_id);
      split = 'headline';
    }
    splits[split].push(task.task_id);
    splitOf.set(task.task_id, split);
  }
  return splits;
}
