/**
 * What a reader calls a board: its ledger's name, plus only the key
 * components that tell it apart from the other boards on a ledger of that
 * name ("widget-bugs · tool policy 3ac3b860 · grader 1.2.1"). The board id
 * is shown beside the title, never inside it, so a title holds no digest
 * longer than 8 hex digits of its own making. And the leaderboard's layout:
 * which boards get a section and which collapse into the one "Imported
 * runs" table. Pure; the same report gives the same names everywhere.
 */
import type { ReportBoard } from '../../report/schema.ts';
import { hexOf, shortIdentity } from './format.ts';

type Key = ReportBoard['key'];

/** How many characters of an evidence string (a version, an isolation) a title shows before cutting it. */
const PART_CHARS = 40;

/** Deep equality of two JSON values (the key's leaves are strings, numbers, null, arrays of objects). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((x, i) => same(x, bs[i]));
  }
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return same(ka, kb) && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The first 8 hex digits of a `sha256:` digest; any other value shortened as an identity. */
function hex8(value: string): string {
  return /^sha256:[0-9a-f]{64}$/.test(value) ? hexOf(value).slice(0, 8) : shortIdentity(value, PART_CHARS);
}

const text = (value: string): string => shortIdentity(value, PART_CHARS);

/** The components a title may name, in the order it names them. */
export const TITLE_COMPONENTS = [
  'origin',
  'ledger_digest',
  'environment.tool_policy',
  'environment.wiki',
  'environment.isolation',
  'environment.session_topology',
  'harness',
  'budget',
  'grading',
] as const;
export type TitleComponent = (typeof TITLE_COMPONENTS)[number];

/** The components of `board`'s key that differ from at least one of `others` (harness and grading as one component each). */
export function distinguishing(board: Pick<ReportBoard, 'key'>, others: readonly Pick<ReportBoard, 'key'>[]): Set<TitleComponent> {
  const out = new Set<TitleComponent>();
  const k = board.key;
  for (const o of others) {
    const ok = o.key;
    if (k.origin !== ok.origin) out.add('origin');
    if (k.ledger_digest !== ok.ledger_digest) out.add('ledger_digest');
    if (k.environment.tool_policy !== ok.environment.tool_policy) out.add('environment.tool_policy');
    if (!same(k.environment.wiki, ok.environment.wiki)) out.add('environment.wiki');
    if (k.environment.isolation !== ok.environment.isolation) out.add('environment.isolation');
    if (k.environment.session_topology !== ok.environment.session_topology) out.add('environment.session_topology');
    if (!same(k.harness, ok.harness)) out.add('harness');
    if (!same(k.budget, ok.budget)) out.add('budget');
    if (!same(k.grading, ok.grading)) out.add('grading');
  }
  return out;
}

/** One component of a key as a title part, told apart from `others` (which members of harness and grading differ). */
function part(component: TitleComponent, k: Key, others: readonly Key[]): string | null {
  switch (component) {
    case 'origin':
      return k.origin;
    case 'ledger_digest':
      return `ledger ${hex8(k.ledger_digest)}`;
    case 'environment.tool_policy':
      return `tool policy ${hex8(k.environment.tool_policy)}`;
    case 'environment.wiki': {
      const w = k.environment.wiki;
      if (w.length === 0) return 'no wiki';
      return `wiki ${hex8(w[0]!.sha256)}${w.length > 1 ? ` +${w.length - 1}` : ''}`;
    }
    case 'environment.isolation':
      return `isolation ${text(k.environment.isolation)}`;
    case 'environment.session_topology':
      return `topology ${text(k.environment.session_topology)}`;
    case 'harness': {
      const differs = others.filter((o) => !same(o.harness, k.harness));
      if (differs.some((o) => o.harness.name !== k.harness.name || o.harness.version !== k.harness.version)) {
        return `harness ${text(k.harness.name)} ${text(k.harness.version)}`;
      }
      return `harness commit ${text(k.harness.commit).slice(0, 8)}`;
    }
    case 'budget': {
      const b = k.budget;
      if (b === null) return 'no budget';
      return `budget ${text(b.currency)} ${(b.per_attempt_micros / 1e6).toFixed(2)} per attempt, ${b.timeout_seconds} s`;
    }
    case 'grading': {
      const differs = others.filter((o) => !same(o.grading, k.grading));
      const id = differs.some((o) => o.grading.id !== k.grading.id);
      const version = differs.some((o) => o.grading.version !== k.grading.version);
      if (!id && !version) return `grader executable ${hex8(k.grading.executable)}`;
      // An imported board's grader carries the harness's version: said once, by the harness part.
      const repeated = version && !id && k.grading.version === k.harness.version && others.some((o) => o.harness.version !== k.harness.version);
      if (repeated) return null;
      return `grader ${[id ? text(k.grading.id) : '', version ? text(k.grading.version) : ''].filter(Boolean).join(' ')}`;
    }
  }
}

/** Which component first tells two boards on differently-digested ledgers of one name apart: a readable one before the ledger's digest. */
const PREFERENCE: readonly TitleComponent[] = [
  'harness',
  'grading',
  'origin',
  'budget',
  'environment.isolation',
  'environment.session_topology',
  'environment.tool_policy',
  'environment.wiki',
  'ledger_digest',
];

/**
 * A board's title as a list of parts: the ledger's name first, then every
 * key component that differs from another board on the same ledger (same
 * digest); a board on another ledger of the same name is told apart by the
 * first differing component of PREFERENCE (the ledger's digest only when
 * nothing else differs). A board alone on its ledger's name is its name.
 */
export function boardTitleParts(boards: readonly ReportBoard[], board: ReportBoard): string[] {
  const siblings = boards.filter((b) => b.board_id !== board.board_id && b.ledger.name === board.ledger.name);
  const sameLedger = siblings.filter((b) => b.key.ledger_digest === board.key.ledger_digest);
  const components = distinguishing(board, sameLedger);
  for (const other of siblings) {
    if (other.key.ledger_digest === board.key.ledger_digest) continue;
    const differs = distinguishing(board, [other]);
    if ([...components].some((c) => differs.has(c))) continue;
    components.add(PREFERENCE.find((c) => differs.has(c))!);
  }
  const keys = siblings.map((b) => b.key);
  const parts = [text(board.ledger.name) || '(unnamed ledger)'];
  for (const component of TITLE_COMPONENTS) {
    if (!components.has(component)) continue;
    const p = part(component, board.key, keys);
    if (p !== null) parts.push(p);
  }
  return parts;
}

/** A board's title: "widget-bugs · tool policy 3ac3b860 · grader 1.2.1" (its id goes beside it, never in it). */
export function boardTitle(report: { boards: readonly ReportBoard[] }, board: ReportBoard): string {
  return boardTitleParts(report.boards, board).join(' · ');
}

const titles = new WeakMap<readonly ReportBoard[], Map<string, string>>();

/** Every board's title by board id, made once per report's list of boards (for a page that names many boards: a model page). */
export function boardTitles(report: { boards: readonly ReportBoard[] }): ReadonlyMap<string, string> {
  let map = titles.get(report.boards);
  if (map === undefined) {
    map = new Map(report.boards.map((b) => [b.board_id, boardTitle(report, b)]));
    titles.set(report.boards, map);
  }
  return map;
}

/** The leaderboard's layout: a section per board, except imported boards of one cohort, which share one compact table. */
export interface LeaderboardLayout {
  /** Frozen boards, in display order: a full section each. */
  frozen: ReportBoard[];
  /** Imported boards with more than one cohort, in display order: a full section each, under "Imported runs". */
  imported: ReportBoard[];
  /** Imported boards of a single cohort (one run each), in display order: one row each in the "Imported runs" table. */
  runs: ReportBoard[];
}

/** Splits boards already in display order (src/report/board-order.ts boardsInOrder) into the leaderboard's layout, keeping the order. */
export function leaderboardLayout(ordered: readonly ReportBoard[]): LeaderboardLayout {
  const layout: LeaderboardLayout = { frozen: [], imported: [], runs: [] };
  for (const board of ordered) {
    if (board.key.origin !== 'imported') layout.frozen.push(board);
    else if (board.cohorts.length === 1) layout.runs.push(board);
    else layout.imported.push(board);
  }
  return layout;
}
