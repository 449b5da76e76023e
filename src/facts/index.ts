/**
 * The site's facts (issue 28, item 1): what pages show that is not in the
 * report and takes work to compute, computed once below the site, beside the
 * report, so that the pages render the model and compute nothing. Stage 6
 * (with `report`): it may import report, analysis, bundle, json and schema,
 * never the site. Plain data (JSON and V8 round-trip it), deterministic.
 *
 * - `compare` (facts/compare.ts): per board, the compare pages (the pairs
 *   with a page under the cap, each side's wins, the paired bootstrap delta)
 *   and the sign test's resolution. The only costly part (2,000 resamples per
 *   page), so the run keeps it per board (src/run/facts-cache.ts) under the
 *   digest of exactly what it is computed from (compareInputs).
 * - `money` (facts/money.ts): per report bundle, its plan page's money.
 * - `cohortMoney` (facts/money.ts): per report cohort, what its rows show
 *   beside the report's cost (the attempts with a known cost).
 * - `plans`: per content digest, the plan verification parsed (the verified
 *   evidence's frozen plan), which a plan page shows: plan.json is not parsed
 *   a second time (its bytes are still published as they are).
 * - `attemptIndex` (facts/attempt-index.ts, part B of issue 28): the task
 *   pages' per-attempt facts. Made one ledger at a time from the verified
 *   tables, and kept per ledger (src/run/facts-cache.ts) under the digest of
 *   what it is made from (facts/attempt-index-parts.ts ledgerIndexInputs): a
 *   ledger whose part is kept reads no table.
 */
import type { Report } from '../report/schema.ts';
import type { Plan } from '../schema/index.ts';
import { compareBoardFacts, compareInputsDigest, type CompareBoardFacts } from './compare.ts';
import { COMPARE_MAX_COHORTS } from './compare-limits.ts';
import { bundlesMoney, cohortsMoney, type BundleMoney, type CohortMoney } from './money.ts';
import { evidenceOf, indexLedgers, ledgerBundles, ledgerIndexOf, mergeIndexParts, type AttemptIndex } from './attempt-index.ts';
import { ledgerIndexInputs } from './attempt-index-parts.ts';

export type { CompareBoardFacts, SiteComparePage, SiteTaskSide } from './compare.ts';
export type { BundleMoney, CohortMoney, SiteMoney } from './money.ts';

/** The site's facts (see the module comment). */
export interface SiteFacts {
  /** The report they are the facts of. */
  report_id: string;
  /** Per board id: its compare facts (the site adds the pair matrix). */
  compare: Record<string, CompareBoardFacts>;
  /** Per bundle of the report, in report order: its plan page's money. */
  money: BundleMoney[];
  /** Per cohort of the report, in report order: its money facts beside the report's cost. */
  cohortMoney: CohortMoney[];
  /** Per content digest: the plan its verification parsed (strictly, against the schema), for the bundles whose evidence holds one. */
  plans: Record<string, Plan>;
  /**
   * The task pages' attempt index (src/facts/attempt-index.ts): per board, task
   * and cohort, each attempt's terminal class and where it is, the first
   * DETAIL_ROWS in full. Absent when the bundles given hold no evidence tables.
   */
  attemptIndex?: AttemptIndex;
}

/** A bundle as the pipeline holds it, as far as the facts need it (structural: the pipeline's results satisfy it). */
export interface FactsBundle {
  content_digest: string;
  verification: { evidence: { readonly plan: Plan | null } };
}

/**
 * Where kept compare facts come from and go (src/run/facts-cache.ts): keyed
 * by the board and the digest of its inputs (compareInputsDigest); the store
 * adds its own format and code identity to the key.
 */
export interface CompareFactsStore {
  kept(board_id: string, inputs: string): Promise<CompareBoardFacts | null>;
  made(board_id: string, inputs: string, facts: CompareBoardFacts): Promise<void>;
}

/**
 * Where kept parts of the attempt index come from and go (src/run/facts-cache.ts):
 * one per ledger, keyed by the ledger and the digest of its inputs
 * (facts/attempt-index-parts.ts ledgerIndexInputs); the store checks a kept
 * part against the report (checkLedgerIndex) and adds its own format and
 * code identity to the key.
 */
export interface AttemptIndexStore {
  kept(ledger: string, inputs: string): Promise<AttemptIndex | null>;
  made(ledger: string, inputs: string, part: AttemptIndex): Promise<void>;
  /** Reads ahead the tables of these bundles (content digests), before a ledger's part is made from them (none: read on first use). */
  readTables?(content_digests: readonly string[]): Promise<void>;
}

/** What computing the facts did: the boards whose compare facts were kept, and those computed (bootstrap run); the ledgers whose part of the attempt index was kept, and those computed. */
export interface SiteFactsResult {
  facts: SiteFacts;
  compare: { reused: number; computed: number };
  attemptIndex: { reused: number; computed: number };
}

/** Options of {@link computeSiteFacts}. */
export interface SiteFactsOptions {
  /** The config's compare_max_cohorts (default COMPARE_MAX_COHORTS). */
  cap?: number;
  /** Kept compare facts (none: every board computed). */
  store?: CompareFactsStore;
  /** Kept parts of the attempt index (none: every ledger's made from the tables). */
  indexStore?: AttemptIndexStore;
}

/** The site's facts of a report and the bundles it was built from (see the module comment). */
export async function computeSiteFacts(report: Report, bundles: readonly FactsBundle[], options: SiteFactsOptions = {}): Promise<SiteFactsResult> {
  const cap = options.cap ?? COMPARE_MAX_COHORTS;
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const compare: Record<string, CompareBoardFacts> = {};
  let reused = 0;
  let computed = 0;
  for (const board of report.boards) {
    const inputs = options.store === undefined ? null : compareInputsDigest(report, board, cohorts, cap);
    const kept = inputs === null ? null : await options.store!.kept(board.board_id, inputs);
    if (kept !== null) {
      compare[board.board_id] = kept;
      reused++;
      continue;
    }
    const made = compareBoardFacts(report, board, cohorts, cap);
    computed++;
    if (inputs !== null) await options.store!.made(board.board_id, inputs, made);
    compare[board.board_id] = made;
  }
  const index = await attemptIndexFacts(report, bundles, options.indexStore);
  const attemptIndex = index.index;
  return {
    facts: { report_id: report.report_id, compare, money: bundlesMoney(report), cohortMoney: cohortsMoney(report), plans: plansOf(report, bundles), ...(attemptIndex === undefined ? {} : { attemptIndex }) },
    compare: { reused, computed },
    attemptIndex: { reused: index.reused, computed: index.computed },
  };
}

/**
 * The attempt index, ledger by ledger: a kept part (it checked against the
 * report) is taken and reads no table; the others are made from the verified
 * tables `bundles` hold, their tables read ahead through the store, and kept.
 * Undefined when a ledger's part is neither kept nor can be made (a counted
 * bundle whose tables are not held: a caller with the report alone).
 */
async function attemptIndexFacts(report: Report, bundles: readonly FactsBundle[], store: AttemptIndexStore | undefined): Promise<{ index?: AttemptIndex; reused: number; computed: number }> {
  const held = evidenceOf(bundles);
  const parts = new Map<string, AttemptIndex>();
  const missing: { ledger: string; inputs: string | null }[] = [];
  for (const ledger of indexLedgers(report)) {
    const inputs = store === undefined ? null : ledgerIndexInputs(report, ledger);
    const kept = inputs === null ? null : await store!.kept(ledger, inputs);
    if (kept !== null) parts.set(ledger, kept);
    else missing.push({ ledger, inputs });
  }
  const reused = parts.size;
  for (const { ledger } of missing) if (ledgerBundles(report, ledger).some((b) => held(b.content_digest) === undefined)) return { reused, computed: 0 };
  for (const { ledger, inputs } of missing) {
    await store?.readTables?.(ledgerBundles(report, ledger).map((b) => b.content_digest));
    const part = ledgerIndexOf(report, ledger, held);
    if (inputs !== null) await store!.made(ledger, inputs, part);
    parts.set(ledger, part);
  }
  return { index: mergeIndexParts(report, parts), reused, computed: missing.length };
}

/** The plans verification parsed, by content digest, for the report's bundles. */
function plansOf(report: Pick<Report, 'bundles'>, bundles: readonly FactsBundle[]): Record<string, Plan> {
  const byContent = new Map(bundles.map((b) => [b.content_digest, b]));
  const out: Record<string, Plan> = {};
  for (const entry of report.bundles) {
    const plan = byContent.get(entry.content_digest)?.verification.evidence.plan ?? null;
    if (plan !== null) out[entry.content_digest] = plan;
  }
  return out;
}
