/**
 * Human names for the plan, cohort, incompatibility and rejected pages
 * (issue 13): what a reader recognises (a plan's title, a subject's model and
 * agent, a ledger's name) instead of hashes, for `<title>`, headings and
 * link text; and the groupings those pages list. Boards are named by
 * src/site/board-names.ts `boardTitle`, as everywhere. Pure: reads the report
 * only.
 */
import type { Report, ReportBoard, ReportCohort } from '../report/schema.ts';
import { shortIdentity as s } from './format.ts';

/** A cohort's subject: "acme/mini-2026-08-01 · loop 3.1.0". */
export function subjectName(cohort: Pick<ReportCohort, 'subject'>): string {
  return `${s(cohort.subject.model)} · ${s(cohort.subject.agent.name)} ${s(cohort.subject.agent.version)}`;
}

/** A plan page's `<title>`: its title, or, untitled, what it ran ("Untitled plan on widget-bugs, 2026-11-16T10:00:00Z"). */
export function planPageTitle(plan: { title: string; created_at: string; ledger: { name: string } }): string {
  return plan.title !== '' ? plan.title : `Untitled plan on ${s(plan.ledger.name)}, ${plan.created_at}`;
}

/** The boards a plan feeds, in the report's board order, each with the cohorts it puts the plan's attempts in. */
export function feedsOf(report: Pick<Report, 'boards' | 'cohorts'>, planId: string): { board: ReportBoard; cohorts: ReportCohort[] }[] {
  const cohorts = report.cohorts.filter((c) => c.plans.some((p) => p.plan_id === planId));
  return report.boards
    .map((board) => ({ board, cohorts: cohorts.filter((c) => c.board_id === board.board_id) }))
    .filter((f) => f.cohorts.length > 0);
}

type Pair = Report['incompatibilities']['cohorts'][number];

/** The key of a pair's differences: its components and both values, in order. */
const differencesKey = (pair: Pair) => JSON.stringify(pair.differences.map((d) => [d.component, d.a, d.b]));

/**
 * The incompatible cohort pairs grouped by board pair, whichever order the
 * report names the two boards in: a group takes the order of its first pair,
 * and a pair naming them the other way round is shown turned (its cohorts and
 * each difference's two values swapped), so every pair of a group reads
 * "cohort on the first board / cohort on the second". Within a board pair,
 * pairs that differ otherwise (never in a report: a board pair's differences
 * are its keys') would form a group of their own, never be hidden. Every pair
 * is in exactly one group; groups and pairs keep the report's order.
 */
export function pairsByBoards(pairs: readonly Pair[]): { board_a: string; board_b: string; differences: Pair['differences']; pairs: Pair[] }[] {
  const groups = new Map<string, { board_a: string; board_b: string; differences: Pair['differences']; pairs: Pair[] }>();
  const boardsOf = new Map<string, [string, string]>();
  for (const pair of pairs) {
    const unordered = [pair.board_a, pair.board_b].sort().join(' ');
    const [first] = boardsOf.get(unordered) ?? [pair.board_a, pair.board_b];
    if (!boardsOf.has(unordered)) boardsOf.set(unordered, [pair.board_a, pair.board_b]);
    const shown: Pair =
      first === pair.board_a
        ? pair
        : { ...pair, a: pair.b, b: pair.a, board_a: pair.board_b, board_b: pair.board_a, differences: pair.differences.map((d) => ({ ...d, a: d.b, b: d.a })) };
    const key = JSON.stringify([unordered, differencesKey(shown)]);
    const group = groups.get(key);
    if (group) group.pairs.push(shown);
    else groups.set(key, { board_a: shown.board_a, board_b: shown.board_b, differences: shown.differences, pairs: [shown] });
  }
  return [...groups.values()];
}

type Incompatible = ReportCohort['incompatible_with'][number];

/** A cohort's incompatible cohorts grouped by their board (and differences), in the report's order. */
export function incompatibleByBoard(list: readonly Incompatible[]): { board_id: string; differences: Incompatible['differences']; cohorts: string[] }[] {
  const groups = new Map<string, { board_id: string; differences: Incompatible['differences']; cohorts: string[] }>();
  for (const i of list) {
    const key = JSON.stringify([i.board_id, i.differences.map((d) => [d.component, d.a, d.b])]);
    const group = groups.get(key);
    if (group) group.cohorts.push(i.cohort_id);
    else groups.set(key, { board_id: i.board_id, differences: i.differences, cohorts: [i.cohort_id] });
  }
  return [...groups.values()];
}
