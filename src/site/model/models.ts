/**
 * Model and agent pages (issue 29 item 10, docs/site.md "Model and agent
 * pages"): `/models/<key>/` per model id and `/agents/<key>/` per agent name
 * (every version of the agent on one page), each listing every cohort of it
 * on every board and the boards with none, and `/models/` listing them all.
 *
 * A key is the first {@link SUBJECT_KEY_DIGITS} hex digits of the SHA-256 of
 * the name's UTF-8 bytes (task-key.ts), never the name: evidence text never
 * chooses a URL. Two names of one kind whose keys would be the same (a
 * collision of 64 bits, which evidence can make only between names of its
 * own) each take the whole 64 hex digits instead, so no name's page is
 * shared and no other name's key moves. Models and agents are two
 * namespaces: a model and an agent of the same name have the same key under
 * different paths.
 *
 * Pure: the report and the board order only; sorted by compareUtf8.
 */
import type { Report, ReportCohort } from '../../report/schema.ts';
import { compareUtf8 } from '../../json/compare.ts';
import { taskKey } from '../views/task-key.ts';

/** How many hex digits of the name's SHA-256 a key has (64 for a name whose 16 another name of its kind shares). */
export const SUBJECT_KEY_DIGITS = 16;

/**
 * How many of the boards without it a model's or agent's page names (then how
 * many more): every page names boards, so a site of many boards and many
 * models would otherwise grow with their product.
 */
export const SUBJECT_MISSING_SHOWN = 100;

/** A model's or an agent's page. */
export interface SiteSubject {
  /** The model id, or the agent name (evidence text: shown escaped, never in a URL). */
  name: string;
  /** The page's key: see {@link subjectKeys}. */
  key: string;
  /** Its cohorts on every board: the boards in display order, on each board in its rank order. */
  cohorts: string[];
  /** The first SUBJECT_MISSING_SHOWN boards (display order) with no cohort of it. */
  missing: string[];
  /** How many boards have no cohort of it. */
  missingCount: number;
}

/** Every model page and every agent page of the site, each list in compareUtf8 order of the names. */
export interface SiteSubjects {
  models: SiteSubject[];
  agents: SiteSubject[];
}

/** The two kinds of subject pages and their paths. */
export type SubjectKind = 'model' | 'agent';

/** The URL path of a model's or an agent's page. */
export function subjectPath(kind: SubjectKind, key: string): string {
  return `/${kind === 'model' ? 'models' : 'agents'}/${key}/`;
}

/**
 * Each name's key: the first `digits` hex digits of SHA-256 over its UTF-8
 * bytes, or all 64 for every name whose first `digits` another name of the
 * list shares.
 */
export function subjectKeys(names: Iterable<string>, digits: number = SUBJECT_KEY_DIGITS): Map<string, string> {
  const full = new Map([...new Set(names)].map((name) => [name, taskKey(name)]));
  const shared = new Map<string, number>();
  for (const hex of full.values()) shared.set(hex.slice(0, digits), (shared.get(hex.slice(0, digits)) ?? 0) + 1);
  return new Map([...full].map(([name, hex]) => [name, shared.get(hex.slice(0, digits))! > 1 ? hex : hex.slice(0, digits)]));
}

/** The model id or agent name of a cohort, by kind. */
export function subjectNameOf(kind: SubjectKind, cohort: Pick<ReportCohort, 'subject'>): string {
  return kind === 'model' ? cohort.subject.model : cohort.subject.agent.name;
}

function subjectsOf(kind: SubjectKind, report: Pick<Report, 'boards' | 'cohorts'>, boardOrder: readonly number[]): SiteSubject[] {
  const byId = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const ordered = boardOrder.map((i) => report.boards[i]!);
  const names = [...new Set(report.cohorts.map((c) => subjectNameOf(kind, c)))].sort(compareUtf8);
  const keys = subjectKeys(names);
  const subjects = new Map(names.map((name) => [name, { name, key: keys.get(name)!, cohorts: [] as string[], boards: new Set<string>() }]));
  for (const board of ordered) {
    for (const id of board.cohorts) {
      const cohort = byId.get(id);
      if (cohort === undefined) continue;
      const s = subjects.get(subjectNameOf(kind, cohort))!;
      s.cohorts.push(id);
      s.boards.add(board.board_id);
    }
  }
  return [...subjects.values()].map(({ boards, ...s }) => {
    const missing: string[] = [];
    for (const b of ordered) {
      if (missing.length === SUBJECT_MISSING_SHOWN) break;
      if (!boards.has(b.board_id)) missing.push(b.board_id);
    }
    return { ...s, missing, missingCount: ordered.length - boards.size };
  });
}

/** The model and agent pages of a report, its boards in display order (model.ts boardOrder). */
export function siteSubjects(report: Pick<Report, 'boards' | 'cohorts'>, boardOrder: readonly number[]): SiteSubjects {
  return { models: subjectsOf('model', report, boardOrder), agents: subjectsOf('agent', report, boardOrder) };
}

const indexes = new WeakMap<SiteSubjects, { model: Map<string, SiteSubject>; agent: Map<string, SiteSubject> }>();

/** A model's or an agent's page by name (made once per model), or undefined. */
export function subjectOf(subjects: SiteSubjects, kind: SubjectKind, name: string): SiteSubject | undefined {
  let index = indexes.get(subjects);
  if (index === undefined) {
    index = { model: new Map(subjects.models.map((s) => [s.name, s])), agent: new Map(subjects.agents.map((s) => [s.name, s])) };
    indexes.set(subjects, index);
  }
  return index[kind].get(name);
}

/** The paths of a cohort's model page and agent page. */
export function subjectLinks(subjects: SiteSubjects, cohort: Pick<ReportCohort, 'subject'>): { model: string; agent: string } {
  const model = subjectOf(subjects, 'model', cohort.subject.model);
  const agent = subjectOf(subjects, 'agent', cohort.subject.agent.name);
  if (model === undefined || agent === undefined) throw new Error(`no model or agent page for ${cohort.subject.model} / ${cohort.subject.agent.name}`);
  return { model: subjectPath('model', model.key), agent: subjectPath('agent', agent.key) };
}
