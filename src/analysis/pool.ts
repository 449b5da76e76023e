/**
 * Pools the attempts of verified bundles into cohorts (FORMAT.md 7.1): every
 * attempt gets its grading layer, terminal class, board key and cohort key;
 * attempts with one cohort key pool across bundles. Only verified bundles
 * enter; a plan that appears in two different verified bundles is counted in
 * neither and reported as a conflict (never a silent choice).
 *
 * Pooling is done bundle by bundle ({@link poolBundle}): a bundle's pooling
 * is a pure function of the bundle (its bytes), the grading pin and the
 * layer: the cohorts it joins, in order, and its part of each (cohort-part.ts:
 * its rows summarised, no row kept). The pools are those bundle poolings
 * applied in bundle id order ({@link poolAttempts}), which is what lets a
 * run keep a bundle's pooling and analyse a ledger again without reading
 * the rows of the bundles it had already pooled (src/run/report-cache.ts).
 * test/oracle/pool.ts is the same rules written object by object, the
 * reference the property tests hold this to.
 */
import type { GradingPin } from '../config/config.ts';
import type { BundleEvidence } from '../bundle/evidence.ts';
import { subjectKey } from '../bundle/subject.ts';
import type { Grader, LedgerRecord, Plan } from '../schema/index.ts';
import { bundleColumns, type BundleColumns } from './columns.ts';
import { ledgerPositions, summarizeRows, type CohortPart, type LedgerPositions } from './cohort-part.ts';
import { splitLedger } from './headline.ts';
import { classCodes, firstLayerColumns, layerColumns, TERMINAL_CLASSES } from './grading.ts';
import { boardKeyOf, cohortKeyOf, keyId, type BoardKey, type CohortKey } from './keys.ts';

/** A verified bundle as analysis sees it. */
export interface AnalysisInput {
  bundle_id: string;
  plan_id: string;
  evidence: BundleEvidence;
}

/** A plan contributing to a cohort. */
export interface ContributingPlan {
  plan_id: string;
  bundle_id: string;
  title: string;
  created_at: string;
  attempts_per_task: number;
}

/**
 * A later grading generation (a regrade, FORMAT.md 5.3) whose verdicts a
 * cohort uses in the layer in use, against generation 1's verdicts for the
 * same attempts. An attempt is resolved or not as its terminal class says
 * (fail, error and missing are not resolved; an attempt that did not
 * complete is never resolved, whoever grades it).
 */
export interface RegradeTally {
  plan_id: string;
  generation: number;
  created_at: string;
  grader: Grader;
  /** This cohort's attempts whose grade comes from this generation. */
  attempts: number;
  /** Of those, not resolved under generation 1 and resolved now. */
  fail_to_pass: number;
  /** Of those, resolved under generation 1 and not resolved now. */
  pass_to_fail: number;
}

/** A cohort being built: its key, subject facts, and its attempts as one part per contributing bundle. */
export interface CohortPool {
  cohort_id: string;
  board_id: string;
  key: CohortKey;
  /** Roles the contributing plans give this subject. */
  roles: Set<'candidate' | 'baseline'>;
  selectors: Set<string>;
  plans: Map<string, ContributingPlan>;
  /** Each contributing bundle's attempts in this cohort, summarised (cohort-part.ts), in bundle id order. */
  parts: CohortPart[];
  /** The regrades this cohort's attempts were graded by, in bundle id then generation order (the report sorts them by plan id). */
  regrades: RegradeTally[];
  /** For each contributing plan, the cohort its subject has when generation 1 alone grades the plan (see {@link poolAttempts} `first`). */
  earlier: Map<string, string>;
}

/** What pooling produced. */
export interface Pools {
  cohorts: Map<string, CohortPool>;
  boards: Map<string, BoardKey>;
  /** Ledger records by ledger digest (ledger order), their task ids, and each ledger's name. */
  ledgers: Map<string, { name: string; records: readonly LedgerRecord[]; taskIds: readonly string[] }>;
  /** Attempts a grading pin left out, per bundle. */
  excludedByPin: { bundle_id: string; attempts: number }[];
  /** Plans present in more than one distinct verified bundle: none of those bundles is counted. */
  conflicts: { plan_id: string; bundle_ids: string[] }[];
}


/**
 * One bundle's pooling (see the module comment): the cohorts it joins, in
 * the order pooling joins them, its part of each cohort its rows go to (in
 * order of their first row) with the regrades of those rows, and the
 * attempts the pin left out. Plain data (typed arrays, arrays, objects):
 * what a run keeps.
 */
export interface BundlePooling {
  bundle_id: string;
  plan_id: string;
  ledger_digest: string;
  joins: CohortJoin[];
  parts: { cohort_id: string; part: CohortPart; regrades: RegradeTally[] }[];
  excluded: number;
}

/** A plan subject joining its cohort on a board (created when new), the plan recorded as contributing. */
export interface CohortJoin {
  board_id: string;
  board: BoardKey;
  cohort_id: string;
  key: CohortKey;
  role: 'candidate' | 'baseline';
  selector: string;
  /** The cohort the subject has on the board generation 1 alone grades the plan by. */
  earlier: string;
  plan: ContributingPlan;
}

/** Bundle poolings kept from an earlier run, and where new ones go (src/run/report-cache.ts). */
export interface PoolingStore {
  kept(input: AnalysisInput, layer: 'latest' | 'first'): BundlePooling | null;
  made?(input: AnalysisInput, layer: 'latest' | 'first', pooling: BundlePooling): void;
}

/**
 * Pools the verified bundles. Inputs may come in any order; the result does
 * not depend on it. With `layer` 'first', every bundle is graded by
 * generation 1 alone (its plan's grader; no pin): the cohorts as they were
 * before any regrade. A store hands in bundle poolings kept for exactly
 * these bundles, pin and layer (the pools are the same either way).
 */
export function poolAttempts(inputs: readonly AnalysisInput[], pin: GradingPin, layer: 'latest' | 'first' = 'latest', store?: PoolingStore): Pools {
  const { counted, conflicts } = splitConflicts(inputs);
  const pools: Pools = { cohorts: new Map(), boards: new Map(), ledgers: new Map(), excludedByPin: [], conflicts };
  const ledgers = new Map<string, LedgerPositions>();
  for (const input of counted) {
    const plan = input.evidence.plan as Plan;
    if (!pools.ledgers.has(plan.ledger.digest)) {
      pools.ledgers.set(plan.ledger.digest, { name: plan.ledger.name, records: input.evidence.ledger, taskIds: input.evidence.ledger.map((r) => r.task_id) });
    }
    let pooling = store?.kept(input, layer) ?? null;
    if (pooling === null) {
      let ledger = ledgers.get(plan.ledger.digest);
      if (ledger === undefined) {
        ledgers.set(plan.ledger.digest, (ledger = ledgerPositions(pools.ledgers.get(plan.ledger.digest)!.taskIds, splitLedger(input.evidence.ledger).headline)));
      }
      pooling = poolBundle(input, pin, layer, ledger);
      store?.made?.(input, layer, pooling);
    }
    applyPooling(pools, pooling);
  }
  return pools;
}

/** Adds a bundle's pooling to the pools (bundles in bundle id order). */
function applyPooling(pools: Pools, pooling: BundlePooling): void {
  for (const join of pooling.joins) {
    pools.boards.set(join.board_id, join.board);
    let pool = pools.cohorts.get(join.cohort_id);
    if (!pool) {
      pool = { cohort_id: join.cohort_id, board_id: join.board_id, key: join.key, roles: new Set(), selectors: new Set(), plans: new Map(), parts: [], regrades: [], earlier: new Map() };
      pools.cohorts.set(join.cohort_id, pool);
    }
    pool.roles.add(join.role);
    pool.selectors.add(join.selector);
    if (!pool.earlier.has(join.plan.plan_id)) pool.earlier.set(join.plan.plan_id, join.earlier);
    pool.plans.set(join.plan.plan_id, join.plan);
  }
  for (const { cohort_id, part, regrades } of pooling.parts) {
    const pool = pools.cohorts.get(cohort_id)!;
    pool.parts.push(part);
    pool.regrades.push(...regrades);
  }
  if (pooling.excluded > 0) pools.excludedByPin.push({ bundle_id: pooling.bundle_id, attempts: pooling.excluded });
}

/**
 * The bundles that may be counted, sorted by bundle id, and the plans
 * present in more than one distinct bundle (sorted by plan id), none of
 * whose bundles is counted. Of inputs with one bundle id, the last is kept.
 */
export function splitConflicts<T extends { bundle_id: string; plan_id: string }>(inputs: readonly T[]): { counted: T[]; conflicts: Pools['conflicts'] } {
  const byPlan = new Map<string, Map<string, T>>();
  for (const input of inputs) {
    const same = byPlan.get(input.plan_id) ?? new Map<string, T>();
    same.set(input.bundle_id, input);
    byPlan.set(input.plan_id, same);
  }
  const counted: T[] = [];
  const conflicts: Pools['conflicts'] = [];
  for (const [plan_id, bundles] of byPlan) {
    if (bundles.size === 1) counted.push(...bundles.values());
    else conflicts.push({ plan_id, bundle_ids: [...bundles.keys()].sort() });
  }
  conflicts.sort((a, b) => (a.plan_id < b.plan_id ? -1 : a.plan_id > b.plan_id ? 1 : 0));
  counted.sort((a, b) => (a.bundle_id < b.bundle_id ? -1 : a.bundle_id > b.bundle_id ? 1 : 0));
  return { counted, conflicts };
}

const RESOLVED = TERMINAL_CLASSES.indexOf('resolved');

/** A bundle's pooling (see {@link BundlePooling}), its tasks placed on its ledger. */
export function poolBundle(input: AnalysisInput, pin: GradingPin, layerKind: 'latest' | 'first', ledger: LedgerPositions): BundlePooling {
  const { pooling, segments, regrades } = assignRows(input, pin, layerKind);
  for (const [p, segment] of segments.entries()) {
    const part = summarizeRows(input, segment.columns, segment.rows, segment.terminal, segment.reason, ledger);
    pooling.parts.push({ cohort_id: segment.cohort_id, part, regrades: regrades[p]! });
  }
  return pooling;
}

/** A bundle's rows in one cohort, in row (attempt line) order, with their terminal class and reason codes. */
export interface Segment {
  cohort_id: string;
  bundle_id: string;
  plan_id: string;
  columns: BundleColumns;
  rows: Int32Array;
  /** Index into TERMINAL_CLASSES. */
  terminal: Uint8Array;
  /** Index into REASON_CODES. */
  reason: Uint8Array;
}

/**
 * A bundle's rows by cohort (in the layer in use, under the pin), as pooling
 * assigns them: what a page that lists attempts one by one reads (the task
 * pages, src/site/model/tasks.ts), so each attempt's cohort and terminal class are
 * the ones the report counted.
 */
export function bundleSegments(input: AnalysisInput, pin: GradingPin): Segment[] {
  return assignRows(input, pin, 'latest').segments;
}

/**
 * Every row's cohort, terminal class and reason, as segments in order of
 * their first row, with the cohorts joined (the pooling without its parts)
 * and each segment's regrade tallies.
 */
function assignRows(input: AnalysisInput, pin: GradingPin, layerKind: 'latest' | 'first'): { pooling: BundlePooling; segments: Segment[]; regrades: RegradeTally[][] } {
  const plan = input.evidence.plan as Plan;
  const pooling: BundlePooling = { bundle_id: input.bundle_id, plan_id: input.plan_id, ledger_digest: plan.ledger.digest, joins: [], parts: [], excluded: 0 };
  const columns = bundleColumns(input.evidence);
  const { attempts } = columns;
  const layer = layerKind === 'first' ? firstLayerColumns(plan, columns) : layerColumns(plan, columns, pin);
  // Rows graded by a later generation are compared with generation 1's verdicts (docs/analysis.md, "Regrades").
  const first = layer.generations.some((g) => g !== null && g.generation > 1) ? firstLayerColumns(plan, columns) : null;
  const firstBoard = boardKeyOf(plan, plan.grader);
  const firstBoardId = keyId(firstBoard);
  const roles = new Map(plan.subjects.map((s) => [subjectKey(s.model, s.agent), s]));
  const ids = new Map<string, string>();
  const join = (boardKey: BoardKey, board_id: string, subject: Plan['subjects'][number]): string => {
    const cohort_id = cohortIdOf(ids, board_id, boardKey, subject);
    pooling.joins.push({
      board_id,
      board: boardKey,
      cohort_id,
      key: cohortKeyOf(boardKey, { model: subject.model, agent: subject.agent }),
      role: subject.role,
      selector: subject.selector,
      earlier: cohortIdOf(ids, firstBoardId, firstBoard, subject),
      plan: { plan_id: input.plan_id, bundle_id: input.bundle_id, title: plan.title, created_at: plan.created_at, attempts_per_task: plan.attempts },
    });
    return cohort_id;
  };
  // One cohort per (subject key, layer grader), found without building a string per attempt.
  const cohortCache = new Map<string, Map<Grader, number>>();
  const graderCount = layer.graders.length;
  const identityKeys = attempts.identities.map((i) => subjectKey(i.model, i.agent));
  // Cohort of each (identity, grader), as an index into `found`.
  const cache = new Int32Array(identityKeys.length * graderCount).fill(-1);
  const found: string[] = [];
  const touched = new Map<string, BoardKey>();
  const poolOfRow = new Int32Array(attempts.count);
  // First pass: every row's cohort (joined in row order), and each cohort's size.
  const sizes: number[] = [];
  for (let row = 0; row < attempts.count; row++) {
    const k = layer.grader[row]!;
    if (k === -1) {
      pooling.excluded++;
      poolOfRow[row] = -1;
      continue;
    }
    const identity = attempts.identity[row]!;
    let p = cache[identity * graderCount + k]!;
    if (p === -1) {
      const subject = identityKeys[identity]!;
      const grader = layer.graders[k]!;
      let bySubject = cohortCache.get(subject);
      if (!bySubject) cohortCache.set(subject, (bySubject = new Map()));
      let q = bySubject.get(grader);
      if (q === undefined) {
        const boardKey = boardKeyOf(plan, grader);
        const board_id = keyId(boardKey);
        touched.set(board_id, boardKey);
        const cohort_id = join(boardKey, board_id, roles.get(subject)!);
        q = found.indexOf(cohort_id);
        if (q === -1) {
          q = found.length;
          found.push(cohort_id);
          sizes.push(0);
        }
        bySubject.set(grader, q);
      }
      p = cache[identity * graderCount + k] = q;
    }
    poolOfRow[row] = p;
    sizes[p]!++;
  }
  // Second pass: the rows of each cohort, in row order, with their classes and regrade tallies.
  const rows = found.map((_, p) => new Int32Array(sizes[p]!));
  const terminals = found.map((_, p) => new Uint8Array(sizes[p]!));
  const reasons = found.map((_, p) => new Uint8Array(sizes[p]!));
  const filled = new Int32Array(found.length);
  // Regrade tallies of each cohort, by layer grader index.
  const regrades = found.map(() => new Map<number, RegradeTally>());
  for (let row = 0; row < attempts.count; row++) {
    const p = poolOfRow[row]!;
    if (p === -1) continue;
    const at = filled[p]!++;
    const { terminal, reason } = classCodes(attempts.outcome[row]!, layer.verdict[row]!);
    rows[p]![at] = row;
    terminals[p]![at] = terminal;
    reasons[p]![at] = reason;
    const k = layer.grader[row]!;
    const generation = layer.generations[k];
    if (first === null || !generation || generation.generation === 1) continue;
    let tally = regrades[p]!.get(k);
    if (!tally) {
      const { id, version, executable } = generation.grader;
      tally = { plan_id: input.plan_id, generation: generation.generation, created_at: generation.created_at, grader: { id, version, executable }, attempts: 0, fail_to_pass: 0, pass_to_fail: 0 };
      regrades[p]!.set(k, tally);
    }
    tally.attempts++;
    const before = classCodes(attempts.outcome[row]!, first.verdict[row]!).terminal === RESOLVED;
    const now = terminal === RESOLVED;
    if (!before && now) tally.fail_to_pass++;
    if (before && !now) tally.pass_to_fail++;
  }
  const segments = found.map((cohort_id, p): Segment => ({ cohort_id, bundle_id: input.bundle_id, plan_id: input.plan_id, columns, rows: rows[p]!, terminal: terminals[p]!, reason: reasons[p]! }));
  // Every subject of the plan contributes the plan to each board the plan puts attempts on.
  for (const [board_id, boardKey] of touched) {
    for (const subject of plan.subjects) join(boardKey, board_id, subject);
  }
  return { pooling, segments, regrades: regrades.map((r) => [...r.values()].sort((a, b) => a.generation - b.generation)) };
}

/**
 * The id of a subject's cohort on a board: the digest of its cohort key,
 * derived once per board and subject in a bundle's pooling (every subject
 * of the plan joins every board again, and canonicalising a key is not free).
 */
function cohortIdOf(ids: Map<string, string>, board_id: string, boardKey: BoardKey, subject: { model: string; agent: { name: string; version: string } }): string {
  const memo = `${board_id}\0${subjectKey(subject.model, subject.agent)}`;
  let id = ids.get(memo);
  if (id === undefined) {
    id = keyId(cohortKeyOf(boardKey, { model: subject.model, agent: subject.agent }));
    ids.set(memo, id);
  }
  return id;
}
