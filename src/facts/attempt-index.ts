/**
 * The attempt index a task page needs (docs/site.md "Task pages"), computed
 * once below the site from the verified evidence tables and the report: per
 * board, per task (headline, watch list, public, each once, in ledger-list
 * order), per cohort of the board (board.cohorts order), the cohort's
 * attempts on the task in attempt order (bundle id order as pooled, then row
 * order), as the analysis pooled them (analysis/pool.ts bundleSegments, with
 * the report's grading pin): so each attempt's cohort and terminal class are
 * the report's, never a second implementation.
 *
 * Each cell holds its summary (terminal classes, cost, tokens, median wall
 * time: summed as cohort-part.ts sums a cohort's), one mark per attempt
 * (`strip`), the first {@link DETAIL_ROWS} attempts in full (grade in use,
 * artifacts' digests, cost, tokens, line) and, for the rest, only where they
 * are (bundle, attempts.jsonl line) and who they are (index, attempt id). The
 * index is plain data (JSON and V8 round-trip it), deterministic, and holds
 * no table: the pipeline's facts cache can keep it, and the site renders it
 * without the evidence.
 */
import type { BundleEvidence } from '../bundle/evidence.ts';
import { COST_STATE_CODES } from '../bundle/tables.ts';
import type { LedgerRecord, Origin, Plan } from '../schema/index.ts';
import { bundleSegments, splitConflicts, type AnalysisInput, type Segment } from '../analysis/pool.ts';
import { layerColumns, REASON_CODES, TERMINAL_CLASSES, type GraderReason, type TerminalClass } from '../analysis/grading.ts';
import { bundleColumns } from '../analysis/columns.ts';
import { sortedMedian } from '../analysis/stats.ts';
import type { Report } from '../report/schema.ts';

import { DETAIL_ROWS } from './detail-rows.ts';

export { DETAIL_ROWS };

/** Which lists of the board's ledger a task is on. */
export type IndexSplit = 'headline' | 'watch_list' | 'public';

/** An artifact of an attempt: its role and digest (where its bytes are published is the site's). */
export interface IndexArtifact {
  role: 'patch' | 'grader input' | 'grader output' | 'grader receipt';
  sha256: string;
}

/** One attempt in full (the first DETAIL_ROWS of a cell). */
export interface IndexAttempt {
  /** Position in {@link AttemptIndex.bundles}. */
  bundle: number;
  /** Its 1-based line in the bundle's attempts.jsonl. */
  line: number;
  attempt_id: string;
  index: number;
  outcome: string;
  terminal: TerminalClass;
  reason: GraderReason | null;
  /** The grade in use (FORMAT.md 7.1): the latest generation (under the pin) holding a result for it, else null (missing). */
  verdict: 'pass' | 'fail' | 'error' | null;
  generation: number | null;
  cost: { state: string; micros: number | null };
  tokens: { input: number; output: number } | null;
  wall_seconds: number;
  retries: number;
  /** The patch, then the grade's input, output and receipt (none without them). */
  artifacts: IndexArtifact[];
}

/** The attempts of a cell after its first DETAIL_ROWS, column-wise (same length each, attempt order). */
export interface IndexRest {
  bundle: number[];
  line: number[];
  index: number[];
  attempt_id: string[];
}

/** One cohort's attempts on one task. */
export interface IndexCell {
  /** Attempts per terminal class, in TERMINAL_CLASSES order (resolved first); their sum is the attempts (graded). */
  classes: number[];
  /** Grader failures by reason. */
  reasons: { failed: number; errored: number; missing: number };
  /** As the report's cost (cohort-part.ts): micros adds the complete and partial costs (a lower bound unless none is partial or unavailable). */
  cost: { micros: number; partial: number; unavailable: number; not_applicable: number; zero: number };
  /** Input and output tokens summed over the attempts that report them; `unknown` the attempts that do not. */
  tokens: { input: number; output: number; unknown: number };
  /** The median wall time in seconds (stats.ts sortedMedian), null without attempts. */
  wall_median: number | null;
  /** One character per attempt, in attempt order: the index of its terminal class in TERMINAL_CLASSES ('0' resolved). */
  strip: string;
  /** The first DETAIL_ROWS attempts, in full. */
  first: IndexAttempt[];
  /** The others. */
  rest: IndexRest;
}

/** A task of a board. */
export interface IndexTask {
  task_id: string;
  splits: IndexSplit[];
  /** The ledger record (ledger.jsonl of the first counted bundle on this ledger), or null when none holds the task. */
  record: LedgerRecord | null;
  /** Per cohort of the board, board.cohorts order. */
  cells: IndexCell[];
}

/** An attempt's terminal class and grader reason counts. */
export interface IndexOutcomes {
  terminal: Record<TerminalClass, number>;
  reasons: { failed: number; errored: number; missing: number };
}

/** The attempt index of a report (see the module comment). */
export interface AttemptIndex {
  /** The counted bundles the cells point to, in the order they were pooled, with their plan's origin (null: none). */
  bundles: { bundle_id: string; plan_id: string; origin: Origin | null }[];
  /** Per board id (report.boards), its tasks. */
  boards: Record<string, { tasks: IndexTask[] }>;
  /** Per counted bundle id: its pooled attempts by terminal class and grader reason. */
  outcomes: Record<string, IndexOutcomes>;
}

/** Where the verified evidence of a bundle is, by content digest: what the build holds (or the facts cache does not need). */
export type EvidenceOf = (content_digest: string) => BundleEvidence | undefined;

/** A bundle as the pipeline (or the site's ReadBundle) holds it: its content digest and, verified, its evidence. */
export interface HeldBundle {
  content_digest: string;
  verification?: { status?: string; evidence?: unknown };
}

/** The evidence tables among `bundles` (verified ones: a status other than "verified" gives none), by content digest. */
export function evidenceOf(bundles: readonly HeldBundle[]): EvidenceOf {
  const map = new Map<string, BundleEvidence>();
  for (const b of bundles) {
    const v = b.verification;
    if (v === undefined || (v.status !== undefined && v.status !== 'verified')) continue;
    const e = v.evidence as Partial<BundleEvidence> | undefined;
    // `in`, never a read: evidence rebuilt from a kept head reads its tables on first use of `attempts` or `grades` (pipeline/wire.ts fromHead).
    if (e !== undefined && e !== null && typeof e === 'object' && e.plan !== null && e.plan !== undefined && 'attempts' in e && 'grades' in e) map.set(b.content_digest, e as BundleEvidence);
  }
  return (digest) => map.get(digest);
}

/** The attempt index when `bundles` hold the evidence tables of every counted bundle of the report; else undefined. */
export function attemptIndexIfHeld(report: Report, bundles: readonly HeldBundle[]): AttemptIndex | undefined {
  const held = evidenceOf(bundles);
  for (const b of report.bundles) if (b.counted && held(b.content_digest) === undefined) return undefined;
  return attemptIndexOf(report, held);
}

/**
 * The ledgers of the report's counted bundles (report.bundles[].plan.ledger),
 * sorted: the index is made one ledger at a time (a ledger's part: its
 * counted bundles, its boards, their outcomes), the part a cache keeps.
 */
export function indexLedgers(report: Pick<Report, 'bundles'>): string[] {
  const digests = new Set<string>();
  for (const b of countedOf(report)) digests.add(b.plan!.ledger.digest);
  return [...digests].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The report's bundles a ledger's part pools (counted, verified, with ids), in report order. */
export function ledgerBundles(report: Pick<Report, 'bundles'>, ledger: string): Report['bundles'] {
  return countedOf(report).filter((b) => b.plan!.ledger.digest === ledger);
}

function countedOf(report: Pick<Report, 'bundles'>): Report['bundles'] {
  return report.bundles.filter((b) => b.counted && b.status === 'verified' && b.bundle_id !== null && b.plan_id !== null && b.plan !== null);
}

/** The report narrowed to one ledger: its counted bundles and its boards (what {@link ledgerIndexOf} reads). */
function ledgerReport(report: Report, ledger: string): Report {
  return { ...report, bundles: ledgerBundles(report, ledger), boards: report.boards.filter((b) => b.ledger.digest === ledger) };
}

/**
 * One ledger's part of the attempt index: the index of its counted bundles
 * and its boards alone (bundle positions local to the part). A counted
 * bundle of the ledger without evidence throws (see {@link attemptIndexOf}).
 */
export function ledgerIndexOf(report: Report, ledger: string, evidence: EvidenceOf): AttemptIndex {
  return wholeIndexOf(ledgerReport(report, ledger), evidence);
}

/**
 * The attempt index of a report from its ledgers' parts (every ledger of
 * {@link indexLedgers} must have one): the bundles pooled in bundle id order
 * (ties, one id on two ledgers, in ledger order), each part's positions
 * moved to theirs, the boards in report order, the outcomes by bundle id.
 * The parts are not changed.
 */
export function mergeIndexParts(report: Report, parts: ReadonlyMap<string, AttemptIndex>): AttemptIndex {
  const ledgers = indexLedgers(report);
  const all: { entry: AttemptIndex['bundles'][number]; ledger: string; local: number }[] = [];
  for (const ledger of ledgers) {
    const part = parts.get(ledger);
    if (part === undefined) throw new Error(`internal: no attempt index part for ledger ${ledger}`);
    part.bundles.forEach((entry, local) => all.push({ entry, ledger, local }));
  }
  const rank = new Map(ledgers.map((l, i) => [l, i]));
  all.sort((x, y) => (x.entry.bundle_id < y.entry.bundle_id ? -1 : x.entry.bundle_id > y.entry.bundle_id ? 1 : rank.get(x.ledger)! - rank.get(y.ledger)!));
  const moved = new Map<string, Int32Array>(ledgers.map((l) => [l, new Int32Array(parts.get(l)!.bundles.length)]));
  all.forEach((b, global) => (moved.get(b.ledger)![b.local] = global));
  const boards: AttemptIndex['boards'] = {};
  for (const board of report.boards) {
    const part = parts.get(board.ledger.digest)?.boards[board.board_id];
    if (part === undefined) continue;
    const to = moved.get(board.ledger.digest)!;
    boards[board.board_id] = {
      tasks: part.tasks.map((task) => ({
        ...task,
        cells: task.cells.map((cell) => ({
          ...cell,
          first: cell.first.map((a) => ({ ...a, bundle: to[a.bundle]! })),
          rest: { ...cell.rest, bundle: cell.rest.bundle.map((k) => to[k]!) },
        })),
      })),
    };
  }
  const outcomes: AttemptIndex['outcomes'] = {};
  const ids = ledgers.flatMap((l) => Object.keys(parts.get(l)!.outcomes).map((id) => [id, l] as const));
  ids.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : rank.get(x[1])! - rank.get(y[1])!));
  for (const [id, l] of ids) outcomes[id] ??= parts.get(l)!.outcomes[id]!;
  return { bundles: all.map((b) => b.entry), boards, outcomes };
}

const COMPLETE = COST_STATE_CODES.indexOf('complete');
const PARTIAL = COST_STATE_CODES.indexOf('partial');
const UNAVAILABLE = COST_STATE_CODES.indexOf('unavailable');
const NOT_APPLICABLE = COST_STATE_CODES.indexOf('not_applicable');
const ZERO = COST_STATE_CODES.indexOf('zero');

/** A counted bundle's grade in use per row, as the analysis picks it (grading.ts layerColumns). */
interface Graded {
  bundle: number;
  evidence: BundleEvidence;
  /** For each row, the generation table and result index in use (-1: none). */
  gradeTable: Int32Array;
  gradeIndex: Int32Array;
}

function newCell(): IndexCell & { walls: number[] } {
  return {
    classes: new Array<number>(TERMINAL_CLASSES.length).fill(0),
    reasons: { failed: 0, errored: 0, missing: 0 },
    cost: { micros: 0, partial: 0, unavailable: 0, not_applicable: 0, zero: 0 },
    tokens: { input: 0, output: 0, unknown: 0 },
    wall_median: null,
    strip: '',
    first: [],
    rest: { bundle: [], line: [], index: [], attempt_id: [] },
    walls: [],
  };
}

/**
 * The attempt index of `report`, from the verified evidence of its counted
 * bundles (`evidence`, by content digest). A counted bundle without evidence
 * is a bug of the caller (the pipeline holds every verified bundle's) and throws.
 */
export function attemptIndexOf(report: Report, evidence: EvidenceOf): AttemptIndex {
  return mergeIndexParts(report, new Map(indexLedgers(report).map((l) => [l, ledgerIndexOf(report, l, evidence)])));
}

/** The index of every counted bundle and board of `report` at once (a ledger's part: {@link ledgerIndexOf}). */
function wholeIndexOf(report: Report, evidence: EvidenceOf): AttemptIndex {
  const inputs: AnalysisInput[] = [];
  const graded = new Map<string, Graded>();
  const bundles: AttemptIndex['bundles'] = [];
  const ledgers = new Map<string, Map<string, LedgerRecord>>();
  for (const entry of report.bundles) {
    if (!entry.counted || entry.status !== 'verified' || entry.bundle_id === null || entry.plan_id === null) continue;
    const e = evidence(entry.content_digest);
    if (e === undefined) throw new Error(`internal: no verified evidence for counted bundle ${entry.bundle_id}`);
    const plan = e.plan as Plan;
    if (!ledgers.has(plan.ledger.digest)) ledgers.set(plan.ledger.digest, new Map(e.ledger.map((r) => [r.task_id, r])));
    inputs.push({ bundle_id: entry.bundle_id, plan_id: entry.plan_id, evidence: e });
    const layer = layerColumns(plan, bundleColumns(e), report.config.grading_pin);
    graded.set(entry.bundle_id, {
      bundle: -1,
      evidence: e,
      gradeTable: Int32Array.from(layer.grader, (k) => (k === -1 ? -1 : (layer.generations[k]?.table ?? -1))),
      gradeIndex: layer.result,
    });
  }
  // Each cohort's rows, bundle by bundle in bundle id order (as the report pooled them).
  const byCohort = new Map<string, Segment[]>();
  for (const input of splitConflicts(inputs).counted) {
    graded.get(input.bundle_id)!.bundle = bundles.length;
    bundles.push({ bundle_id: input.bundle_id, plan_id: input.plan_id, origin: (input.evidence.plan as Plan).origin ?? null });
    for (const segment of bundleSegments(input, report.config.grading_pin)) {
      const list = byCohort.get(segment.cohort_id) ?? [];
      list.push(segment);
      byCohort.set(segment.cohort_id, list);
    }
  }
  const outcomes: Record<string, IndexOutcomes> = {};
  const boards: AttemptIndex['boards'] = {};
  for (const board of report.boards) {
    const records = ledgers.get(board.ledger.digest);
    const byId = new Map<string, Omit<IndexTask, 'cells'> & { cells: (IndexCell & { walls: number[] })[] }>();
    const lists: [IndexSplit, readonly string[]][] = [['headline', board.ledger.headline_tasks], ['watch_list', board.ledger.watch_list_tasks], ['public', board.ledger.public_tasks]];
    for (const [split, ids] of lists) {
      for (const id of ids) {
        let task = byId.get(id);
        if (!task) {
          task = { task_id: id, splits: [], record: records?.get(id) ?? null, cells: board.cohorts.map(newCell) };
          byId.set(id, task);
        }
        if (!task.splits.includes(split)) task.splits.push(split);
      }
    }
    // One pass over each cohort's attempts, grouped by task.
    board.cohorts.forEach((cohortId, position) => {
      for (const segment of byCohort.get(cohortId) ?? []) {
        const g = graded.get(segment.bundle_id)!;
        const counts = (outcomes[segment.bundle_id] ??= emptyIndexOutcomes());
        const a = segment.columns.attempts;
        const taskOf = a.tasks.values.map((id) => byId.get(id));
        for (let p = 0; p < segment.rows.length; p++) {
          const row = segment.rows[p]!;
          const k = segment.terminal[p]!;
          const reason = REASON_CODES[segment.reason[p]!] ?? null;
          counts.terminal[TERMINAL_CLASSES[k]!]++;
          if (reason !== null) counts.reasons[reason]++;
          const task = taskOf[a.task[row]!];
          if (task === undefined) continue;
          const cell = task.cells[position]!;
          cell.classes[k]!++;
          if (reason !== null) cell.reasons[reason]++;
          const input = a.tokensInput[row]!;
          if (Number.isNaN(input)) cell.tokens.unknown++;
          else {
            cell.tokens.input += input;
            cell.tokens.output += a.tokensOutput[row]!;
          }
          const state = a.costState[row]!;
          if (state === COMPLETE || state === PARTIAL) {
            if (state === PARTIAL) cell.cost.partial++;
            const m = a.costMicros[row]!;
            if (!Number.isNaN(m)) cell.cost.micros += m;
          } else if (state === UNAVAILABLE) cell.cost.unavailable++;
          else if (state === NOT_APPLICABLE) cell.cost.not_applicable++;
          else if (state === ZERO) cell.cost.zero++;
          cell.walls.push(a.wallSeconds[row]!);
          cell.strip += String(k);
          if (cell.first.length < DETAIL_ROWS) cell.first.push(attemptOf(segment, p, g, reason));
          else {
            cell.rest.bundle.push(g.bundle);
            cell.rest.line.push(a.line[row]!);
            cell.rest.index.push(a.index[row]!);
            cell.rest.attempt_id.push(a.attemptId(row));
          }
        }
      }
    });
    const tasks: IndexTask[] = [];
    for (const task of byId.values()) {
      tasks.push({
        task_id: task.task_id,
        splits: task.splits,
        record: task.record,
        cells: task.cells.map(({ walls, ...cell }) => ({ ...cell, wall_median: sortedMedian(Float64Array.from(walls).sort()) })),
      });
    }
    boards[board.board_id] = { tasks };
  }
  return { bundles, boards, outcomes };
}

function attemptOf(segment: Segment, p: number, g: Graded, reason: GraderReason | null): IndexAttempt {
  const row = segment.rows[p]!;
  const table = segment.columns.attempts;
  const a = table.attempt(row);
  const t = g.gradeTable[row]!;
  const result = t === -1 ? null : g.evidence.grades[t]!.result(g.gradeIndex[row]!);
  const artifacts: IndexArtifact[] = [];
  if (a.patch !== null) artifacts.push({ role: 'patch', sha256: a.patch });
  if (result !== null) artifacts.push({ role: 'grader input', sha256: result.input }, { role: 'grader output', sha256: result.output }, { role: 'grader receipt', sha256: result.receipt });
  return {
    bundle: g.bundle,
    line: table.line[row]!,
    attempt_id: a.attempt_id,
    index: a.index,
    outcome: a.outcome,
    terminal: TERMINAL_CLASSES[segment.terminal[p]!]!,
    reason,
    verdict: result?.verdict ?? null,
    generation: t === -1 ? null : g.evidence.grades[t]!.generation,
    cost: { state: a.cost.state, micros: a.cost.micros },
    tokens: a.tokens === null ? null : { input: a.tokens.input, output: a.tokens.output },
    wall_seconds: a.wall_seconds,
    retries: a.retries,
    artifacts,
  };
}

/** Zero attempts of every class and reason. */
export function emptyIndexOutcomes(): IndexOutcomes {
  return { terminal: Object.fromEntries(TERMINAL_CLASSES.map((c) => [c, 0])) as Record<TerminalClass, number>, reasons: { failed: 0, errored: 0, missing: 0 } };
}
