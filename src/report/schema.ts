/**
 * The report (FORMAT.md section 8), schema `ledgerboard.report.v1`: the
 * build's single derived object, content-addressed by `report_id` (the RFC
 * 8785 digest of the report without report_id). Defined here in zod: the one
 * source of its TypeScript type and of public/schema/report.json.
 */
import { z } from 'zod';
import { Config, scorecardOf, timestampRootsOf } from '../config/schema.ts';
import { Digest, Timestamp } from '../schema/common.ts';
import { TERMINAL_CLASSES } from '../analysis/grading.ts';
import { BOUNDED_TOTALS } from '../analysis/score.ts';
import { Claim } from '../claims/scorecard.ts';

const Rate = z.number().min(0).max(1);
const Interval = z.tuple([z.number(), z.number()]).nullable();
const Count = z.int().min(0);

const FindingOut = z.strictObject({
  code: z.string(),
  severity: z.enum(['error', 'warning']),
  file: z.string(),
  line: z.int().min(1).optional(),
  message: z.string(),
});

/**
 * What attempts cost (FORMAT.md 5: cost states), summed once, exactly, over
 * integer micros: `micros` adds the complete and partial costs, so it is a
 * lower bound unless `complete` (no attempt unavailable or partial). The
 * currency is the plan's budget's (null without one).
 */
const Cost = z.strictObject({
  currency: z.string().nullable(),
  micros: Count,
  complete: z.boolean(),
  unavailable: Count,
  partial: Count,
  not_applicable: Count,
  zero: Count,
});

/** Every bundle read, verified or not, with its findings; only verified ones are counted. */
export const ReportBundle = z.strictObject({
  bundle_id: Digest.nullable(),
  plan_id: Digest.nullable(),
  /** Digest of the bundle's sorted (path, kind, sha256) entries: identifies even a bundle whose manifest is unreadable. */
  content_digest: Digest,
  status: z.enum(['verified', 'invalid', 'no_verdict']),
  counted: z.boolean(),
  findings: z.array(FindingOut),
  plan: z
    .strictObject({
      title: z.string(),
      created_at: Timestamp,
      ledger: z.strictObject({ name: z.string(), digest: Digest, tasks: Count }),
      origin: z.enum(['frozen', 'imported']),
      subjects: Count,
      attempts_per_task: Count,
      /**
       * The plan's declared ceiling (null: none, imported evidence). Reports
       * retained before it was reported carry none; every report built now has it.
       */
      budget: z.strictObject({ currency: z.string(), aggregate_micros: Count, per_attempt_micros: Count }).nullable().optional(),
    })
    .nullable(),
  /**
   * The money this bundle's attempts spent: every attempt of attempts.jsonl
   * that passed its schema, verified or not (none when the file could not
   * be read: see the findings). Null when the total is over 2^53 - 1, which
   * the bundle's LIMIT_EXCEEDED names. Reports retained before it was
   * reported carry none; every report built now has it (null or not).
   */
  cost: Cost.nullable().optional(),
  /**
   * FORMAT.md 12: the bundle's anchor, from the `anchors/*.tsr` tokens that
   * check (the earliest genTime; null when none does or there is none).
   * `authority` is the signer certificate's subject (RFC 4514); `pinned`
   * when it chains to a root of the config's `timestamp_roots`. Reports
   * retained before issue 30 carry none; every report built now has it.
   */
  anchor: z
    .strictObject({ gen_time: Timestamp, authority: z.string(), pinned: z.boolean(), before_first_attempt: z.boolean() })
    .nullable()
    .optional(),
});

/**
 * The freeze log (issue 30): every plan `freeze` froze, as the config's
 * `freeze_log` holds it when the report was made, so a reader sees the plans
 * frozen and never published. `digest` is the SHA-256 of the log's bytes;
 * `plans` lists each plan id once (its first line), sorted by created_at
 * then plan id, `published` when a bundle of this report holds that plan;
 * `findings` are the log's own (a line that does not parse, a retained copy
 * that is no longer a prefix). Null when the config names no log.
 */
export const ReportFreezeLog = z.strictObject({
  digest: Digest,
  lines: Count,
  plans: z.array(
    z.strictObject({
      plan_id: Digest,
      created_at: Timestamp,
      ledger_digest: Digest,
      title: z.string(),
      anchor_digest: Digest.nullable(),
      published: z.boolean(),
    }),
  ),
  findings: z.array(FindingOut),
});

const RateFigures = z.strictObject({
  tasks: Count,
  attempted_tasks: Count,
  resolved: Count,
  graded: Count,
  rate: Rate.nullable(),
  wilson: Interval,
});

const TaskSide = z.strictObject({
  outcome: z.enum(['pass', 'fail', 'mixed', 'incomplete']),
  reason: z.enum(['no_attempt', 'unaccounted_slot', 'ungraded']).nullable(),
  attempts: Count,
  resolved: Count,
});

/** True when every number in a JSON value is finite and, when an integer, within 2^53 - 1 (what RFC 8785 and every reader hold exactly). */
function isExactJson(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value));
  if (value === null || typeof value !== 'object') return true;
  return Object.values(value).every(isExactJson);
}

/** A key component's value: any JSON, but no number a reader could not hold exactly. */
const KeyValue = z.unknown().refine(isExactJson, 'a number that is not finite, or an integer beyond 2^53 - 1');

const KeyDifference = z.strictObject({ component: z.string(), a: KeyValue, b: KeyValue });

const GraderOut = z.strictObject({ id: z.string(), version: z.string(), executable: Digest });
const VerdictOut = z.enum(['PASS', 'REGRESSION', 'NO_GAIN', 'NO_VERDICT']);
const Classes = z.strictObject({ improved: Count, regressed: Count, unchanged: Count, unclear: Count });

/**
 * What a regrade changed (FORMAT.md 5.3 and 7.1: the latest generation is
 * the layer in use). Null when no attempt of the cohort, nor of its board's
 * baseline, is graded by a generation after the first.
 */
export const ReportRegrade = z.strictObject({
  /** Each later generation this cohort's attempts are graded by, with how many of them moved against generation 1. */
  generations: z.array(
    z.strictObject({
      plan_id: Digest,
      generation: z.int().min(2),
      created_at: Timestamp,
      grader: GraderOut,
      attempts: Count,
      fail_to_pass: Count,
      pass_to_fail: Count,
    }),
  ),
  /** Sums over `generations`. */
  attempts: Count,
  fail_to_pass: Count,
  pass_to_fail: Count,
  /** True when the board's baseline cohort (not this one) has regraded attempts: this verdict may have moved with it. */
  baseline_regraded: z.boolean(),
  /** The cohorts this cohort's contributing plans put its subject in when generation 1 alone grades every bundle, with their verdicts then. */
  earlier: z.array(
    z.strictObject({
      cohort_id: Digest,
      board_id: Digest,
      grader: GraderOut,
      role: z.enum(['candidate', 'baseline']),
      headline: z.strictObject({ resolved: Count, graded: Count, rate: Rate.nullable() }),
      verdict: VerdictOut.nullable(),
      classes: Classes.nullable(),
      regressed_tasks: z.array(z.string()),
    }),
  ),
});
export type ReportRegrade = z.infer<typeof ReportRegrade>;

/** A cohort and its score vector. `classes`, `verdict` and `delta` are null for the baseline itself. */
export const ReportCohort = z.strictObject({
  cohort_id: Digest,
  board_id: Digest,
  subject: z.strictObject({
    model: z.string(),
    agent: z.strictObject({ name: z.string(), version: z.string() }),
    role: z.enum(['candidate', 'baseline']),
    selectors: z.array(z.string()),
  }),
  ledger_digest: Digest,
  harness_commit: z.string(),
  baseline_cohort_id: Digest.nullable(),
  rank: z.int().min(1),
  /**
   * The rank range (FORMAT.md 7.6): [1 + the cohorts on the board that beat it,
   * N - the cohorts it beats]. Reports retained before pairs were reported
   * carry none; every report built now has it.
   */
  rank_range: z.tuple([z.int().min(1), z.int().min(1)]).optional(),
  attempts: Count,
  headline: RateFigures,
  watch_list: RateFigures,
  public: RateFigures,
  terminal_classes: z.strictObject(Object.fromEntries(TERMINAL_CLASSES.map((c) => [c, Count])) as Record<(typeof TERMINAL_CLASSES)[number], typeof Count>),
  grader_failure_reasons: z.strictObject({ failed: Count, errored: Count, missing: Count }),
  tokens: z.strictObject({ input: Count, output: Count, total: Count, complete: z.boolean(), unknown: Count }),
  wall_seconds: z.strictObject({ sum: z.number().min(0), median: z.number().min(0).nullable() }),
  retries: Count,
  cost: Cost,
  pass_at_k: z.array(z.strictObject({ k: z.int().min(1), value: Rate })),
  replicates: z.strictObject({
    per_index: z.array(z.strictObject({ index: z.int().min(1), resolved: Count, graded: Count, rate: Rate.nullable() })),
    spread: z.number().min(0).max(1).nullable(),
    flipped_tasks: z.array(z.string()),
  }),
  delta: z
    .strictObject({
      rate: z.number().min(-1).max(1).nullable(),
      interval: Interval,
      paired_tasks: Count,
      resamples: Count,
      skipped: Count,
      seed: z.string(),
    })
    .nullable(),
  classes: Classes.nullable(),
  verdict: VerdictOut.nullable(),
  verdict_reasons: z.array(z.string()),
  // Reports retained before regrades were reported carry none; they stay valid reports. Every report built now has it (null or not).
  regrade: ReportRegrade.nullable().optional(),
  regressed_tasks: z.array(z.string()),
  incomplete_tasks: z.array(
    z.strictObject({ task_id: z.string(), side: z.enum(['candidate', 'baseline']), reason: z.enum(['no_attempt', 'unaccounted_slot', 'ungraded']) }),
  ),
  tasks: z.array(z.strictObject({ task_id: z.string(), candidate: TaskSide, baseline: TaskSide, class: z.enum(['IMPROVED', 'REGRESSED', 'UNCHANGED', 'UNCLEAR']) })),
  plans: z.array(
    z.strictObject({ plan_id: Digest, bundle_id: Digest, title: z.string(), created_at: Timestamp, attempts_per_task: z.int().min(1) }),
  ),
  /**
   * Reports built before issue 25 listed here every cohort on another board
   * of the same ledger, with the differences (quadratic in the cohorts); they
   * stay valid reports. A report built now has none: the cohort's ledger's
   * entry of `incompatibilities.by_ledger` says the same, once per ledger.
   */
  incompatible_with: z.array(z.strictObject({ cohort_id: Digest, board_id: Digest, differences: z.array(KeyDifference) })).optional(),
  /**
   * The totals held at their bound because the pooled bundles' sum is not
   * exactly representable (src/analysis/score.ts boundTotals): each shows
   * 2^53 - 1 (or the largest finite double for wall seconds), a lower
   * bound. Absent when none is.
   */
  bounded: z.array(z.enum(BOUNDED_TOTALS)).min(1).optional(),
  /**
   * The cohort's claims (FORMAT.md 11.3): one per indicator of the score
   * card, in its order; null without a card. Reports retained before claims
   * existed carry none; every report built now has it (null or not).
   */
  claims: z.array(Claim).nullable().optional(),
});
export type ReportCohort = z.infer<typeof ReportCohort>;

/** A board: cohorts that may be compared, ranked, with the baseline's drift over plans. */
export const ReportBoard = z.strictObject({
  board_id: Digest,
  key: z.strictObject({
    ledger_digest: Digest,
    environment: z.strictObject({
      tool_policy: Digest,
      wiki: z.array(z.strictObject({ path: z.string(), sha256: Digest })),
      isolation: z.string(),
      session_topology: z.string(),
    }),
    harness: z.strictObject({ name: z.string(), version: z.string(), commit: z.string() }),
    budget: z.strictObject({ currency: z.string(), per_attempt_micros: Count, timeout_seconds: Count }).nullable(),
    grading: z.strictObject({ id: z.string(), version: z.string(), executable: Digest }),
    origin: z.enum(['frozen', 'imported']),
  }),
  ledger: z.strictObject({ name: z.string(), digest: Digest, headline_tasks: z.array(z.string()), watch_list_tasks: z.array(z.string()), public_tasks: z.array(z.string()) }),
  baseline_cohort_id: Digest.nullable(),
  baseline_problem: z.enum(['no_baseline', 'several_baselines']).nullable(),
  cohorts: z.array(Digest),
  /**
   * Every unordered pair of the board's cohorts (FORMAT.md 7.6), `a` the
   * cohort id that sorts first, sorted by (a, b). Reports retained before
   * pairs were reported carry none; every report built now has it.
   */
  pairs: z
    .array(
      z.strictObject({
        a: Digest,
        b: Digest,
        tasks: Count,
        a_better: Count,
        b_better: Count,
        p: z.number().min(0).max(1),
        p_holm: z.number().min(0).max(1),
        winner: Digest.nullable(),
      }),
    )
    .optional(),
  drift: z.array(
    z.strictObject({
      plan_id: Digest,
      created_at: Timestamp,
      resolved: Count,
      graded: Count,
      rate: Rate.nullable(),
      versus_previous: z.strictObject({ z: z.number(), p: z.number().min(0).max(1), drift: z.boolean() }).nullable(),
    }),
  ),
});
export type ReportBoard = z.infer<typeof ReportBoard>;

/** The whole report. */
/**
 * The config as the report records it: everything that decides what the
 * numbers mean, without where the files sit (bundles_dir,
 * retained_reports_dir) and without the editor's `$schema`. A bundle is
 * known by its id, never by its directory, so moving the same evidence
 * elsewhere keeps the report id. `import_limits` is kept when the config
 * has it (absent: absent, like `limits`): imports are re-derived under
 * them, so a stranger re-deriving the report needs the same ones. A score
 * card is kept as its RFC 8785 digest (`scorecard`), never its path.
 */
export const ReportConfig = Config.omit({ $schema: true, bundles_dir: true, retained_reports_dir: true, attestations_dir: true, withhold: true, compare_max_cohorts: true }).extend({
  // Reports retained before the paths were left out carry them; they stay valid reports.
  bundles_dir: Config.shape.bundles_dir.unwrap().optional(),
  retained_reports_dir: Config.shape.retained_reports_dir.unwrap().optional(),
  /** The score card's RFC 8785 digest (FORMAT.md 11.1), in place of its path; absent without a card. */
  scorecard: Digest.optional(),
  /** The pinned time-stamp roots (FORMAT.md 12): each certificate's digest, `sha256:<hex of the DER>`, sorted, in place of the PEM files' paths; absent when the config names none. */
  timestamp_roots: z
    .array(Digest)
    .optional()
    .describe("The pinned time-stamp authorities' root certificates (FORMAT.md 12), each as sha256:<hex of its DER>, sorted, each once, in place of the config's paths; the site publishes each as /timestamp-roots/<hex>.pem. Absent: the config pins none."),
});
export type ReportConfig = z.infer<typeof ReportConfig>;

/** Strips the paths and the editor's `$schema` from a config (see ReportConfig). */
export function reportConfigOf(config: Config): ReportConfig {
  const {
    $schema: _schema,
    bundles_dir: _bundles,
    retained_reports_dir: _retained,
    attestations_dir: _attestations,
    withhold: _withhold,
    compare_max_cohorts: _compare,
    scorecard: _path,
    timestamp_roots: _roots,
    ...rest
  } = config;
  // The card's digest, never its path (scorecardOf throws for a config whose card was not loaded);
  // string-keyed members only, so the loaded card (under a symbol) stays out of the report object.
  const card = scorecardOf(config);
  const plain: ReportConfig = Object.fromEntries(Object.entries(rest)) as typeof rest;
  if (card !== null) plain.scorecard = card.digest;
  // The roots' digests, never the PEM files' paths (timestampRootsOf throws for a config whose roots were not loaded).
  if (config.timestamp_roots !== undefined) {
    timestampRootsOf(config);
    plain.timestamp_roots = [...config.timestamp_roots].sort();
  }
  return plain;
}

/** Two cohorts on one ledger and different boards (FORMAT.md 7.1), `a` < `b` by cohort id: the pairs of reports built before issue 25. */
export const CohortIncompatibility = z.strictObject({ a: Digest, b: Digest, board_a: Digest, board_b: Digest, differences: z.array(KeyDifference) });

/**
 * The incompatibilities of one ledger (FORMAT.md 7.1, grouped: see
 * docs/format-decisions.md): its boards, each with its cohorts, and each key
 * component that is not the same on all of them with every value and the
 * boards holding it. Every two cohorts on different boards are incompatible;
 * they differ in each component where their boards hold different values
 * (unless both are objects: then the components below say what differs).
 */
export const LedgerBoards = z.strictObject({
  ledger_digest: Digest,
  boards: z.array(z.strictObject({ board_id: Digest, cohorts: z.array(Digest) })),
  components: z.array(z.strictObject({ component: z.string(), values: z.array(z.strictObject({ value: KeyValue, boards: z.array(Digest) })) })),
});

/**
 * Ledgers that share a name (FORMAT.md 7.1): their digests, and each task id
 * that is missing from one of them or has two versions, with each version
 * (the RFC 8785 digest of its ledger record) and the ledgers holding it.
 * Between two of the ledgers a task changed when they hold different
 * versions, and was added or removed when one of them holds none.
 */
export const NamedLedgers = z.strictObject({
  name: z.string(),
  ledgers: z.array(Digest),
  tasks: z.array(z.strictObject({ task_id: z.string(), versions: z.array(z.strictObject({ record: Digest, ledgers: z.array(Digest) })) })),
});

/** What cannot be compared, grouped: size grows with the boards and ledgers, not their pairs (issue 25). */
export const GroupedIncompatibilities = z.strictObject({ by_ledger: z.array(LedgerBoards), by_name: z.array(NamedLedgers) });
export type GroupedIncompatibilities = z.infer<typeof GroupedIncompatibilities>;

/** The pairs of reports built before issue 25 (quadratic); retained ones stay valid reports. */
export const PairedIncompatibilities = z.strictObject({
  cohorts: z.array(CohortIncompatibility),
  ledgers: z.array(z.strictObject({ name: z.string(), a: Digest, b: Digest, changed: z.array(z.string()), added: z.array(z.string()), removed: z.array(z.string()) })),
});
export type PairedIncompatibilities = z.infer<typeof PairedIncompatibilities>;

/** A report's grouped incompatibilities; throws for a report retained before issue 25 (pairs), which only history reads. */
export function groupedIncompatibilities(report: { incompatibilities: GroupedIncompatibilities | PairedIncompatibilities }): GroupedIncompatibilities {
  if (!isGrouped(report.incompatibilities)) throw new Error('internal: a report of the shape before issue 25 (incompatibilities as pairs) where a report built now was expected');
  return report.incompatibilities;
}

/** True for the grouped form every report built now has; false for the pairs of a report retained before issue 25. */
export function isGrouped(incompatibilities: GroupedIncompatibilities | PairedIncompatibilities): incompatibilities is GroupedIncompatibilities {
  return 'by_ledger' in incompatibilities;
}

export const Report = z.strictObject({
  schema: z.literal('ledgerboard.report.v1'),
  report_id: Digest,
  generator: z.strictObject({ name: z.literal('ledgerboard'), version: z.string() }),
  config: ReportConfig,
  config_digest: Digest,
  /** Digest of the counted bundle ids and the config digest: what the whole report was made from. */
  inputs_digest: Digest,
  /** The newest timestamp in the counted evidence (plans, attempts, grades); never the build clock. Null without evidence. */
  evidence_date: Timestamp.nullable(),
  bundles: z.array(ReportBundle),
  conflicts: z.array(z.strictObject({ plan_id: Digest, bundle_ids: z.array(Digest) })),
  excluded_by_grading_pin: z.array(z.strictObject({ bundle_id: Digest, attempts: Count })),
  boards: z.array(ReportBoard),
  cohorts: z.array(ReportCohort),
  /** Grouped (every report built now), or the pairs of a report retained before issue 25. */
  incompatibilities: z.union([GroupedIncompatibilities, PairedIncompatibilities]),
  /** The freeze log (ReportFreezeLog); reports retained before issue 30 carry none. */
  freeze_log: ReportFreezeLog.nullable().optional(),
});
export type Report = z.infer<typeof Report>;
