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
 * - `plans`: per content digest, the plan verification parsed (the verified
 *   evidence's frozen plan), which a plan page shows: plan.json is not parsed
 *   a second time (its bytes are still published as they are).
 * - `attemptIndex` (facts/attempt-index.ts, part B of issue 28): the task
 *   pages' per-attempt facts, when computed.
 */
import type { Report } from '../report/schema.ts';
import type { Plan } from '../schema/index.ts';
import { compareBoardFacts, compareInputsDigest, type CompareBoardFacts } from './compare.ts';
import { COMPARE_MAX_COHORTS } from './compare-limits.ts';
import { bundlesMoney, type BundleMoney } from './money.ts';

export type { CompareBoardFacts, SiteComparePage, SiteTaskSide } from './compare.ts';
export type { BundleMoney, SiteMoney } from './money.ts';

/** The site's facts (see the module comment). */
export interface SiteFacts {
  /** The report they are the facts of. */
  report_id: string;
  /** Per board id: its compare facts (the site adds the pair matrix). */
  compare: Record<string, CompareBoardFacts>;
  /** Per bundle of the report, in report order: its plan page's money. */
  money: BundleMoney[];
  /** Per content digest: the plan its verification parsed (strictly, against the schema), for the bundles whose evidence holds one. */
  plans: Record<string, Plan>;
  /**
   * The task pages' attempt index (issue 28 item 1, part B: src/facts/attempt-index.ts
   * adds it and its type); absent until then, or when not computed.
   */
  attemptIndex?: unknown;
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

/** What computing the facts did: the boards whose compare facts were kept, and those computed (bootstrap run). */
export interface SiteFactsResult {
  facts: SiteFacts;
  compare: { reused: number; computed: number };
}

/** Options of {@link computeSiteFacts}. */
export interface SiteFactsOptions {
  /** The config's compare_max_cohorts (default COMPARE_MAX_COHORTS). */
  cap?: number;
  /** Kept compare facts (none: every board computed). */
  store?: CompareFactsStore;
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
  return { facts: { report_id: report.report_id, compare, money: bundlesMoney(report), plans: plansOf(report, bundles) }, compare: { reused, computed } };
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
