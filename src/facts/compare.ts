/**
 * The compare pages' figures (issue 14, FORMAT.md 7.6), computed below the
 * site (issue 28): per board, each cohort's outcome on every headline task,
 * which pairs of cohorts get a page (a before b in cohort id order), and per
 * page the tasks each side wins and the paired bootstrap delta between the
 * two; the board's sign-test resolution. Plain data from the report alone
 * (and the site's cap), a pure function of {@link compareInputs}: what the
 * facts cache keys them on (src/run/facts-cache.ts). The site adds the pair
 * matrix (a chart) and the pages' paths (src/site/model/compare.ts).
 *
 * Where the per-task outcomes come from: the report carries, for each
 * candidate cohort of a board with one baseline, `tasks[]` (every headline
 * task, in headline order, with the candidate's side and the baseline's
 * side, as FORMAT.md 7.4 classifies them). A candidate's sides are its
 * `tasks[].candidate`, the baseline's are any candidate's `tasks[].baseline`.
 * On a board without a single baseline the report holds no per-task sides:
 * its compare pages show the pair's counts from `boards[].pairs` and say so.
 * The tasks each side wins are re-derived from those sides with the rule of
 * 7.6 (the sign of resolved_a * graded_b - resolved_b * graded_a) and must
 * give the report's `a_better` and `b_better`; they always do, or the build
 * stops (a bug).
 *
 * The paired bootstrap delta is a's pooled headline rate minus b's over the
 * headline tasks where both sides have attempts, with src/analysis/stats.ts
 * pairedBootstrapDelta (BOOTSTRAP_RESAMPLES), seeded as the report seeds a
 * candidate against its baseline (src/analysis/pair-seed.ts, with a in the
 * candidate's place). So for a candidate whose id sorts before its
 * baseline's, the compare page's delta is byte for byte the cohort's `delta`.
 *
 * The cap: a board of at most `compare_max_cohorts` cohorts (config, default
 * 50: 1,225 pages) gets a page for every pair; a larger board only for each
 * cohort's COMPARE_NEIGHBOURS nearest neighbours in the board's rank order.
 */
import { z } from 'zod';
import type { Report, ReportBoard, ReportCohort } from '../report/schema.ts';
import { digestCanonical } from '../json/canonical.ts';
import { BOOTSTRAP_RESAMPLES, pairedBootstrapDelta } from '../analysis/stats.ts';
import { PAIR_ALPHA, signTestResolution, type SignTestResolution } from '../analysis/pairs.ts';
import { pairSeed } from '../analysis/pair-seed.ts';
import { COMPARE_MAX_COHORTS, COMPARE_NEIGHBOURS } from './compare-limits.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** One side of one headline task, as the report gives it (cohorts[].tasks[].candidate or .baseline). */
export interface SiteTaskSide {
  outcome: 'pass' | 'fail' | 'mixed' | 'incomplete';
  reason: 'no_attempt' | 'unaccounted_slot' | 'ungraded' | null;
  attempts: number;
  resolved: number;
}

/** A compare page's figures beyond the report's pair. */
export interface SiteComparePage {
  a: string;
  b: string;
  /** Index of the pair in the board's `pairs`. */
  pair: number;
  /** Indexes into the board's headline tasks a wins and b wins (complete on both sides, a higher or lower rate); null when the report holds no per-task sides. */
  a_wins: number[] | null;
  b_wins: number[] | null;
  /** The paired bootstrap delta a - b (null without per-task sides). */
  delta: { rate: number | null; interval: [number, number] | null; paired_tasks: number; resamples: number; skipped: number; seed: string } | null;
}

/** A board's compare facts: everything of its compare data but the pair matrix (a chart, drawn by the site). */
export interface CompareBoardFacts {
  /** compare_max_cohorts in force. */
  cap: number;
  /** Every pair has a page (the board has at most `cap` cohorts). */
  full: boolean;
  /** Pairs on the board, with a page, and without. */
  pairs: number;
  /** The resolution before adjustment, and at Holm's first step over the board's pairs. */
  resolution: { unadjusted: SignTestResolution; holm: SignTestResolution };
  /** Per cohort id, its side on each headline task (headline order), or null when the report holds none. */
  sides: Record<string, SiteTaskSide[] | null>;
  /** The compare pages, in pair order (the site keys them by "<a-hex>/<b-hex>"). */
  pages: SiteComparePage[];
}

/** Every board's compare facts, by board id. */
export function compareFacts(report: Pick<Report, 'boards' | 'cohorts' | 'config_digest'>, cap: number = COMPARE_MAX_COHORTS): Record<string, CompareBoardFacts> {
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  return Object.fromEntries(report.boards.map((board) => [board.board_id, compareBoardFacts(report, board, cohorts, cap)]));
}

/**
 * Exactly what a board's compare facts are computed from (and what the
 * facts cache keys them on): the board's cohorts, baseline, headline and
 * pairs; per cohort its role, the bundles it pools and its per-task sides;
 * the config digest (in the seed), the cap and the neighbour count. Plain
 * data in a fixed member order.
 */
export function compareInputs(report: Pick<Report, 'config_digest'>, board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>, cap: number): unknown {
  const side = (s: SiteTaskSide) => [s.outcome, s.reason, s.attempts, s.resolved];
  return {
    board_id: board.board_id,
    config_digest: report.config_digest,
    cap,
    neighbours: COMPARE_NEIGHBOURS,
    resamples: BOOTSTRAP_RESAMPLES,
    headline: board.ledger.headline_tasks,
    baseline: board.baseline_cohort_id,
    cohorts: board.cohorts.map((id) => {
      const c = cohorts.get(id)!;
      return { id, role: c.subject.role, bundles: c.plans.map((p) => p.bundle_id), tasks: c.tasks.map((t) => [t.task_id, side(t.candidate), side(t.baseline)]) };
    }),
    pairs: (board.pairs ?? []).map((p) => [p.a, p.b, p.a_better, p.b_better]),
  };
}

/** The digest of {@link compareInputs}: equal digests, equal facts. */
export function compareInputsDigest(report: Pick<Report, 'config_digest'>, board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>, cap: number): string {
  return digestCanonical(compareInputs(report, board, cohorts, cap) as Record<string, unknown>);
}

/** One board's compare facts (see the module comment). */
export function compareBoardFacts(report: Pick<Report, 'config_digest'>, board: ReportBoard, cohorts: ReadonlyMap<string, ReportCohort>, cap: number = COMPARE_MAX_COHORTS): CompareBoardFacts {
  const headline = board.ledger.headline_tasks;
  const members = board.cohorts.map((id) => cohorts.get(id)!);
  const sides = sidesOf(board, members);
  const full = members.length <= cap;
  const linked = full ? null : neighbourPairs(board.cohorts, COMPARE_NEIGHBOURS);
  const pages: SiteComparePage[] = [];
  const pairs = board.pairs ?? [];
  pairs.forEach((pair, index) => {
    if (linked !== null && !linked.has(`${pair.a} ${pair.b}`)) return;
    const a = cohorts.get(pair.a)!;
    const b = cohorts.get(pair.b)!;
    const sa = sides[pair.a] ?? null;
    const sb = sides[pair.b] ?? null;
    let aWins: number[] | null = null;
    let bWins: number[] | null = null;
    let delta: SiteComparePage['delta'] = null;
    if (sa !== null && sb !== null) {
      aWins = [];
      bWins = [];
      const paired: { candidate: { resolved: number; graded: number }; baseline: { resolved: number; graded: number } }[] = [];
      for (let t = 0; t < headline.length; t++) {
        const x = sa[t]!;
        const y = sb[t]!;
        if (x.attempts > 0 && y.attempts > 0) paired.push({ candidate: { resolved: x.resolved, graded: x.attempts }, baseline: { resolved: y.resolved, graded: y.attempts } });
        if (x.outcome === 'incomplete' || y.outcome === 'incomplete') continue;
        const d = x.resolved * y.attempts - y.resolved * x.attempts;
        if (d > 0) aWins.push(t);
        else if (d < 0) bWins.push(t);
      }
      if (aWins.length !== pair.a_better || bWins.length !== pair.b_better) {
        throw new Error(`the per-task sides of ${pair.a} and ${pair.b} give ${aWins.length}-${bWins.length}, the report's pair ${pair.a_better}-${pair.b_better}`);
      }
      const seed = pairSeed([...a.plans, ...b.plans].map((p) => p.bundle_id), report.config_digest, a.cohort_id, b.cohort_id);
      const result = pairedBootstrapDelta(paired, seed, BOOTSTRAP_RESAMPLES);
      delta = { rate: result.delta, interval: result.interval, paired_tasks: paired.length, resamples: result.resamples, skipped: result.skipped, seed: result.seed };
    }
    pages.push({ a: pair.a, b: pair.b, pair: index, a_wins: aWins, b_wins: bWins, delta });
  });
  const m = pairs.length;
  return {
    cap,
    full,
    pairs: m,
    resolution: { unadjusted: signTestResolution(headline.length, PAIR_ALPHA, 1), holm: signTestResolution(headline.length, PAIR_ALPHA, Math.max(1, m)) },
    sides,
    pages,
  };
}

/** Each cohort's sides on the headline tasks, from the candidates' `tasks` (see the module comment); null when the report holds none. */
function sidesOf(board: ReportBoard, members: readonly ReportCohort[]): Record<string, SiteTaskSide[] | null> {
  const headline = board.ledger.headline_tasks;
  const aligned = (c: ReportCohort): boolean => c.tasks.length === headline.length && c.tasks.every((t, i) => t.task_id === headline[i]);
  const side = (s: SiteTaskSide): SiteTaskSide => ({ outcome: s.outcome, reason: s.reason, attempts: s.attempts, resolved: s.resolved });
  const candidates = members.filter((c) => c.subject.role === 'candidate' && c.cohort_id !== board.baseline_cohort_id);
  const withSides = board.baseline_cohort_id !== null && candidates.every(aligned);
  const out: Record<string, SiteTaskSide[] | null> = {};
  for (const c of members) {
    if (!withSides) out[c.cohort_id] = null;
    else if (c.cohort_id === board.baseline_cohort_id) out[c.cohort_id] = candidates.length > 0 ? candidates[0]!.tasks.map((t) => side(t.baseline)) : null;
    else out[c.cohort_id] = c.tasks.map((t) => side(t.candidate));
  }
  return out;
}

/**
 * The pairs (as "<a> <b>", a < b) linking each cohort to its k nearest
 * neighbours in rank order (`ranked`: the board's cohorts, best first): at
 * distance 1 above, 1 below, 2 above, 2 below, ... until k are taken.
 */
export function neighbourPairs(ranked: readonly string[], k: number): Set<string> {
  const out = new Set<string>();
  ranked.forEach((id, i) => {
    let taken = 0;
    for (let d = 1; taken < k && (i - d >= 0 || i + d < ranked.length); d++) {
      for (const j of [i - d, i + d]) {
        if (taken >= k || j < 0 || j >= ranked.length) continue;
        const other = ranked[j]!;
        out.add(byString(id, other) < 0 ? `${id} ${other}` : `${other} ${id}`);
        taken++;
      }
    }
  });
  return out;
}

const Count = z.number().int().nonnegative();
const Pair = z.tuple([Count, Count]);
const Resolution = z.strictObject({ tasks: Count, factor: z.number().int().positive(), smallest: Pair.nullable(), allDiffer: Pair.nullable() });
const Side = z.strictObject({
  outcome: z.enum(['pass', 'fail', 'mixed', 'incomplete']),
  reason: z.enum(['no_attempt', 'unaccounted_slot', 'ungraded']).nullable(),
  attempts: Count,
  resolved: Count,
});

/**
 * The shape of a board's compare facts, for what comes back from a cache
 * (src/run/facts-cache.ts): the cache's own bytes, checked as input all the
 * same. A value that fits it has every member the pages read, of its type.
 */
export const CompareBoardFactsSchema = z.strictObject({
  cap: z.number().int().positive(),
  full: z.boolean(),
  pairs: Count,
  resolution: z.strictObject({ unadjusted: Resolution, holm: Resolution }),
  sides: z.record(z.string(), z.array(Side).nullable()),
  pages: z.array(
    z.strictObject({
      a: z.string(),
      b: z.string(),
      pair: Count,
      a_wins: z.array(Count).nullable(),
      b_wins: z.array(Count).nullable(),
      delta: z
        .strictObject({ rate: z.number().nullable(), interval: z.tuple([z.number(), z.number()]).nullable(), paired_tasks: Count, resamples: Count, skipped: Count, seed: z.string() })
        .nullable(),
    }),
  ),
});
