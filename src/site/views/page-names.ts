/**
 * Human names for the plan, cohort, incompatibility and rejected pages
 * (issue 13): what a reader recognises (a plan's title, a subject's model and
 * agent, a ledger's name) instead of hashes, for `<title>`, headings and
 * link text; and the groupings those pages list. Boards are named by
 * src/site/views/board-names.ts `boardTitle`, as everywhere. Pure: reads the report
 * only.
 */
import type { GroupedIncompatibilities, Report, ReportBoard, ReportCohort } from '../../report/schema.ts';
import { shortIdentity as s } from './format.ts';
import { importedTime } from './not-recorded.ts';

/** A cohort's subject: "acme/mini-2026-08-01 · loop 3.1.0". */
export function subjectName(cohort: Pick<ReportCohort, 'subject'>): string {
  return `${s(cohort.subject.model)} · ${s(cohort.subject.agent.name)} ${s(cohort.subject.agent.version)}`;
}

/** A plan page's `<title>`: its title, or, untitled, what it ran ("Untitled plan on widget-bugs, 2026-11-16T10:00:00Z"). */
export function planPageTitle(plan: { title: string; created_at: string; ledger: { name: string }; origin?: { kind: string } | null }): string {
  return plan.title !== '' ? plan.title : `Untitled plan on ${s(plan.ledger.name)}, ${importedTime(plan.created_at, plan.origin?.kind === 'imported')}`;
}

/** The boards a plan feeds, in the report's board order, each with the cohorts it puts the plan's attempts in. */
export function feedsOf(report: Pick<Report, 'boards' | 'cohorts'>, planId: string): { board: ReportBoard; cohorts: ReportCohort[] }[] {
  const cohorts = report.cohorts.filter((c) => c.plans.some((p) => p.plan_id === planId));
  return report.boards
    .map((board) => ({ board, cohorts: cohorts.filter((c) => c.board_id === board.board_id) }))
    .filter((f) => f.cohorts.length > 0);
}

type LedgerGroup = GroupedIncompatibilities['by_ledger'][number];

/** One ledger's group indexed once: each board's value group per component (a page asks many times; the groups stay linear). */
const indexes = new WeakMap<LedgerGroup, Map<string, number[]>>();
function indexOf(group: LedgerGroup): Map<string, number[]> {
  let index = indexes.get(group);
  if (!index) {
    index = new Map(group.boards.map((b) => [b.board_id, group.components.map(() => -1)]));
    group.components.forEach((c, i) => c.values.forEach((v, j) => v.boards.forEach((board) => (index!.get(board)![i] = j))));
    indexes.set(group, index);
  }
  return index;
}

/**
 * The differences of two boards of one ledger's group (as keyDifferences
 * gives them: src/analysis/incompatibilities.ts pairDifferences), read from
 * an index of the group made once.
 */
export function boardDifferences(group: LedgerGroup, boardA: string, boardB: string): { component: string; a: unknown; b: unknown }[] {
  const index = indexOf(group);
  const a = index.get(boardA);
  const b = index.get(boardB);
  if (!a || !b) return [];
  const out: { component: string; a: unknown; b: unknown }[] = [];
  group.components.forEach((c, i) => {
    if (a[i]! < 0 || b[i]! < 0 || a[i] === b[i]) return;
    const va = c.values[a[i]!]!.value;
    const vb = c.values[b[i]!]!.value;
    const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
    if (isObject(va) && isObject(vb)) return;
    out.push({ component: c.component, a: va, b: vb });
  });
  return out;
}

/** The ledger group a board belongs to, or null when its ledger has one board. */
export function ledgerGroupOf(incompatibilities: GroupedIncompatibilities, boardId: string, ledgerDigest: string): LedgerGroup | null {
  const group = incompatibilities.by_ledger.find((g) => g.ledger_digest === ledgerDigest);
  return group && group.boards.some((b) => b.board_id === boardId) ? group : null;
}

/** How many boards (and cohorts of each) a cohort page lists by name before pointing to the incompatibilities page. */
export const INCOMPATIBLE_BOARDS_SHOWN = 20;

/**
 * What a cohort cannot be pooled with: the other boards of its ledger (the
 * first {@link INCOMPATIBLE_BOARDS_SHOWN}, in board id order, each with its
 * first cohorts, their number and what differs from this board), how many more, and the number
 * of cohorts on all of them. Bounded per page, so the cohort pages stay
 * linear in the cohorts whatever the number of boards on a ledger.
 */
export function incompatibleOf(
  incompatibilities: GroupedIncompatibilities,
  cohort: Pick<ReportCohort, 'board_id' | 'ledger_digest'>,
): { boards: { board_id: string; cohorts: string[]; of: number; differences: { component: string; a: unknown; b: unknown }[] }[]; more: number; cohorts: number } {
  const group = ledgerGroupOf(incompatibilities, cohort.board_id, cohort.ledger_digest);
  if (!group) return { boards: [], more: 0, cohorts: 0 };
  const others = group.boards.filter((b) => b.board_id !== cohort.board_id);
  return {
    boards: others.slice(0, INCOMPATIBLE_BOARDS_SHOWN).map((b) => ({
      board_id: b.board_id,
      cohorts: b.cohorts.slice(0, INCOMPATIBLE_BOARDS_SHOWN),
      of: b.cohorts.length,
      differences: boardDifferences(group, cohort.board_id, b.board_id),
    })),
    more: Math.max(0, others.length - INCOMPATIBLE_BOARDS_SHOWN),
    cohorts: others.reduce((n, b) => n + b.cohorts.length, 0),
  };
}
