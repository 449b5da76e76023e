/**
 * The site model: everything the Astro pages render, computed once per build
 * from the report and the bundles as read. Pages compute nothing; every URL
 * here comes from a digest, never from text in a bundle (docs/site.md):
 * evidence bytes are linked at /blobs/<sha256-hex> (publish.ts).
 */
import { codeToHtml } from 'shiki';
import { canonicalJson } from '../json/canonical.ts';
import type { BundleEntry, VerifiedBundle } from '../pipeline/verify-paths.ts';
import type { Report, ReportBoard, ReportCohort } from '../report/schema.ts';
import { boardsInOrder } from '../report/board-order.ts';
import type { Manifest, Plan } from '../schema/index.ts';
import { basePathOf, type Config } from '../config/config.ts';
import { dispatchesOf } from '../verify/check-plan.ts';
import { hexOf } from './format.ts';
import { renderNotes, startNotesRenderer } from './notes.ts';
import type { RetainedReport } from '../history/retained-reports.ts';
import { costChart, rateChart, type Chart } from './charts.ts';
import type { HistoryCheck, PlanChange } from '../history/compare.ts';
import { blobUrl, listingUrl, manifestUrl } from './publish.ts';

/** A file of a bundle as the site publishes it. */
export interface SiteFile {
  path: string;
  /** Where its bytes are: /blobs/<sha256-hex>, from the digest alone (never from the path). */
  url: string;
  bytes: number;
  sha256: string;
}

/** The money arithmetic of a plan, shown on its page. */
export interface SiteMoney {
  currency: string;
  aggregate_micros: number;
  dispatches: string;
  floor_micros: string;
  per_attempt_micros: number;
  spent_micros: number;
  complete: boolean;
  unavailable: number;
  partial: number;
  not_applicable: number;
}

/** A bundle on the site: its directory, files, findings and (when readable) its plan. */
export interface SiteBundle {
  /** The hex of /bundles/<dirHex>/: the bundle_id when verified, else the content digest. */
  dirHex: string;
  /** /bundles/<dirHex>/manifest.json, when the bundle has a readable manifest.json file (the bundle's own bytes). */
  manifestUrl: string | null;
  /** /bundles/<dirHex>/files.json: every entry ledgerboard read, from which content_digest re-derives. */
  listingUrl: string;
  /** Every entry as read (path, kind, size, digest), in content-digest order. */
  entries: BundleEntry[];
  bundle_id: string | null;
  plan_id: string | null;
  content_digest: string;
  status: 'verified' | 'invalid' | 'no_verdict';
  counted: boolean;
  findings: Report['bundles'][number]['findings'];
  /** Every regular file read with a digest, published at its blob URL. */
  files: SiteFile[];
  /** Entries whose bytes are not published: not a regular file, a name that is not UTF-8, or unreadable. */
  unpublished: string[];
  /**
   * Whether this bundle may have /plans/<plan-hex>/: it verified on its own
   * (status verified, or invalid only by REWRITTEN_EVIDENCE from the history
   * check). A bundle that fails its own checks may claim any plan and any id.
   */
  ownsPlan: boolean;
  plan: Plan | null;
  planUrl: string | null;
  planHtml: string | null;
  planCanonical: string | null;
  manifest: Manifest | null;
  money: SiteMoney | null;
  grant: 'echoes' | 'mismatch' | 'none';
  notesHtml: string | null;
  /** Where the bundle was read from; never published (a bundle is known by its id). */
  sourceDir: string;
  /** Parts of the page that failed to render (a bug, isolated to this bundle's page; shown there). */
  renderProblems: string[];
  /** For imported evidence (FORMAT.md 9): the original file as published, and the command that re-runs the import. */
  imported: SiteImport | null;
}

/** How an imported bundle came to be, for its pages. */
export interface SiteImport {
  format: string;
  tool: { name: string; version: string };
  /** The original file (origin.source) as published in the bundle, when present. */
  source: SiteFile | null;
  /** Shell lines that fetch the original and import it again; the bundle id to compare with. */
  rerun: string[];
}

/** Everything the pages need. */
export interface SiteModel {
  title: string;
  siteUrl: string;
  report: Report;
  reportText: string;
  /** The boards in display order (src/report/board-order.ts): frozen first, then the newest plan first. */
  boards: ReportBoard[];
  cohorts: Map<string, ReportCohort>;
  bundles: SiteBundle[];
  /**
   * The bundle each plan page shows, by plan hex: only bundles that verified on
   * their own (ownsPlan), counted first, then verified, then report order.
   * A rejected bundle never takes a plan's page, whatever plan and id it claims.
   */
  plans: Map<string, SiteBundle>;
  /** Bundles that claim a plan but do not show it (rejected, or another verified bundle of the plan), by plan hex: linked from the plan page to /rejected/. */
  otherClaims: Map<string, SiteBundle[]>;
  /** Charts per board id, rendered to inline SVG at build time, each with its text alternative. */
  charts: Map<string, { rate: Chart; cost: Chart | null }>;
  /** Retained reports, oldest evidence first, each with its re-derived id checked. */
  retained: RetainedReport[];
  /** Files in the retained directory that are not <hex>.json (listed, never published). */
  retainedIgnored: string[];
  /**
   * The site's date (citation, feed): the newest evidence's date, else
   * SOURCE_DATE_EPOCH, else null. Never the build clock.
   */
  date: string | null;
  /** The append-only check against the retained manifests (empty without history). */
  history: SiteHistory;
}

/** The history check as the pages show it. */
export interface SiteHistory {
  /** Re-published plans, by plan hex, each with how its files changed. */
  byPlan: Map<string, PlanChange[]>;
  /** Plans with removed or rewritten files (REWRITTEN_EVIDENCE), in plan order. */
  rewritten: PlanChange[];
  /** Plans that only gained files since they were retained (appends, additions such as a regrade): counted, numbers may differ. */
  grown: PlanChange[];
  /** Retained bundles whose plan has no bundle at all any more. */
  absent: HistoryCheck['absent'];
  /** Files of the retained manifests directory that are not valid manifests. */
  problems: HistoryCheck['problems'];
}

/** What a site model is built from besides the report, the bundles and the config. */
export interface SiteModelOptions {
  retained?: { reports: RetainedReport[]; ignored: string[] };
  /** SOURCE_DATE_EPOCH as RFC 3339, used only when no evidence is dated. */
  sourceDate?: string | null;
  /** The append-only check (compare.ts), when the build read retained manifests. */
  history?: HistoryCheck;
}

/** An absolute URL on the site for a path starting with "/". */
export function absolute(model: Pick<SiteModel, 'siteUrl'>, path: string): string {
  return new URL(path.replace(/^\//, ''), model.siteUrl).href;
}

/** Builds the site model from the report and the bundles it was built from. */
export async function buildSiteModel(
  report: Report,
  results: readonly VerifiedBundle[],
  config: Config,
  options: SiteModelOptions = {},
): Promise<SiteModel> {
  const retained = options.retained ?? { reports: [], ignored: [] };
  // With a base path the URL names a directory: "https://user.github.io/board" is "https://user.github.io/board/".
  const siteUrl = new URL(basePathOf(config), config.site_url).href;
  const byContent = new Map(results.map((r) => [r.content_digest, r]));
  const changed = new Set((options.history?.changes ?? []).map((c) => `${c.plan_id} ${c.bundle_id}`));
  if (results.some((r) => r.verification.evidence.notes)) startNotesRenderer();
  const bundles: SiteBundle[] = [];
  for (const entry of report.bundles) {
    const result = byContent.get(entry.content_digest)!;
    bundles.push(await siteBundle(entry, result, siteUrl, changed));
  }
  const cohorts = new Map(report.cohorts.map((c) => [c.cohort_id, c]));
  const { plans, otherClaims } = planPages(bundles);
  return {
    title: config.title,
    siteUrl,
    report,
    reportText: `${canonicalJson(report)}\n`,
    boards: boardsInOrder(report),
    cohorts,
    bundles,
    plans,
    otherClaims,
    charts: new Map(report.boards.map((b) => [b.board_id, { rate: rateChart(b, cohorts), cost: costChart(b, cohorts) }])),
    retained: retained.reports,
    retainedIgnored: retained.ignored,
    date: report.evidence_date ?? options.sourceDate ?? null,
    history: siteHistory(options.history),
  };
}

/** Which bundle each plan page shows (see SiteModel.plans), and the other bundles claiming each plan. */
export function planPages(bundles: readonly SiteBundle[]): { plans: Map<string, SiteBundle>; otherClaims: Map<string, SiteBundle[]> } {
  const rank = (b: SiteBundle): number => (b.counted ? 0 : b.status === 'verified' ? 1 : 2);
  const plans = new Map<string, SiteBundle>();
  for (const b of bundles) {
    if (!b.ownsPlan || !b.plan || !b.plan_id) continue;
    const hex = hexOf(b.plan_id);
    const current = plans.get(hex);
    if (current === undefined || rank(b) < rank(current)) plans.set(hex, b);
  }
  const otherClaims = new Map<string, SiteBundle[]>();
  for (const b of bundles) {
    if (!b.plan_id) continue;
    const hex = hexOf(b.plan_id);
    if (!plans.has(hex) || plans.get(hex) === b) continue;
    const list = otherClaims.get(hex);
    if (list) list.push(b);
    else otherClaims.set(hex, [b]);
  }
  return { plans, otherClaims };
}

function siteHistory(history: HistoryCheck | undefined): SiteHistory {
  const byPlan = new Map<string, PlanChange[]>();
  for (const change of history?.changes ?? []) {
    const hex = hexOf(change.plan_id);
    const list = byPlan.get(hex);
    if (list) list.push(change);
    else byPlan.set(hex, [change]);
  }
  return {
    byPlan,
    rewritten: (history?.changes ?? []).filter((c) => c.rewritten),
    grown: (history?.changes ?? []).filter((c) => !c.rewritten && c.files.length > 0),
    absent: history?.absent ?? [],
    problems: history?.problems ?? [],
  };
}

async function siteBundle(entry: Report['bundles'][number], result: VerifiedBundle, siteUrl: string, changed: ReadonlySet<string>): Promise<SiteBundle> {
  const v = result.verification;
  const dirHex = hexOf(entry.status === 'verified' && entry.bundle_id ? entry.bundle_id : entry.content_digest);
  const files: SiteFile[] = [];
  const unpublished: string[] = [];
  for (const e of result.entries) {
    if (e.kind === 'directory') continue;
    // The path is only shown (as text); the URL is the digest's, so any readable regular file can be published.
    if (e.kind !== 'file' || e.badName || e.sha256 === null || e.bytes === null) {
      unpublished.push(e.path);
      continue;
    }
    files.push({ path: e.path, url: blobUrl(e.sha256), bytes: e.bytes, sha256: e.sha256 });
  }
  const plan = v.evidence.plan;
  const renderProblems: string[] = [];
  const planFile = files.find((f) => f.path === 'plan.json');
  const rewrittenOnly =
    entry.status === 'invalid' &&
    entry.bundle_id !== null &&
    entry.plan_id !== null &&
    changed.has(`${entry.plan_id} ${entry.bundle_id}`) &&
    entry.findings.every((f) => f.severity !== 'error' || f.code === 'REWRITTEN_EVIDENCE');
  return {
    dirHex,
    manifestUrl: files.some((f) => f.path === 'manifest.json') ? manifestUrl(dirHex) : null,
    listingUrl: listingUrl(dirHex),
    entries: result.entries,
    ownsPlan: entry.status === 'verified' || rewrittenOnly,
    bundle_id: entry.bundle_id,
    plan_id: entry.plan_id,
    content_digest: entry.content_digest,
    status: entry.status,
    counted: entry.counted,
    findings: entry.findings,
    files,
    unpublished,
    plan,
    planUrl: planFile ? planFile.url : null,
    planHtml: plan ? await rendered(() => codeToHtml(JSON.stringify(plan, null, 2), { lang: 'json', theme: 'github-light' }), 'the highlighted plan', renderProblems) : null,
    planCanonical: plan ? canonicalJson(withoutId(plan)) : null,
    manifest: v.evidence.manifest,
    money: plan ? moneyOf(plan, v.evidence.attempts.lines().map((a) => a.attempt)) : null,
    grant: v.evidence.grant === null ? 'none' : entry.findings.some((f) => f.code === 'GRANT_MISMATCH') ? 'mismatch' : 'echoes',
    notesHtml: v.evidence.notes ? await rendered(() => renderNotes(v.evidence.notes!), 'NOTES.md', renderProblems) : null,
    renderProblems,
    imported: plan?.origin?.kind === 'imported' ? importOf(plan, files, v.evidence.ledger, entry.bundle_id, siteUrl) : null,
    sourceDir: result.path,
  };
}

/**
 * The import's facts and its re-run command. The file name in the command is
 * fixed (`original.<ext>`, the extension from the bundle path only when it
 * is .eval or .json), never text from the bundle beyond those checked values;
 * the URL is the original's blob (/blobs/<sha256-hex>).
 */
function importOf(plan: Plan, files: readonly SiteFile[], ledger: readonly { license: string }[], bundleId: string | null, siteUrl: string): SiteImport {
  const origin = plan.origin as { format: string; source: string; tool: { name: string; version: string } };
  const source = files.find((f) => f.sha256 === origin.source) ?? null;
  const ext = source?.path.endsWith('.eval') ? 'eval' : 'json';
  const licenses = [...new Set(ledger.map((t) => t.license))];
  const options = [
    ...(licenses.length === 1 && licenses[0] !== '' ? [`--license ${shellQuote(licenses[0]!)}`] : []),
    ...(plan.grader.id !== 'none' ? [`--scorer ${shellQuote(plan.grader.id)}`] : []),
  ];
  // The version is shown in the command's comment: only a plain semantic version (never a URL, a tag, a newline or shell text).
  const version = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/.test(origin.tool.version) && origin.tool.name === 'ledgerboard' ? origin.tool.version : null;
  // Never `npx ledgerboard@<version>`: the package is not on the registry, and whoever took the name would run code on
  // every visitor who copies the line. The import runs from a checkout of ledgerboard at that version.
  const rerun =
    origin.format === 'inspect-eval-log' && source && version !== null
      ? [
          `curl -s -o original.${ext} ${shellQuote(absolute({ siteUrl }, source.url))}`,
          `# in a checkout of ledgerboard ${version} (npm ci first):`,
          `node bin/ledgerboard.mjs import inspect original.${ext} -o reimported ${options.join(' ')}`.trimEnd(),
          `jq -r .bundle_id reimported/*/manifest.json   # expect ${bundleId ?? '(this bundle has no valid id)'}`,
        ]
      : [];
  return { format: origin.format, tool: origin.tool, source, rerun };
}

/** Single-quotes a value for a POSIX shell. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9._/:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/**
 * Renders one part of a bundle's page; an unexpected error (a bug) leaves that
 * part out and is shown on the page, instead of failing the whole build.
 */
async function rendered(render: () => Promise<string>, what: string, problems: string[]): Promise<string | null> {
  try {
    return await render();
  } catch (error) {
    problems.push(`${what} could not be rendered (internal error: ${error instanceof Error ? error.message : String(error)})`);
    return null;
  }
}

function withoutId(plan: Plan): Record<string, unknown> {
  const { plan_id: _id, ...rest } = plan;
  return rest;
}

function moneyOf(plan: Plan, attempts: readonly { cost: { state: string; micros: number | null } }[]): SiteMoney | null {
  if (plan.budget === null) return null;
  const dispatches = dispatchesOf(plan);
  let spent = 0;
  const counts = { unavailable: 0, partial: 0, not_applicable: 0 };
  for (const { cost } of attempts) {
    if (cost.state === 'complete' || cost.state === 'partial') spent += cost.micros ?? 0;
    if (cost.state === 'unavailable' || cost.state === 'partial' || cost.state === 'not_applicable') counts[cost.state]++;
  }
  return {
    currency: plan.budget.currency,
    aggregate_micros: plan.budget.aggregate_micros,
    dispatches: String(dispatches),
    floor_micros: String(BigInt(plan.budget.aggregate_micros) / dispatches),
    per_attempt_micros: plan.budget.per_attempt_micros,
    spent_micros: spent,
    complete: counts.unavailable === 0 && counts.partial === 0,
    ...counts,
  };
}
