/**
 * What changed between two reports (issue 14, item 4): the cohorts added,
 * removed and moved from an older report to a newer one, each with its
 * figures before and after and the causes the two reports show. A pure
 * function of the two report objects: no clock, no disk, sorted output.
 */
import type { Report, ReportCohort } from '../report/schema.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** Why a cohort changed, as far as the two reports show it (in this order wherever listed). */
export const CAUSES = ['new_plan', 'appended_attempts', 'regrade', 'withdrawn_evidence', 'config_change'] as const;
export type ChangeCause = (typeof CAUSES)[number];

export const CAUSE_TEXT: Record<ChangeCause, string> = {
  new_plan: 'new plan',
  appended_attempts: 'appended attempts',
  regrade: 'a regrade',
  withdrawn_evidence: 'withdrawn evidence',
  config_change: 'config change',
};

/** The figures of one cohort in one report that a change is read from. */
export interface CohortFigures {
  resolved: number;
  graded: number;
  rate: number | null;
  rank: number;
  /** Null when the report predates rank ranges. */
  rank_range: [number, number] | null;
  verdict: ReportCohort['verdict'];
  attempts: number;
}

/** The figures that moved between two reports. */
export type MovedField = 'rate' | 'rank' | 'rank_range' | 'verdict' | 'attempts';

export interface CohortChange {
  kind: 'added' | 'removed' | 'moved';
  cohort_id: string;
  board_id: string;
  model: string;
  agent: string;
  role: 'candidate' | 'baseline';
  /** Null for an added cohort. */
  before: CohortFigures | null;
  /** Null for a removed cohort. */
  after: CohortFigures | null;
  /** For a moved cohort, which figures differ (in MovedField order); empty otherwise. */
  fields: MovedField[];
  causes: ChangeCause[];
  /**
   * True when the cohort's own plans, attempts and grading did not change and
   * `causes` are those of the other changes on its board (a rank range or a
   * rank moves when another cohort of the board does).
   */
  via_board: boolean;
}

export interface ReportDiff {
  older: string;
  newer: string;
  config_changed: boolean;
  /** Plans counted in the newer report and in no bundle the older one counted, sorted. */
  new_plans: string[];
  /** Bundles counted in the older report whose plan the newer one counts in no bundle (withdrawn), sorted. */
  withdrawn_bundles: string[];
  /** Sorted by kind (added, removed, moved), then board id, then cohort id. */
  changes: CohortChange[];
  /** Every cause of a change, plus the config change when the digests differ (CAUSES order). */
  causes: ChangeCause[];
}

function figures(c: ReportCohort): CohortFigures {
  return {
    resolved: c.headline.resolved,
    graded: c.headline.graded,
    rate: c.headline.rate,
    rank: c.rank,
    rank_range: c.rank_range ? [c.rank_range[0], c.rank_range[1]] : null,
    verdict: c.verdict,
    attempts: c.attempts,
  };
}

function movedFields(a: CohortFigures, b: CohortFigures): MovedField[] {
  const fields: MovedField[] = [];
  if (a.rate !== b.rate || a.resolved !== b.resolved || a.graded !== b.graded) fields.push('rate');
  if (a.rank !== b.rank) fields.push('rank');
  // A report retained before rank ranges carries none: not a move.
  if (a.rank_range !== null && b.rank_range !== null && (a.rank_range[0] !== b.rank_range[0] || a.rank_range[1] !== b.rank_range[1])) fields.push('rank_range');
  if (a.verdict !== b.verdict) fields.push('verdict');
  if (a.attempts !== b.attempts) fields.push('attempts');
  return fields;
}

/** The counted bundles with their ids and plans (a counted bundle always has both). */
const counted = (r: Report) => r.bundles.flatMap((b) => (b.counted && b.bundle_id !== null && b.plan_id !== null ? [{ bundle_id: b.bundle_id, plan_id: b.plan_id }] : []));
/** The regrade generations grading a cohort; undefined for a report retained before regrades were reported (not known, not compared). */
const generationsOf = (c: ReportCohort) => (c.regrade === undefined ? undefined : JSON.stringify((c.regrade?.generations ?? []).map((g) => `${g.plan_id}:${g.generation}`).sort()));

/** The change from `older` to `newer` (the report listed before it, by evidence date then id). */
export function diffReports(older: Report, newer: Report): ReportDiff {
  const olderPlans = new Set(counted(older).map((b) => b.plan_id));
  // A plan's bundle id changes whenever its files do (an append, a regrade's grades): evidence is withdrawn when the plan is counted no more.
  const newerPlans = new Set(counted(newer).map((b) => b.plan_id));
  const configChanged = older.config_digest !== newer.config_digest;
  const before = new Map(older.cohorts.map((c) => [c.cohort_id, c]));
  const after = new Map(newer.cohorts.map((c) => [c.cohort_id, c]));
  // Cohorts of the older report that a newer cohort's regrade names as where its plans put it under generation 1.
  const regradedFrom = new Set(newer.cohorts.flatMap((c) => (c.regrade?.earlier ?? []).map((e) => e.cohort_id)));

  const causesOf = (a: ReportCohort | null, b: ReportCohort | null): ChangeCause[] => {
    const found = new Set<ChangeCause>();
    const plansA = new Set((a?.plans ?? []).map((p) => p.plan_id));
    const plansB = new Set((b?.plans ?? []).map((p) => p.plan_id));
    if (b !== null && b.plans.some((p) => !plansA.has(p.plan_id) && !olderPlans.has(p.plan_id))) found.add('new_plan');
    if (a !== null && b !== null && plansA.size === plansB.size && [...plansA].every((p) => plansB.has(p)) && b.attempts > a.attempts) found.add('appended_attempts');
    if (a !== null && b !== null && generationsOf(a) !== undefined && generationsOf(b) !== undefined && generationsOf(a) !== generationsOf(b)) found.add('regrade');
    if (a === null && b !== null && (b.regrade?.earlier ?? []).some((e) => before.has(e.cohort_id))) found.add('regrade');
    if (a !== null && b === null && regradedFrom.has(a.cohort_id)) found.add('regrade');
    if (a !== null && a.plans.some((p) => !newerPlans.has(p.plan_id))) found.add('withdrawn_evidence');
    if (configChanged) found.add('config_change');
    return CAUSES.filter((c) => found.has(c));
  };

  const change = (kind: CohortChange['kind'], a: ReportCohort | null, b: ReportCohort | null, fields: MovedField[]): CohortChange => {
    const c = (b ?? a)!;
    return {
      kind,
      cohort_id: c.cohort_id,
      board_id: c.board_id,
      model: c.subject.model,
      agent: `${c.subject.agent.name} ${c.subject.agent.version}`,
      role: c.subject.role,
      before: a === null ? null : figures(a),
      after: b === null ? null : figures(b),
      fields,
      causes: causesOf(a, b),
      via_board: false,
    };
  };

  const changes: CohortChange[] = [];
  for (const b of newer.cohorts) {
    const a = before.get(b.cohort_id);
    if (a === undefined) changes.push(change('added', null, b, []));
    else {
      const fields = movedFields(figures(a), figures(b));
      if (fields.length > 0) changes.push(change('moved', a, b, fields));
    }
  }
  for (const a of older.cohorts) if (!after.has(a.cohort_id)) changes.push(change('removed', a, null, []));
  // A cohort that moved with nothing of its own changed moved with its board: the causes of the board's other changes.
  const own = new Map<string, Set<ChangeCause>>();
  for (const c of changes) for (const cause of c.causes) (own.get(c.board_id) ?? own.set(c.board_id, new Set()).get(c.board_id)!).add(cause);
  for (const c of changes) {
    const board = own.get(c.board_id);
    if (c.kind === 'moved' && c.causes.length === 0 && board !== undefined) {
      c.causes = CAUSES.filter((k) => board.has(k));
      c.via_board = true;
    }
  }
  const order = { added: 0, removed: 1, moved: 2 } as const;
  changes.sort((x, y) => order[x.kind] - order[y.kind] || byString(x.board_id, y.board_id) || byString(x.cohort_id, y.cohort_id));

  const all = new Set(changes.flatMap((c) => c.causes));
  if (configChanged) all.add('config_change');
  return {
    older: older.report_id,
    newer: newer.report_id,
    config_changed: configChanged,
    new_plans: [...new Set(counted(newer).map((b) => b.plan_id))].filter((p) => !olderPlans.has(p)).sort(byString),
    withdrawn_bundles: counted(older)
      .filter((b) => !newerPlans.has(b.plan_id))
      .map((b) => b.bundle_id)
      .sort(byString),
    changes,
    causes: CAUSES.filter((c) => all.has(c)),
  };
}

/** The one-line summary: "2 cohorts added, 1 moved (new plan)"; "no cohort changed" when none did. */
export function diffSummary(diff: ReportDiff): string {
  const count = (kind: CohortChange['kind']) => diff.changes.filter((c) => c.kind === kind).length;
  const parts = (['added', 'removed', 'moved'] as const).flatMap((kind) => (count(kind) > 0 ? [[count(kind), kind] as const] : []));
  const head =
    parts.length === 0
      ? 'no cohort changed'
      : parts.map(([n, kind], i) => (i === 0 ? `${n} ${n === 1 ? 'cohort' : 'cohorts'} ${kind}` : `${n} ${kind}`)).join(', ');
  const causes = diff.causes.map((c) => CAUSE_TEXT[c]);
  if (causes.length > 0) return `${head} (${causes.join(', ')})`;
  return parts.length === 0 ? head : `${head} (cause not shown by the two reports)`;
}
