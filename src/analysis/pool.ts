/**
 * Pools the attempts of verified bundles into cohorts (FORMAT.md 7.1): every
 * attempt gets its grading layer, terminal class, board key and cohort key;
 * attempts with one cohort key pool across bundles. Only verified bundles
 * enter; a plan that appears in two different verified bundles is counted in
 * neither and reported as a conflict (never a silent choice).
 *
 * A cohort's attempts are kept as segments of rows of the bundles' column
 * tables (one segment per contributing bundle, in bundle id order), never as
 * one object per attempt. test/oracle/pool.ts is the same rules written
 * object by object, the reference the property tests hold this to.
 */
import type { GradingPin } from '../config/config.ts';
import type { BundleEvidence } from '../bundle/evidence.ts';
import { subjectKey } from '../bundle/subject.ts';
import type { Grader, LedgerRecord, Plan } from '../schema/index.ts';
import { bundleColumns, type BundleColumns } from './columns.ts';
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

/** A bundle's rows in one cohort, in row (attempt line) order, with their terminal class and reason codes. */
export interface Segment {
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

/** A cohort being built: its key, subject facts, and its attempts as segments of rows. */
export interface CohortPool {
  cohort_id: string;
  board_id: string;
  key: CohortKey;
  /** Roles the contributing plans give this subject. */
  roles: Set<'candidate' | 'baseline'>;
  selectors: Set<string>;
  plans: Map<string, ContributingPlan>;
  segments: Segment[];
  /** The regrades this cohort's attempts were graded by, in bundle id then generation order (the report sorts them by plan id). */
  regrades: RegradeTally[];
  /** For each contributing plan, the cohort its subject has when generation 1 alone grades the plan (see {@link poolAttempts} `first`). */
  earlier: Map<string, string>;
}

/** What pooling produced. */
export interface Pools {
  cohorts: Map<string, CohortPool>;
  boards: Map<string, BoardKey>;
  /** Ledger records by ledger digest (ledger order), and each ledger's name. */
  ledgers: Map<string, { name: string; records: readonly LedgerRecord[] }>;
  /** Attempts a grading pin left out, per bundle. */
  excludedByPin: { bundle_id: string; attempts: number }[];
  /** Plans present in more than one distinct verified bundle: none of those bundles is counted. */
  conflicts: { plan_id: string; bundle_ids: string[] }[];
}


/**
 * Pools the verified bundles. Inputs may come in any order; the result does
 * not depend on it. With `layer` 'first', every bundle is graded by
 * generation 1 alone (its plan's grader; no pin): the cohorts as they were
 * before any regrade.
 */
export function poolAttempts(inputs: readonly AnalysisInput[], pin: GradingPin, layer: 'latest' | 'first' = 'latest'): Pools {
  const { counted, conflicts } = splitConflicts(inputs);
  const pools: Pools = { cohorts: new Map(), boards: new Map(), ledgers: new Map(), excludedByPin: [], conflicts };
  for (const input of counted) poolBundle(pools, input, pin, layer);
  return pools;
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

function poolBundle(pools: Pools, input: AnalysisInput, pin: GradingPin, layerKind: 'latest' | 'first'): void {
  const plan = input.evidence.plan as Plan;
  if (!pools.ledgers.has(plan.ledger.digest)) pools.ledgers.set(plan.ledger.digest, { name: plan.ledger.name, records: input.evidence.ledger });
  const columns = bundleColumns(input.evidence);
  const { attempts } = columns;
  const layer = layerKind === 'first' ? firstLayerColumns(plan, columns) : layerColumns(plan, columns, pin);
  // Rows graded by a later generation are compared with generation 1's verdicts (docs/analysis.md, "Regrades").
  const first = layer.generations.some((g) => g !== null && g.generation > 1) ? firstLayerColumns(plan, columns) : null;
  const firstBoard = boardKeyOf(plan, plan.grader);
  const firstBoardId = keyId(firstBoard);
  const roles = new Map(plan.subjects.map((s) => [subjectKey(s.model, s.agent), s]));
  // One cohort per (subject key, layer grader), found without building a string per attempt.
  const cohortCache = new Map<string, Map<Grader, CohortPool>>();
  const graderCount = layer.graders.length;
  const identityKeys = attempts.identities.map((i) => subjectKey(i.model, i.agent));
  // Pool of each (identity, grader), as an index into `found`.
  const cache = new Int32Array(identityKeys.length * graderCount).fill(-1);
  const found: CohortPool[] = [];
  const touched = new Map<string, BoardKey>();
  const poolOfRow = new Int32Array(attempts.count);
  let excluded = 0;
  // First pass: every row's cohort (created in row order), and each cohort's size.
  const sizes: number[] = [];
  for (let row = 0; row < attempts.count; row++) {
    const k = layer.grader[row]!;
    if (k === -1) {
      excluded++;
      poolOfRow[row] = -1;
      continue;
    }
    const identity = attempts.identity[row]!;
    let p = cache[identity * graderCount + k]!;
    if (p === -1) {
      const subject = identityKeys[identity]!;
      const grader = layer.graders[k]!;
      let bySubject = cohortCache.get(subject);
      if (!bySubject) {
        bySubject = new Map();
        cohortCache.set(subject, bySubject);
      }
      let pool = bySubject.get(grader);
      if (!pool) {
        const boardKey = boardKeyOf(plan, grader);
        const board_id = keyId(boardKey);
        touched.set(board_id, boardKey);
        pool = joinCohort(pools, input, boardKey, board_id, roles.get(subject)!, firstBoard, firstBoardId);
        bySubject.set(grader, pool);
      }
      p = found.indexOf(pool);
      if (p === -1) {
        p = found.length;
        found.push(pool);
        sizes.push(0);
      }
      cache[identity * graderCount + k] = p;
    }
    poolOfRow[row] = p;
    sizes[p]!++;
  }
  // Second pass: the rows of each cohort, in row order.
  const segments = found.map((pool, p): Segment => {
    const segment = { bundle_id: input.bundle_id, plan_id: input.plan_id, columns, rows: new Int32Array(sizes[p]!), terminal: new Uint8Array(sizes[p]!), reason: new Uint8Array(sizes[p]!) };
    pool.segments.push(segment);
    return segment;
  });
  const filled = new Int32Array(found.length);
  // Regrade tallies of each cohort, by layer grader index.
  const regrades = found.map(() => new Map<number, RegradeTally>());
  for (let row = 0; row < attempts.count; row++) {
    const p = poolOfRow[row]!;
    if (p === -1) continue;
    const segment = segments[p]!;
    const at = filled[p]!++;
    const { terminal, reason } = classCodes(attempts.outcome[row]!, layer.verdict[row]!);
    segment.rows[at] = row;
    segment.terminal[at] = terminal;
    segment.reason[at] = reason;
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
  found.forEach((pool, p) => pool.regrades.push(...[...regrades[p]!.values()].sort((a, b) => a.generation - b.generation)));
  if (excluded > 0) pools.excludedByPin.push({ bundle_id: input.bundle_id, attempts: excluded });
  // Every subject of the plan contributes the plan to each board the plan puts attempts on.
  for (const [board_id, boardKey] of touched) {
    for (const subject of plan.subjects) joinCohort(pools, input, boardKey, board_id, subject, firstBoard, firstBoardId);
  }
}

/** The cohort of a plan subject on a board (created when new), with the plan recorded as contributing. */
function joinCohort(
  pools: Pools,
  input: AnalysisInput,
  boardKey: BoardKey,
  board_id: string,
  subject: Plan['subjects'][number],
  firstBoard: BoardKey,
  firstBoardId: string,
): CohortPool {
  const plan = input.evidence.plan as Plan;
  pools.boards.set(board_id, boardKey);
  const cohort_id = cohortIdOf(pools, board_id, boardKey, subject);
  let pool = pools.cohorts.get(cohort_id);
  if (!pool) {
    const key = cohortKeyOf(boardKey, { model: subject.model, agent: subject.agent });
    pool = { cohort_id, board_id, key, roles: new Set(), selectors: new Set(), plans: new Map(), segments: [], regrades: [], earlier: new Map() };
    pools.cohorts.set(cohort_id, pool);
  }
  pool.roles.add(subject.role);
  pool.selectors.add(subject.selector);
  if (!pool.earlier.has(input.plan_id)) pool.earlier.set(input.plan_id, cohortIdOf(pools, firstBoardId, firstBoard, subject));
  pool.plans.set(input.plan_id, {
    plan_id: input.plan_id,
    bundle_id: input.bundle_id,
    title: plan.title,
    created_at: plan.created_at,
    attempts_per_task: plan.attempts,
  });
  return pool;
}

/** The cohort ids a pooling has derived, by board id and subject key (see {@link cohortIdOf}). */
const cohortIds = new WeakMap<Pools, Map<string, string>>();

/**
 * The id of a subject's cohort on a board: the digest of its cohort key,
 * derived once per board and subject in a pooling (every bundle of a plan
 * asks again for every subject, and canonicalising a key is not free).
 */
function cohortIdOf(pools: Pools, board_id: string, boardKey: BoardKey, subject: { model: string; agent: { name: string; version: string } }): string {
  let ids = cohortIds.get(pools);
  if (ids === undefined) cohortIds.set(pools, (ids = new Map()));
  const memo = `${board_id}\0${subjectKey(subject.model, subject.agent)}`;
  let id = ids.get(memo);
  if (id === undefined) {
    id = keyId(cohortKeyOf(boardKey, { model: subject.model, agent: subject.agent }));
    ids.set(memo, id);
  }
  return id;
}

