/**
 * What cannot be compared (FORMAT.md 7.1), grouped so its size grows with the
 * boards and ledgers, never with the pairs of them (issue 25: pairs made
 * report.json 523 MB at 2,000 bundles of one ledger name):
 *
 * - per ledger with two boards or more: its boards with their cohorts, and
 *   per key component that is not the same on all of them, each value with
 *   the boards holding it. Every two cohorts on different boards of the
 *   ledger are an incompatible pair; their differences follow from the
 *   groups ({@link pairDifferences}), exactly keyDifferences of the two keys.
 * - per ledger name with two digests or more: the digests, and per task id
 *   not held alike by all of them, each version of its record (its RFC 8785
 *   digest) with the ledgers holding it. Between two ledgers a task changed
 *   when they hold different versions, was added or removed when one holds
 *   none ({@link ledgerPairChanges}).
 *
 * docs/format-decisions.md says why this form meets 7.1's "every pair".
 */
import { canonicalJson, digestCanonical } from '../json/canonical.ts';
import type { LedgerRecord } from '../schema/index.ts';
import type { BoardKey, KeyDifference } from './keys.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** A key component's values on one ledger's boards: each value once, with the boards holding it (sorted). */
export interface ComponentValues {
  component: string;
  values: { value: unknown; boards: string[] }[];
}

/** The incompatibilities of one ledger: its boards (sorted), each with its cohorts (sorted), and the components that differ. */
export interface LedgerBoards {
  ledger_digest: string;
  boards: { board_id: string; cohorts: string[] }[];
  components: ComponentValues[];
}

/** Ledgers sharing a name: the digests (sorted), and per task id that differs among them, its versions. */
export interface NamedLedgers {
  name: string;
  ledgers: string[];
  tasks: { task_id: string; versions: { record: string; ledgers: string[] }[] }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Per ledger holding cohorts on two boards or more, the boards with their
 * cohorts and the key components that differ among them; sorted by ledger
 * digest. Linear in the cohorts and boards (times the key's components).
 */
export function cohortIncompatibilities(
  cohorts: readonly { cohort_id: string; board_id: string }[],
  boards: ReadonlyMap<string, BoardKey>,
): LedgerBoards[] {
  const byLedger = new Map<string, Map<string, string[]>>();
  for (const { cohort_id, board_id } of cohorts) {
    const ledger = boards.get(board_id)!.ledger_digest;
    let onLedger = byLedger.get(ledger);
    if (!onLedger) byLedger.set(ledger, (onLedger = new Map()));
    const list = onLedger.get(board_id);
    if (list) list.push(cohort_id);
    else onLedger.set(board_id, [cohort_id]);
  }
  const out: LedgerBoards[] = [];
  for (const [ledger_digest, onLedger] of [...byLedger].sort((x, y) => byString(x[0], y[0]))) {
    if (onLedger.size < 2) continue;
    const ids = [...onLedger.keys()].sort(byString);
    const components: ComponentValues[] = [];
    groupComponents(
      '',
      ids.map((board) => ({ board, value: boards.get(board) as unknown })),
      components,
    );
    out.push({ ledger_digest, boards: ids.map((board_id) => ({ board_id, cohorts: [...onLedger.get(board_id)!].sort(byString) })), components });
  }
  return out;
}

/**
 * The components of keys at `path` that differ, in the order keyDifferences
 * visits them (keys sorted at every level): where some board holds a value
 * that is not an object there (a missing member counts as null), the values
 * grouped (objects whole) when there is more than one; then, among the boards
 * holding an object there, the components below it.
 */
function groupComponents(path: string, entries: readonly { board: string; value: unknown }[], out: ComponentValues[]): void {
  const objects = entries.filter((e) => isObject(e.value));
  if (objects.length < entries.length) {
    const groups = new Map<string, { value: unknown; boards: string[] }>();
    for (const { board, value } of entries) {
      const text = canonicalJson(value ?? null);
      const group = groups.get(text);
      if (group) group.boards.push(board);
      else groups.set(text, { value: value ?? null, boards: [board] });
    }
    if (groups.size > 1) out.push({ component: path, values: [...groups].sort((x, y) => byString(x[0], y[0])).map(([, g]) => g) });
  }
  if (objects.length < 2) return;
  const keys = [...new Set(objects.flatMap((e) => Object.keys(e.value as object)))].sort();
  for (const key of keys) {
    groupComponents(
      path ? `${path}.${key}` : key,
      objects.map((e) => ({ board: e.board, value: (e.value as Record<string, unknown>)[key] })),
      out,
    );
  }
}

/**
 * The differences of two boards of one ledger's group, as keyDifferences
 * gives them: each component where the boards hold different values, in the
 * group's order, unless both values are objects (then the components below
 * it say what differs). Empty when either board is not in the group.
 */
export function pairDifferences(group: Pick<LedgerBoards, 'components'>, boardA: string, boardB: string): KeyDifference[] {
  const out: KeyDifference[] = [];
  for (const { component, values } of group.components) {
    const a = values.find((v) => v.boards.includes(boardA));
    const b = values.find((v) => v.boards.includes(boardB));
    if (a === undefined || b === undefined || a === b || (isObject(a.value) && isObject(b.value))) continue;
    out.push({ component, a: a.value, b: b.value });
  }
  return out;
}

/**
 * Ledgers sharing a name with different digests, per name (sorted): the
 * digests, and each task id (sorted) that is missing from one of them or has
 * more than one version, with its versions (by record digest, sorted) and the
 * ledgers holding each. Linear in the ledgers' records.
 */
export function ledgerIncompatibilities(ledgers: ReadonlyMap<string, { name: string; records: readonly LedgerRecord[] }>): NamedLedgers[] {
  const byName = new Map<string, string[]>();
  for (const [digest, { name }] of ledgers) {
    const list = byName.get(name);
    if (list) list.push(digest);
    else byName.set(name, [digest]);
  }
  const out: NamedLedgers[] = [];
  for (const [name, digests] of [...byName].sort((x, y) => byString(x[0], y[0]))) {
    if (digests.length < 2) continue;
    const sorted = [...digests].sort(byString);
    // task id -> record digest -> ledgers holding that version (in digest order, so each list comes sorted).
    const tasks = new Map<string, Map<string, string[]>>();
    for (const digest of sorted) {
      // A task id twice in one ledger (never in a verified one): its last record, as before.
      const records = new Map(ledgers.get(digest)!.records.map((r) => [r.task_id, digestCanonical(r)]));
      for (const [task_id, version] of records) {
        let versions = tasks.get(task_id);
        if (!versions) tasks.set(task_id, (versions = new Map()));
        const holders = versions.get(version);
        if (holders) holders.push(digest);
        else versions.set(version, [digest]);
      }
    }
    const differing: NamedLedgers['tasks'] = [];
    for (const [task_id, versions] of [...tasks].sort((x, y) => byString(x[0], y[0]))) {
      if (versions.size === 1 && [...versions.values()][0]!.length === sorted.length) continue;
      differing.push({ task_id, versions: [...versions].sort((x, y) => byString(x[0], y[0])).map(([record, list]) => ({ record, ledgers: list })) });
    }
    out.push({ name, ledgers: sorted, tasks: differing });
  }
  return out;
}

/** What changed from ledger `a` to ledger `b` of one name's group: task ids changed, added (in b only) and removed (in a only), sorted. */
export function ledgerPairChanges(group: Pick<NamedLedgers, 'tasks'>, a: string, b: string): { changed: string[]; added: string[]; removed: string[] } {
  const changed: string[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  for (const { task_id, versions } of group.tasks) {
    const va = versions.find((v) => v.ledgers.includes(a));
    const vb = versions.find((v) => v.ledgers.includes(b));
    if (va && vb) {
      if (va !== vb) changed.push(task_id);
    } else if (va) removed.push(task_id);
    else if (vb) added.push(task_id);
  }
  return { changed, added, removed };
}

/**
 * Every incompatible cohort pair the groups stand for, as reports before
 * issue 25 listed them: `a` < `b` by cohort id, sorted by (a, b). Quadratic
 * by nature: for tests and small reports only, never for the report itself.
 */
export function expandCohortPairs(groups: readonly LedgerBoards[]): { a: string; b: string; board_a: string; board_b: string; differences: KeyDifference[] }[] {
  const out: { a: string; b: string; board_a: string; board_b: string; differences: KeyDifference[] }[] = [];
  for (const group of groups) {
    const cohorts = group.boards.flatMap((b) => b.cohorts.map((cohort) => ({ cohort, board: b.board_id }))).sort((x, y) => byString(x.cohort, y.cohort));
    for (let i = 0; i < cohorts.length; i++) {
      for (let j = i + 1; j < cohorts.length; j++) {
        const x = cohorts[i]!;
        const y = cohorts[j]!;
        if (x.board === y.board) continue;
        out.push({ a: x.cohort, b: y.cohort, board_a: x.board, board_b: y.board, differences: pairDifferences(group, x.board, y.board) });
      }
    }
  }
  return out.sort((x, y) => byString(x.a, y.a) || byString(x.b, y.b));
}

/** Every pair of ledgers sharing a name the groups stand for, as reports before issue 25 listed them (quadratic: tests only). */
export function expandLedgerPairs(groups: readonly NamedLedgers[]): { name: string; a: string; b: string; changed: string[]; added: string[]; removed: string[] }[] {
  return groups.flatMap((group) =>
    group.ledgers.flatMap((a, i) => group.ledgers.slice(i + 1).map((b) => ({ name: group.name, a, b, ...ledgerPairChanges(group, a, b) }))),
  );
}

/** How many incompatible cohort pairs the groups stand for (every two cohorts on different boards of a ledger), without listing them. */
export function cohortPairCount(groups: readonly LedgerBoards[]): number {
  let count = 0;
  for (const group of groups) {
    let cohorts = 0;
    let sameBoard = 0;
    for (const { cohorts: list } of group.boards) {
      cohorts += list.length;
      sameBoard += (list.length * (list.length - 1)) / 2;
    }
    count += (cohorts * (cohorts - 1)) / 2 - sameBoard;
  }
  return count;
}
