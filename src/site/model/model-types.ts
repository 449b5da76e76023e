/**
 * The site model's types: plain data (JSON round-trips it exactly), what
 * model.ts builds and the pages read (through view.ts). Types only.
 */
import type { Report } from '../../report/schema.ts';
import type { Plan } from '../../schema/index.ts';
import type { RetainedReport } from '../../history/retained-reports.ts';
import type { Chart } from '../charts/charts.ts';
import type { HistoryCheck, PlanChange } from '../../history/compare.ts';
import type { SiteFile, WithheldFile } from './published.ts';
import type { SiteSignature } from './signatures.ts';
import type { RetainedWithheld } from '../../history/retained-withheld.ts';
import type { SiteCompareBoard } from './compare.ts';
import type { SiteBoardTasks } from './tasks.ts';
import type { SiteTranscript } from './transcripts.ts';
import type { TaskMatrix } from './chart-tasks.ts';
import type { SiteEvidenceSize } from './rederive-limit.ts';
import type { BundleOutcomes } from './imported-facts.ts';
import type { Assessment } from '../../schema/assessments.ts';
import type { Scorecard } from '../../claims/scorecard.ts';
import type { SiteMoney } from '../../facts/money.ts';
import type { CohortMoney, SiteFacts } from '../../facts/index.ts';
import type { SiteSubjects } from './models.ts';
import type { SiteAnchorCount, SitePlanAnchor } from './anchors.ts';
import type { SiteFreezeLog } from './freeze-log.ts';

export type { SiteFile, WithheldFile } from './published.ts';
export type { SiteSignature } from './signatures.ts';

/** The money arithmetic of a plan, shown on its page (computed below the site: src/facts/money.ts). */
export type { SiteMoney } from '../../facts/money.ts';

/** A bundle on the site: where it is published, and, for the bundle a plan page shows, that page's parts. */
export interface SiteBundle {
  /** Its entry in report.bundles (findings, plan summary, money): see view.ts entryOf. */
  report: number;
  /** The hex of /bundles/<dirHex>/: the bundle_id when verified, else the content digest. */
  dirHex: string;
  /** /bundles/<dirHex>/manifest.json, when the bundle has a readable manifest.json file (the bundle's own bytes). */
  manifestUrl: string | null;
  /** /bundles/<dirHex>/files.json: every entry ledgerboard read, from which content_digest re-derives. */
  listingUrl: string;
  /** How many entries were read (all of them are in files.json). */
  entries: number;
  bundle_id: string | null;
  plan_id: string | null;
  content_digest: string;
  status: 'verified' | 'invalid' | 'no_verdict';
  counted: boolean;
  /**
   * The first MAX_ROWS (rows.ts) regular files read with a digest, each
   * published at its blob URL: no page lists more. All of them are in the
   * bundle's files.json.
   */
  files: SiteFile[];
  /** How many files are published in all. */
  fileCount: number;
  /** The first MAX_ROWS entries whose bytes are not published: not a regular file, a name that is not UTF-8, or unreadable. */
  unpublished: string[];
  /** How many entries are not published in all. */
  unpublishedCount: number;
  /** The first MAX_ROWS files whose bytes are withheld (config withhold): path, digest, size, reason, until. */
  withheld: WithheldFile[];
  /** How many files of the bundle are withheld in all. */
  withheldCount: number;
  /**
   * Whether this bundle may have /plans/<plan-hex>/: it verified on its own
   * (status verified, or invalid only by REWRITTEN_EVIDENCE from the history
   * check). A bundle that fails its own checks may claim any plan and any id.
   */
  ownsPlan: boolean;
  /** The parts of its plan page, for the bundle a plan page shows (SiteModel.plans); null for every other bundle. */
  page: SitePlanPage | null;
}

/** What a plan page shows of its bundle beyond the report: from the published plan.json, NOTES.md and ledger.jsonl. */
export interface SitePlanPage {
  /** plan.json as published (it verified: it parses and fits its schema). */
  plan: Plan;
  planUrl: string;
  planHtml: string | null;
  planCanonical: string;
  money: SiteMoney | null;
  /** grant.json: none published, or published and the findings do (mismatch) or do not name GRANT_MISMATCH. */
  grant: 'echoes' | 'mismatch' | 'none';
  notesHtml: string | null;
  /** Parts of the page that failed to render (a bug, isolated to this bundle's page; shown there). */
  renderProblems: string[];
  /** For imported evidence (FORMAT.md 9): the original file as published, and the command that re-runs the import. */
  imported: SiteImport | null;
  /**
   * What the page says of the plan's anchor (FORMAT.md 12: anchored before or
   * after the first attempt, or not anchored), its tokens' blobs, and whether
   * the freeze log lists it (anchors.ts planAnchor).
   */
  anchor: SitePlanAnchor;
}

/** How an imported bundle came to be, for its pages. */
export interface SiteImport {
  format: string;
  /** What the format is called (its importer's label, e.g. "Inspect AI eval log"); null for a format this version does not import. */
  label: string | null;
  tool: { name: string; version: string };
  /** The original file (origin.source) as published in the bundle, when present. */
  source: SiteFile | null;
  /** Shell lines that fetch the original and import it again; the bundle id to compare with. */
  rerun: string[];
  /**
   * Whether the build re-derived the import, read from the report's findings
   * (FORMAT.md 9): `matched` (verified, no IMPORT_* finding: the importer,
   * re-run on the kept originals, gave this bundle), `not_reproduced`
   * (IMPORT_NOT_REPRODUCED: the tool is only what the bundle claims),
   * `mismatch` (IMPORT_MISMATCH: invalid), `unverified` (another error).
   */
  rederived: 'matched' | 'not_reproduced' | 'mismatch' | 'unverified';
  /**
   * How the imported rate counts an attempt as resolved, as the plan page
   * says it (imported-facts.ts rateRuleOf): the format's own rule
   * (importer.passRule, read back from the plan's grader), else where
   * docs/importing.md states it.
   */
  rateRule: string;
  /**
   * The log's own metrics (results.scores[].metrics) of the graded score, as the log records them (at most
   * MAX_LOG_METRICS), to show beside the imported rate; null when the log records none or cannot be read.
   */
  logMetrics: { name: string; value: number | null }[] | null;
  /**
   * Present when the originals were not read for the pages because they pass
   * the report's import limits (src/site/model/originals.ts): the page's sentence,
   * e.g. "the original source/log.json is 2.1 GiB, past
   * import_limits.file_bytes (128 MiB): not read for this page". Then there is
   * no figure of the source's own and no transcript page.
   */
  unread?: string;
  /**
   * Present when the source's own figure cannot be read (src/import/sources.ts:
   * its originals withheld or not kept, a format this version does not read,
   * bytes that do not read as the format): the reason, which the plan page
   * shows ("the source's own figure cannot be read: <reason>").
   */
  figureUnreadable?: string;
}

/** A retained report as the pages show it (its bytes are published as they are, by the build, not through the model). */
export interface SiteRetained {
  hex: string;
  report: Report | null;
  problems: string[];
  /** Per cohort of its report, in its order, the money facts its rows read (src/facts/money.ts); empty without a report. */
  cohortMoney: CohortMoney[];
  /**
   * The files withheld when it was retained (retain's record beside it,
   * history/retained-withheld.ts), each with what this site does with its
   * bytes now; null: not recorded (retained before the record existed).
   */
  withheld: SiteRetainedWithheld | null;
}

/** A retained report's withheld files then, and now. */
export interface SiteRetainedWithheld {
  /** The record does not check (it is shown, never trusted). */
  problem: string | null;
  /** The first MAX_ROWS files of the record. */
  files: (RetainedWithheld['files'][number] & { now: 'revealed' | 'withheld' | 'absent' })[];
  count: number;
  /** How many of them are published now (revealed), still withheld, or in no bundle this site publishes. */
  revealed: number;
  still: number;
  absent: number;
}

/** Everything the pages need, as plain data. */
export interface SiteModel {
  title: string;
  siteUrl: string;
  report: Report;
  /** Indexes into report.boards in display order (src/report/board-order.ts): frozen first, then the newest plan first. */
  boardOrder: number[];
  /** Index into report.cohorts, by cohort id. */
  cohortIndex: Record<string, number>;
  /** Every bundle of the report, in report order. */
  bundles: SiteBundle[];
  /**
   * The bundle each plan page shows (an index into `bundles`), by plan hex,
   * in page order: only bundles that verified on their own (ownsPlan),
   * counted first, then verified, then report order. A rejected bundle
   * never takes a plan's page, whatever plan and id it claims.
   */
  plans: Record<string, number>;
  /** Bundles that claim a plan but do not show it (rejected, or another verified bundle of the plan), by plan hex: indexes into `bundles`, linked from the plan page to /rejected/. */
  otherClaims: Record<string, number[]>;
  /**
   * Charts per board id, rendered to inline SVG at build time (charts.ts), each with its text alternative and
   * visible notes: the rate chart, cost against rate (its SVGs empty when no cohort can be placed), and the
   * rate over time (null when the board has one evidence date).
   */
  charts: Record<string, { rate: Chart; cost: Chart; time: Chart | null }>;
  /**
   * Pairs per board id (compare.ts, FORMAT.md 7.6): the pair matrix, the board's resolution, each cohort's
   * per-task sides and the compare pages (/boards/<hex>/compare/<a-hex>/<b-hex>/) with their figures.
   */
  compare: Record<string, SiteCompareBoard>;
  /**
   * Per board id: its headline, watch-list and public tasks (each with its
   * task page /boards/<board-hex>/tasks/<key>/: key, ledger record, resolved /
   * graded per cohort) and the task x cohort matrix (chart-tasks.ts). The
   * attempt rows of a task page are not in the model (tasks.ts TaskDetails).
   */
  tasks: Record<string, SiteBoardTasks & { matrix: TaskMatrix }>;
  /**
   * The transcript pages (/transcripts/<bundle-hex>/<attempt-key>/): one per
   * attempt of a counted imported bundle whose format records a transcript,
   * in bundle order; the text is not in the model (transcripts.ts).
   */
  transcripts: SiteTranscript[];
  /**
   * Per cohort id, the one line of each imported bundle it pools whose
   * headline differs from the source's own figure (imported-facts.ts
   * sourceLineOf: "source: ...; imported: 25 of 37 resolved; 12 attempts not
   * graded: harness_failure"), with the bundle's plan hex; the board row and
   * the cohort page show them. Absent: no such bundle.
   */
  sourceLines: Record<string, { plan_hex: string; text: string }[]>;
  /** Per board id, why imports of its benchmark from its format are on other boards or in other cohorts (import-splits.ts). */
  splits: Record<string, SiteSplit[]>;
  /**
   * Per cohort of the report, in report order, the money facts its rows and
   * the cost chart read beside its cost (the site facts' `cohortMoney`,
   * src/facts/money.ts): how many attempts have a known cost.
   */
  cohortMoney: CohortMoney[];
  /** Retained reports, oldest evidence first, each with its re-derived id checked. */
  retained: SiteRetained[];
  /** Files in the retained directory that are not <hex>.json (listed, never published). */
  retainedIgnored: string[];
  /**
   * The site's date (citation, feed): the newest evidence's date, else
   * SOURCE_DATE_EPOCH, else null. Never the build clock.
   */
  date: string | null;
  /** The append-only check against the retained manifests (empty without history). */
  history: SiteHistory;
  /**
   * The published envelopes (signed reports, FORMAT.md 10) by report hex, the
   * current and retained reports', each checked at build time against the
   * published bytes (signatures.ts). A report with none is not signed.
   */
  signatures: Record<string, SiteSignature[]>;
  /** How many files of all bundles are withheld (their bytes not published: /withheld.json). */
  withheldCount: number;
  /** What the in-browser re-derivation fetches (rederive-limit.ts): the published blobs' bytes, in all and per ledger. */
  evidence: SiteEvidenceSize;
  /** The site's own verifiers as published (/verify.mjs, /verify-worker.js): their sizes and digests, shown on /verify/. */
  verifiers: { path: string; sha256: string; bytes: number }[];
  /**
   * The score card the report's claims were computed with (FORMAT.md 11; its
   * digest is the report config's `scorecard`), published byte for byte at
   * /scorecard.json; null: the config names none, the cohorts' claims are
   * null and the pages say the figures carry no claims.
   */
  scorecard: SiteScorecard | null;
  /** Per cohort id, the assessments shown beside its assessed claims (claims-model.ts siteAssessments); a cohort with none is absent. */
  assessments: Record<string, SiteAssessment[]>;
  /**
   * The model pages (/models/<key>/) and agent pages (/agents/<key>/), each
   * with its cohorts on every board and the boards with none (models.ts
   * siteSubjects).
   */
  subjects: SiteSubjects;
  /** How many counted plans are anchored before their first attempt (anchors.ts anchorCount); null: the report records no anchors, or counts nothing. */
  anchors: SiteAnchorCount | null;
  /** The report's freeze log as /freeze-log/ shows it (freeze-log.ts); null: the report carries none (and the site has no /freeze-log/). */
  freezeLog: SiteFreezeLog | null;
}

/** The score card as the site holds it (claims-model.ts siteScorecard): the card, its digest (the report config's `scorecard`) and its published size. */
export interface SiteScorecard {
  card: Scorecard;
  /** sha256 of the RFC 8785 form of the card: the report config's `scorecard`. */
  digest: string;
  /** The size of the published file (/scorecard.json, the config's file byte for byte). */
  bytes: number;
}

/** One assessment shown beside an assessed claim, from a contributing bundle's assessments.json (claims-model.ts siteAssessments). */
export interface SiteAssessment {
  indicator: string;
  level: string;
  /** Who assessed: free text, evidence. */
  by: string;
  /** The plan page of the bundle that holds it. */
  plan_hex: string;
  /** The basis (a manifest-listed path of that bundle) and its blob URL (null when its bytes are not published: withheld); null: none given. */
  basis: { path: string; url: string | null } | null;
}

/** The history check as the pages show it. */
export interface SiteHistory {
  /** Re-published plans, by plan hex, each with how its files changed. */
  byPlan: Record<string, PlanChange[]>;
  /** Plans with removed or rewritten files (REWRITTEN_EVIDENCE), in plan order. */
  rewritten: PlanChange[];
  /** Plans that only gained files since they were retained (appends, additions such as a regrade): counted, numbers may differ. */
  grown: PlanChange[];
  /** Retained bundles whose plan has no bundle at all any more. */
  absent: HistoryCheck['absent'];
  /** Files of the retained manifests directory that are not valid manifests. */
  problems: HistoryCheck['problems'];
}

/** What a site model is built from besides the report, what is published and the config. */
export interface SiteModelOptions {
  /** The site's own verifiers (src/site/build/verifier-files.ts): path, digest and size of each. */
  verifiers?: { path: string; sha256: string; bytes: number }[];
  retained?: { reports: readonly Pick<RetainedReport, 'hex' | 'report' | 'problems'>[]; ignored: string[] };
  /** SOURCE_DATE_EPOCH as RFC 3339, used only when no evidence is dated. */
  sourceDate?: string | null;
  /** The append-only check (compare.ts), when the build read retained manifests. */
  history?: Pick<HistoryCheck, 'changes' | 'absent' | 'problems'>;
  /** The published envelopes, checked (signatures.ts checkSignatures); absent: none. */
  signatures?: Record<string, SiteSignature[]>;
  /** Retain's record of the files withheld, by retained report hex (history/retained-withheld.ts); a report without one: not recorded. */
  retainedWithheld?: Record<string, { record: RetainedWithheld | null; problem: string | null }>;
  /** The boards' tasks (tasks.ts siteTasks), when the build computed them already; else buildSiteModel does. */
  tasks?: Record<string, SiteBoardTasks>;
  /** The transcript pages' index (tasks.ts siteTasks), given with `tasks`. */
  transcripts?: SiteTranscript[];
  /** Each counted bundle's outcome counts (tasks.ts siteTasks), given with `tasks`. */
  outcomes?: Record<string, BundleOutcomes>;
  /** The verified evidence's assessments (assessments.json) by bundle id, when the build has them; else each bundle's published file is read. */
  assessments?: ReadonlyMap<string, readonly Assessment[]>;
  /**
   * The site's facts of this report (src/facts: compare pages, money, the
   * verified plans, the attempt index), as the pipeline returns them beside
   * the report (and its cache keeps them), or computeSiteFacts for a caller
   * without the pipeline. Required: the site never computes them (a model
   * built without them throws).
   */
  facts: SiteFacts;
}

/** One split a board page states (import-splits.ts). */
export interface SiteSplit {
  /** The other board (a link on the page), or null when the split is between two cohorts of this board. */
  other_board: string | null;
  /** For a split inside one board: the two cohorts. */
  cohorts: [string, string] | null;
  /** The components that differ (the importer's names, bounded), empty when none it knows differ. */
  differences: string[];
  /** What the page says after "split from <board>: ", e.g. "the runs' adapter_spec.instructions differ". */
  text: string;
}
