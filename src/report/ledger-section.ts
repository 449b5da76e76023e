/**
 * One ledger's part of the report: its boards, their cohorts with figures,
 * ranks, verdicts, deltas and regrades, its boards and the key components
 * that keep their cohorts apart, the attempts a grading pin left out and its newest evidence
 * date. Everything the report says about cohorts stays within one ledger
 * (a board key includes the ledger digest, under either grading layer), so
 * the report is the union of its ledgers' sections: a section is a pure
 * function of its bundles (sorted by bundle id) and the config, which is
 * what lets a run keep it (src/run/report-cache.ts) and analyse again only
 * the ledgers whose bundles changed.
 */
import { z } from 'zod';
import type { Config } from '../config/config.ts';
import { compareTimestamps } from '../schema/timestamp.ts';
import { Digest, Timestamp } from '../schema/common.ts';
import { splitLedger, type LedgerSplits } from '../analysis/headline.ts';
import { cohortIncompatibilities } from '../analysis/incompatibilities.ts';
import { newestTimes } from '../analysis/columns.ts';
import { poolAttempts, type AnalysisInput, type CohortPool, type PoolingStore, type Pools } from '../analysis/pool.ts';
import { cohortFigures, rateFigures, tallyTasks, type CohortFigures, type TaskTally } from '../analysis/score.ts';
import { baselineDrift } from '../analysis/drift.ts';
import { boardPairs } from '../analysis/pairs.ts';
import { BOOTSTRAP_RESAMPLES, pairedBootstrapDelta } from '../analysis/stats.ts';
import { pairSeed } from '../analysis/pair-seed.ts';
import { judge, type BaselineProblem, type VerdictResult } from '../analysis/verdicts.ts';
import { scorecardOf } from '../config/schema.ts';
import type { BundleEvidence } from '../bundle/evidence.ts';
import { claimFigures, claimsOfCohort, type ClaimAssessment, type ClaimPlan } from '../claims/claims.ts';
import type { Claim, Scorecard } from '../claims/scorecard.ts';
import { LedgerBoards, ReportBoard, ReportCohort, type ReportRegrade } from './schema.ts';
import { compareCodeUnits as byString } from '../json/compare.ts';

/** Bootstrap resamples per delta interval (defined once, in analysis/stats.ts). */
export { BOOTSTRAP_RESAMPLES } from '../analysis/stats.ts';

/** One ledger's section of the report (see the module comment); the report sorts the union of the sections. */
export const LedgerSection = z.strictObject({
  ledger_digest: Digest,
  boards: z.array(ReportBoard),
  cohorts: z.array(ReportCohort),
  /** The ledger's incompatibilities (its entry of the report's `incompatibilities.by_ledger`): none with one board. */
  incompatible: z.array(LedgerBoards),
  excluded_by_grading_pin: z.array(z.strictObject({ bundle_id: Digest, attempts: z.number().int().nonnegative() })),
  evidence_date: Timestamp.nullable(),
});
export type LedgerSection = z.infer<typeof LedgerSection>;

/**
 * The section of one ledger: `counted` are the counted bundles pinning it,
 * sorted by bundle id, none in conflict (build-report.ts removes those first).
 * `poolings` may hand in bundle poolings kept from an earlier run (the
 * section is the same either way).
 */
export function ledgerSection(ledger_digest: string, counted: readonly AnalysisInput[], config: Config, config_digest: string, poolings?: PoolingStore): LedgerSection {
  // Bundle by bundle (src/analysis/pool.ts): cohorts as parts, one per bundle, without an object per attempt.
  const pools = poolAttempts(counted, config.grading_pin, 'latest', poolings);
  const splits = new Map<string, LedgerSplits>();
  for (const [digest, ledger] of pools.ledgers) splits.set(digest, splitLedger(ledger.records));

  // Figures per cohort.
  const figures = new Map<string, { pool: CohortPool; tallies: Map<string, TaskTally>; figures: CohortFigures }>();
  for (const pool of pools.cohorts.values()) {
    const tallies = tallyTasks(pool, pools.ledgers.get(pool.key.ledger_digest)!.taskIds);
    const s = splits.get(pool.key.ledger_digest)!;
    figures.set(pool.cohort_id, { pool, tallies, figures: cohortFigures(pool, s, tallies, pool.key.budget?.currency ?? null) });
  }

  // A regrade: the cohorts as generation 1 alone grades them, to set the earlier verdicts beside the ones in use.
  const earlier = [...pools.cohorts.values()].some((p) => p.regrades.length > 0) ? earlierCohorts(poolAttempts(counted, null, 'first', poolings), config) : null;

  const card = scorecardOf(config)?.card ?? null;
  const evidenceOf = new Map(counted.map((c) => [c.bundle_id, c.evidence]));

  const incompatible = cohortIncompatibilities([...pools.cohorts.values()], pools.boards);
  const boards: ReportBoard[] = [];
  const cohorts: ReportCohort[] = [];
  for (const board_id of [...pools.boards.keys()].sort(byString)) {
    const key = pools.boards.get(board_id)!;
    const members = [...figures.values()].filter((f) => f.pool.board_id === board_id);
    const baselines = members.filter((m) => m.pool.roles.has('baseline'));
    const baseline = baselines.length === 1 ? baselines[0]! : null;
    const problem: BaselineProblem = baselines.length === 0 ? 'no_baseline' : baselines.length > 1 ? 'several_baselines' : null;
    const s = splits.get(key.ledger_digest)!;
    const ranked = rank(members.map((m) => ({ id: m.pool.cohort_id, rate: m.figures.headline.rate })));
    const { pairs, rankRanges } = boardPairs(
      s.headline,
      members.map((m) => ({ cohort_id: m.pool.cohort_id, tallies: m.tallies, plans: m.pool.plans })),
    );
    for (const member of members) {
      const isBaseline = member.pool.roles.has('baseline');
      const verdict = isBaseline
        ? null
        : judge(s.headline, { tallies: member.tallies, plans: member.pool.plans }, baseline && { tallies: baseline.tallies, plans: baseline.pool.plans }, problem, config.acceptance);
      cohorts.push(
        cohortEntry(member, {
          rank: ranked.get(member.pool.cohort_id)!,
          rank_range: rankRanges.get(member.pool.cohort_id)!,
          regrade: earlier && regradeOf(member.pool, isBaseline ? null : (baseline?.pool ?? null), earlier),
          baselineId: baseline?.pool.cohort_id ?? null,
          verdict,
          delta: !isBaseline && baseline ? deltaOf(s.headline, member.tallies, baseline.tallies, seedOf(member.pool, baseline.pool, config_digest)) : null,
          claims: card && claimsOf(card, member, { baselineId: baseline?.pool.cohort_id ?? null, pairs, headline: s.headline, evidenceOf }),
        }),
      );
    }
    boards.push({
      board_id,
      key,
      ledger: {
        name: pools.ledgers.get(key.ledger_digest)!.name,
        digest: key.ledger_digest,
        headline_tasks: s.headline,
        watch_list_tasks: s.watch_list,
        public_tasks: s.public,
      },
      baseline_cohort_id: baseline?.pool.cohort_id ?? null,
      baseline_problem: problem,
      cohorts: [...ranked.entries()].sort((a, b) => a[1] - b[1] || byString(a[0], b[0])).map(([id]) => id),
      pairs,
      drift: baseline ? baselineDrift(baseline.pool) : [],
    });
  }
  return {
    ledger_digest,
    boards,
    cohorts,
    incompatible,
    excluded_by_grading_pin: pools.excludedByPin,
    evidence_date: evidenceDate(counted),
  };
}

/** The bootstrap seed text of a candidate against its baseline (analysis/pair-seed.ts, the compare pages' too). */
function seedOf(candidate: CohortPool, baseline: CohortPool, config_digest: string): string {
  return pairSeed([...candidate.plans.values(), ...baseline.plans.values()].map((p) => p.bundle_id), config_digest, candidate.cohort_id, baseline.cohort_id);
}

/** Competition ranking ("1224") by headline rate, highest first; cohorts without a rate rank last. */
function rank(entries: { id: string; rate: number | null }[]): Map<string, number> {
  const sorted = [...entries].sort((a, b) => (b.rate ?? -1) - (a.rate ?? -1) || byString(a.id, b.id));
  const ranks = new Map<string, number>();
  sorted.forEach((e, i) => {
    const previous = sorted[i - 1];
    ranks.set(e.id, previous && previous.rate === e.rate ? ranks.get(previous.id)! : i + 1);
  });
  return ranks;
}

/** Delta of headline pass rates over the headline tasks both sides attempted, with its paired bootstrap interval. */
function deltaOf(headline: readonly string[], candidate: ReadonlyMap<string, TaskTally>, baseline: ReadonlyMap<string, TaskTally>, seed: string): ReportCohort['delta'] {
  const paired = [];
  for (const id of headline) {
    const c = candidate.get(id);
    const b = baseline.get(id);
    if (c && b) paired.push({ candidate: { resolved: c.resolved, graded: c.attempts }, baseline: { resolved: b.resolved, graded: b.attempts } });
  }
  const result = pairedBootstrapDelta(paired, seed, BOOTSTRAP_RESAMPLES);
  return { rate: result.delta, interval: result.interval, paired_tasks: paired.length, resamples: result.resamples, skipped: result.skipped, seed: result.seed };
}

function cohortEntry(
  member: { pool: CohortPool; figures: CohortFigures },
  extra: {
    rank: number;
    rank_range: [number, number];
    baselineId: string | null;
    verdict: VerdictResult | null;
    delta: ReportCohort['delta'];
    regrade: ReportRegrade | null;
    claims: Claim[] | null;
  },
): ReportCohort {
  const { pool, figures: f } = member;
  const v = extra.verdict;
  return {
    cohort_id: pool.cohort_id,
    board_id: pool.board_id,
    subject: {
      model: pool.key.subject.model,
      agent: pool.key.subject.agent,
      role: pool.roles.has('baseline') ? 'baseline' : 'candidate',
      selectors: [...pool.selectors].sort(byString),
    },
    ledger_digest: pool.key.ledger_digest,
    harness_commit: pool.key.harness.commit,
    baseline_cohort_id: extra.baselineId,
    rank: extra.rank,
    rank_range: extra.rank_range,
    attempts: f.attempts,
    headline: f.headline,
    watch_list: f.watch_list,
    public: f.public,
    terminal_classes: f.terminal_classes,
    grader_failure_reasons: f.grader_failure_reasons,
    tokens: f.tokens,
    wall_seconds: f.wall_seconds,
    retries: f.retries,
    cost: f.cost,
    pass_at_k: f.pass_at_k,
    replicates: f.replicates,
    delta: extra.delta,
    classes: v ? v.classes : null,
    verdict: v ? v.verdict : null,
    verdict_reasons: v ? v.reasons : [],
    regrade: extra.regrade,
    regressed_tasks: v ? v.regressed_tasks : [],
    incomplete_tasks: v ? v.incomplete_tasks : [],
    tasks: v ? v.tasks : [],
    plans: [...pool.plans.values()].sort((a, b) => compareTimestamps(a.created_at, b.created_at) || byString(a.plan_id, b.plan_id)),
    ...(f.bounded ? { bounded: f.bounded } : {}),
    claims: extra.claims,
  };
}

/**
 * A cohort's claims (src/claims/claims.ts) from what this section has: its
 * headline figures, its board's baseline and pairs, its tallies on the
 * headline tasks, and its contributing plans with their bundles' evidence
 * (each plan's access tier and origin kind, and the assessments of the
 * cohort's subject, plan by plan in created_at then plan id order).
 */
function claimsOf(
  card: Scorecard,
  member: { pool: CohortPool; tallies: Map<string, TaskTally>; figures: CohortFigures },
  board: { baselineId: string | null; pairs: readonly { a: string; b: string; winner: string | null }[]; headline: readonly string[]; evidenceOf: ReadonlyMap<string, BundleEvidence> },
): Claim[] {
  const { pool, tallies, figures } = member;
  const subject = pool.key.subject;
  const contributing = [...pool.plans.values()].sort((a, b) => compareTimestamps(a.created_at, b.created_at) || byString(a.plan_id, b.plan_id));
  const plans: ClaimPlan[] = [];
  const assessments: ClaimAssessment[] = [];
  for (const p of contributing) {
    const evidence = board.evidenceOf.get(p.bundle_id);
    const plan = evidence?.plan;
    if (!evidence || !plan) throw new Error(`internal: cohort ${pool.cohort_id} names plan ${p.plan_id} of bundle ${p.bundle_id}, which is not among the section's counted bundles`);
    plans.push({ plan_id: p.plan_id, created_at: p.created_at, access_tier: plan.access_tier, origin_kind: plan.origin?.kind ?? 'frozen' });
    for (const a of evidence.assessments) {
      if (a.subject.model === subject.model && a.subject.agent.name === subject.agent.name && a.subject.agent.version === subject.agent.version) {
        assessments.push({ indicator: a.indicator, level: a.level });
      }
    }
  }
  const headlineTasks = board.headline.flatMap((id) => {
    const t = tallies.get(id);
    return t === undefined ? [] : [{ graded: t.attempts, resolved: t.resolved }];
  });
  const input = {
    figures: claimFigures({ cohort_id: pool.cohort_id, headline: figures.headline, baseline_cohort_id: board.baselineId, pairs: board.pairs, headlineTasks }),
    plans,
    assessments,
  };
  return claimsOfCohort(card, input);
}

type EarlierCohort = ReportRegrade['earlier'][number];

/**
 * The cohorts of a generation-1 pooling (poolAttempts 'first') with their
 * headline figures and verdicts, judged as the report judges the cohorts
 * in use (same splits, baselines and acceptance rule; no delta).
 */
function earlierCohorts(pools: Pools, config: Config): Map<string, EarlierCohort> {
  const out = new Map<string, EarlierCohort>();
  const members = new Map<string, { pool: CohortPool; tallies: Map<string, TaskTally>; headline: CohortFigures['headline'] }[]>();
  const splits = new Map<string, LedgerSplits>();
  for (const [digest, ledger] of pools.ledgers) splits.set(digest, splitLedger(ledger.records));
  for (const pool of pools.cohorts.values()) {
    const tallies = tallyTasks(pool, pools.ledgers.get(pool.key.ledger_digest)!.taskIds);
    const s = splits.get(pool.key.ledger_digest)!;
    const list = members.get(pool.board_id) ?? [];
    // Only the headline rate is shown for the earlier cohorts: it alone is computed.
    list.push({ pool, tallies, headline: rateFigures(s.headline, tallies) });
    members.set(pool.board_id, list);
  }
  for (const [board_id, list] of members) {
    const key = pools.boards.get(board_id)!;
    const headline = splits.get(key.ledger_digest)!.headline;
    const baselines = list.filter((m) => m.pool.roles.has('baseline'));
    const baseline = baselines.length === 1 ? baselines[0]! : null;
    const problem: BaselineProblem = baselines.length === 0 ? 'no_baseline' : baselines.length > 1 ? 'several_baselines' : null;
    for (const m of list) {
      const isBaseline = m.pool.roles.has('baseline');
      const v = isBaseline ? null : judge(headline, { tallies: m.tallies, plans: m.pool.plans }, baseline && { tallies: baseline.tallies, plans: baseline.pool.plans }, problem, config.acceptance);
      out.set(m.pool.cohort_id, {
        cohort_id: m.pool.cohort_id,
        board_id,
        grader: key.grading,
        role: isBaseline ? 'baseline' : 'candidate',
        headline: { resolved: m.headline.resolved, graded: m.headline.graded, rate: m.headline.rate },
        verdict: v ? v.verdict : null,
        classes: v ? v.classes : null,
        regressed_tasks: v ? v.regressed_tasks : [],
      });
    }
  }
  return out;
}

/**
 * A cohort's regrade entry: the later generations its attempts are graded
 * by, what moved, and the cohorts generation 1 alone puts its subject in
 * (from its contributing plans) with their verdicts then. Null when neither
 * it nor its baseline has a regraded attempt.
 */
function regradeOf(pool: CohortPool, baseline: CohortPool | null, earlier: ReadonlyMap<string, EarlierCohort>): ReportRegrade | null {
  const baseline_regraded = baseline !== null && baseline.regrades.length > 0;
  if (pool.regrades.length === 0 && !baseline_regraded) return null;
  const generations = pool.regrades.map((r) => ({ ...r, grader: { ...r.grader } })).sort((a, b) => byString(a.plan_id, b.plan_id) || a.generation - b.generation);
  const sum = (f: 'attempts' | 'fail_to_pass' | 'pass_to_fail') => generations.reduce((n, g) => n + g[f], 0);
  const ids = [...new Set(pool.earlier.values())].sort(byString);
  return {
    generations,
    attempts: sum('attempts'),
    fail_to_pass: sum('fail_to_pass'),
    pass_to_fail: sum('pass_to_fail'),
    baseline_regraded,
    earlier: ids.flatMap((id) => {
      const e = earlier.get(id);
      return e ? [e] : [];
    }),
  };
}

/** The newest timestamp in the counted evidence: plan freezes, attempt ends, grading generations. */
export function evidenceDate(counted: readonly AnalysisInput[]): string | null {
  let newest: string | null = null;
  const consider = (t: string) => {
    if (newest === null || laterDate(t, newest)) newest = t;
  };
  for (const { evidence } of counted) {
    if (evidence.plan) consider(evidence.plan.created_at);
    // The newest attempt end, then each generation's time.
    const times = newestTimes(evidence);
    if (times.attemptsEnded !== null) consider(times.attemptsEnded);
    for (const t of times.generations) consider(t);
  }
  return newest;
}

/**
 * Whether `t` goes before `than` as the evidence date: a later instant, or
 * the same instant written as a lower string (of equal instants written
 * differently, the lowest string is the date: it depends on the evidence,
 * never on the order bundles come in).
 */
export function laterDate(t: string, than: string): boolean {
  const order = compareTimestamps(t, than);
  return order > 0 || (order === 0 && t < than);
}
