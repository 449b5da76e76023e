/**
 * The site model: everything the Astro pages render, as plain data (JSON
 * round-trips it exactly), built once per build from the report and what
 * the build publishes (publish.ts: every bundle's files and the bytes of its
 * blobs), never from the verifier's or the pipeline's objects
 * (docs/architecture.md). It reaches the pages as the module
 * `virtual:ledgerboard/site-model` (render.ts); pages read it through
 * view.ts and compute nothing. Every URL here comes from a digest, never
 * from text in a bundle (docs/site.md): evidence bytes are linked at
 * /blobs/<sha256-hex> (publish.ts).
 */
import { canonicalJson } from '../../json/canonical.ts';
import { parseStrictJson } from '../../json/strict-json.ts';
import type { Report } from '../../report/schema.ts';
import type { SiteBundle, SiteImport, SiteModel, SiteModelOptions, SitePlanPage, SiteHistory, SiteRetainedWithheld } from './model-types.ts';
import type { RetainedWithheld } from '../../history/retained-withheld.ts';
import { boardsInOrder } from '../../report/board-order.ts';
import type { Plan } from '../../schema/index.ts';
import { basePathOf, scorecardOf, type Config } from '../../config/schema.ts';
import { hexOf } from '../views/format.ts';
import { MAX_ROWS } from '../views/rows.ts';
import { renderNotes, startNotesRenderer } from '../views/notes.ts';
import { highlightJson } from '../views/highlight.ts';
import { costChart, rateChart, timeChart, type DatedReport, type PlanTally } from '../charts/charts.ts';
import { planTallies } from './plan-rates.ts';
import type { PlanChange } from '../../history/compare.ts';
import type { Published, PublishedBundle, SiteFile } from './published.ts';
import { absolute, cohortMap } from './view.ts';
import { siteCompare } from './compare.ts';
import type { CohortMoney, SiteFacts } from '../../facts/index.ts';
import { cohortsMoney } from '../../facts/money.ts';
import { COMPARE_MAX_COHORTS } from '../views/compare-paths.ts';
import { siteTasks } from './tasks.ts';
import { taskMatrix } from './chart-tasks.ts';
import { isPlainPath } from '../../import/input-shape.ts';
import { evidenceSize } from './rederive-limit.ts';
import { reportImportLimits, siteSource } from './originals.ts';
import type { ImportedSource } from '../../import/sources.ts';
import type { ImportLimits } from '../../import/limits.ts';
import { shellQuote } from '../views/shell-quote.ts';
import { rateRuleOf, sourceLineOf, type BundleOutcomes } from './imported-facts.ts';
import { importSplits } from './import-splits.ts';
import { siteAssessments, siteScorecard } from './claims-model.ts';
import { siteSubjects } from './models.ts';
import { anchorCount, firstAttemptStart, planAnchor, type FirstAttempt } from './anchors.ts';
import { siteFreezeLog } from './freeze-log.ts';

export type * from './model-types.ts';

/** Builds the site model from the report and what the build publishes (publish.ts publishedOf). */
export async function buildSiteModel(
  report: Report,
  published: Published,
  config: Pick<Config, 'title' | 'site_url'> & Partial<Pick<Config, 'compare_max_cohorts' | 'scorecard'>>,
  options: SiteModelOptions,
): Promise<SiteModel> {
  // What the pages show that takes work (compare pages, money, the verified plans, the attempt index) was computed
  // below the site, beside the report (src/facts: computeSiteFacts, which the pipeline runs for build); the site
  // never computes it, so a model without the facts is a bug.
  if (options?.facts === undefined) throw new Error('the site model is built from the site facts (src/facts computeSiteFacts), and none were given');
  const retained = options.retained ?? { reports: [], ignored: [] };
  // With a base path the URL names a directory: "https://user.github.io/board" is "https://user.github.io/board/".
  const siteUrl = new URL(basePathOf(config), config.site_url).href;
  if (published.bundles.length !== report.bundles.length) throw new Error('the published bundles are not the report\'s');
  const changed = new Set((options.history?.changes ?? []).map((c) => `${c.plan_id} ${c.bundle_id}`));
  const bundles = report.bundles.map((entry, i) => siteBundle(entry, i, published.bundles[i]!, changed));
  const { plans, otherClaims } = planPages(bundles, report);
  const cap = config.compare_max_cohorts ?? COMPARE_MAX_COHORTS;
  const facts = options.facts;
  checkFacts(facts, report, cap);
  const shown = Object.values(plans).map((i) => bundles[i]!);
  if (shown.some((b) => published.bundles[b.report]!.files.some((f) => f.path === 'NOTES.md'))) startNotesRenderer();
  const limits = reportImportLimits(report);
  for (const b of shown) b.page = await planPage(b, report.bundles[b.report]!, published, siteUrl, limits, facts, report.freeze_log);
  const cohorts = cohortMap(report.cohorts);
  const boardIndex = new Map(report.boards.map((b, i) => [b.board_id, i]));
  // The task pages render the attempt index computed below the site (src/facts/attempt-index.ts); without it (a caller
  // that holds no evidence) the boards list no task.
  const computed = options.tasks === undefined && facts.attemptIndex !== undefined ? await siteTasks(report, published, facts.attemptIndex) : null;
  const boardTasks = options.tasks ?? computed?.boards ?? {};
  const transcripts = options.transcripts ?? computed?.transcripts.pages ?? [];
  const outcomes = options.outcomes ?? computed?.outcomes ?? {};
  // The card the claims came from (its digest is the report config's), and who assessed the assessed ones (FORMAT.md 11).
  const scorecard = siteScorecard(report, config.scorecard === undefined ? null : scorecardOf(config as Config)!.bytes);
  const boardOrder = boardsInOrder(report).map((b) => boardIndex.get(b.board_id)!);
  return {
    title: config.title,
    siteUrl,
    // Plain data: the config's own members only (an in-memory config may carry its loaded score card under a symbol,
    // which JSON leaves out and a model read back would not have).
    report: { ...report, config: Object.fromEntries(Object.entries(report.config)) as Report['config'] },
    boardOrder,
    cohortIndex: Object.fromEntries(report.cohorts.map((c, i) => [c.cohort_id, i])),
    bundles,
    plans,
    otherClaims,
    cohortMoney: facts.cohortMoney,
    charts: chartsOf(report, cohorts, facts.cohortMoney, retained.reports, facts.attemptIndex === undefined ? new Map() : planTallies(report, facts.attemptIndex)),
    compare: siteCompare(report.boards, cohorts, facts.compare),
    tasks: Object.fromEntries(report.boards.map((b) => [b.board_id, { tasks: boardTasks[b.board_id]?.tasks ?? [], matrix: taskMatrix(b, boardTasks[b.board_id]?.tasks ?? []) }])),
    transcripts,
    sourceLines: sourceLinesOf(report, bundles, plans, outcomes),
    splits: await importSplits(report, bundles, plans, published, limits),
    // A retained report's rows read its cohorts' money facts as the current report's do (src/facts/money.ts, the same function).
    retained: retained.reports.map((r) => ({
      hex: r.hex,
      report: r.report,
      problems: r.problems,
      cohortMoney: r.report === null ? [] : cohortsMoney(r.report),
      withheld: retainedWithheld(options.retainedWithheld?.[r.hex], published),
    })),
    retainedIgnored: retained.ignored,
    date: report.evidence_date ?? options.sourceDate ?? null,
    history: siteHistory(options.history),
    signatures: options.signatures ?? {},
    withheldCount: published.bundles.reduce((n, b) => n + b.withheld.length, 0),
    verifiers: options.verifiers ?? [],
    evidence: evidenceSize(published.bundles.map((b, i) => ({ ledger: report.bundles[i]!.plan?.ledger.digest ?? null, files: b.files }))),
    scorecard,
    assessments: await siteAssessments(report, scorecard, published, options.assessments),
    subjects: siteSubjects(report, boardOrder),
    // Anchored freezes and the freeze log (FORMAT.md 12, issue 30): the leaderboard's count and /freeze-log/.
    anchors: anchorCount(report),
    freezeLog: siteFreezeLog(report, plans),
  };
}

/** The facts are this report's, computed under this site's cap (anything else is a bug: the build stops). */
function checkFacts(facts: SiteFacts, report: Report, cap: number): void {
  if (facts.report_id !== report.report_id) throw new Error(`the site facts are of report ${facts.report_id}, not of ${report.report_id}`);
  if (facts.money.length !== report.bundles.length) throw new Error(`the site facts hold the money of ${facts.money.length} bundles, the report ${report.bundles.length}`);
  if (facts.cohortMoney.length !== report.cohorts.length) throw new Error(`the site facts hold the money of ${facts.cohortMoney.length} cohorts, the report ${report.cohorts.length}`);
  for (const [board, f] of Object.entries(facts.compare)) if (f.cap !== cap) throw new Error(`the compare facts of board ${board} were computed under compare_max_cohorts ${f.cap}, the config says ${cap}`);
}

/**
 * The one line of each imported bundle whose headline differs from the
 * source's own figure, by the cohorts that pool it (computed once per bundle:
 * its plan page's figure and its outcome counts).
 */
function sourceLinesOf(report: Report, bundles: readonly SiteBundle[], plans: Record<string, number>, outcomes: Record<string, BundleOutcomes>): SiteModel['sourceLines'] {
  const lines = new Map<string, string | null>();
  const out: SiteModel['sourceLines'] = {};
  for (const cohort of report.cohorts) {
    for (const p of cohort.plans) {
      const hex = hexOf(p.plan_id);
      const i = plans[hex];
      const b = i === undefined ? undefined : bundles[i];
      const imported = b?.page?.imported;
      if (b === undefined || imported === null || imported === undefined || !b.counted || b.bundle_id === null) continue;
      if (!lines.has(b.bundle_id)) lines.set(b.bundle_id, sourceLineOf(imported.unread === undefined ? imported.logMetrics : null, outcomes[b.bundle_id]));
      const text = lines.get(b.bundle_id)!;
      if (text !== null) (out[cohort.cohort_id] ??= []).push({ plan_hex: hex, text });
    }
  }
  return out;
}

/**
 * What became of the files a retained report withheld (retain's record): a
 * digest this site publishes now is revealed; one it still withholds is
 * withheld; one in no bundle it publishes is absent. Null: not recorded.
 */
function retainedWithheld(entry: { record: RetainedWithheld | null; problem: string | null } | undefined, published: Published): SiteRetainedWithheld | null {
  if (entry === undefined || (entry.record === null && entry.problem === null)) return null;
  const open = new Set(published.bundles.flatMap((b) => b.files.map((f) => f.sha256)));
  const held = new Set(published.bundles.flatMap((b) => b.withheld.map((f) => f.sha256)));
  const files = (entry.record?.files ?? []).map((f) => ({ ...f, now: open.has(f.sha256) ? ('revealed' as const) : held.has(f.sha256) ? ('withheld' as const) : ('absent' as const) }));
  const count = (now: string) => files.filter((f) => f.now === now).length;
  return { problem: entry.problem, files: files.slice(0, MAX_ROWS), count: files.length, revealed: count('revealed'), still: count('withheld'), absent: count('absent') };
}

/**
 * Each board's charts; the over-time chart reads the retained reports whose id re-derives (oldest evidence first), then
 * this one, then the current evidence per plan (plan-rates.ts; none without the attempt index).
 */
function chartsOf(
  report: Report,
  cohorts: ReturnType<typeof cohortMap>,
  cohortMoney: readonly CohortMoney[],
  retained: NonNullable<SiteModelOptions['retained']>['reports'],
  tallies: ReadonlyMap<string, readonly PlanTally[]>,
): SiteModel['charts'] {
  const dated: DatedReport[] = [...retained.flatMap((r) => (r.report !== null && r.problems.length === 0 ? [r.report] : [])), report];
  const money = new Map(report.cohorts.map((c, i) => [c.cohort_id, cohortMoney[i]!]));
  return Object.fromEntries(report.boards.map((b) => [b.board_id, { rate: rateChart(b, cohorts), cost: costChart(b, cohorts, money), time: timeChart(b, cohorts, dated, tallies) }]));
}

/**
 * Which bundle each plan page shows (see SiteModel.plans), and the other
 * bundles claiming each plan. A bundle can show a plan when it owns it and
 * the report read its plan.
 */
export function planPages(bundles: readonly SiteBundle[], report: Pick<Report, 'bundles'>): { plans: Record<string, number>; otherClaims: Record<string, number[]> } {
  const rank = (b: SiteBundle): number => (b.counted ? 0 : b.status === 'verified' ? 1 : 2);
  const plans = new Map<string, number>();
  bundles.forEach((b, i) => {
    if (!b.ownsPlan || !b.plan_id || report.bundles[b.report]!.plan === null) return;
    const hex = hexOf(b.plan_id);
    const current = plans.get(hex);
    if (current === undefined || rank(b) < rank(bundles[current]!)) plans.set(hex, i);
  });
  const otherClaims = new Map<string, number[]>();
  bundles.forEach((b, i) => {
    if (!b.plan_id) return;
    const hex = hexOf(b.plan_id);
    if (!plans.has(hex) || plans.get(hex) === i) return;
    const list = otherClaims.get(hex);
    if (list) list.push(i);
    else otherClaims.set(hex, [i]);
  });
  return { plans: Object.fromEntries(plans), otherClaims: Object.fromEntries(otherClaims) };
}

function siteHistory(history: SiteModelOptions['history']): SiteHistory {
  const byPlan = new Map<string, PlanChange[]>();
  for (const change of history?.changes ?? []) {
    const hex = hexOf(change.plan_id);
    const list = byPlan.get(hex);
    if (list) list.push(change);
    else byPlan.set(hex, [change]);
  }
  return {
    byPlan: Object.fromEntries(byPlan),
    rewritten: (history?.changes ?? []).filter((c) => c.rewritten),
    grown: (history?.changes ?? []).filter((c) => !c.rewritten && c.files.length > 0),
    absent: history?.absent ?? [],
    problems: history?.problems ?? [],
  };
}

function siteBundle(entry: Report['bundles'][number], index: number, published: PublishedBundle, changed: ReadonlySet<string>): SiteBundle {
  if (published.content_digest !== entry.content_digest) throw new Error(`the published bundle ${published.content_digest} is not the report's ${entry.content_digest}`);
  const rewrittenOnly =
    entry.status === 'invalid' &&
    entry.bundle_id !== null &&
    entry.plan_id !== null &&
    changed.has(`${entry.plan_id} ${entry.bundle_id}`) &&
    entry.findings.every((f) => f.severity !== 'error' || f.code === 'REWRITTEN_EVIDENCE');
  return {
    report: index,
    dirHex: published.dirHex,
    manifestUrl: published.manifestUrl,
    listingUrl: published.listingUrl,
    entries: published.entries.length,
    bundle_id: entry.bundle_id,
    plan_id: entry.plan_id,
    content_digest: entry.content_digest,
    status: entry.status,
    counted: entry.counted,
    // No page lists more than MAX_ROWS of a list: the model holds as many, and the length (rows.ts firstOf).
    files: published.files.slice(0, MAX_ROWS),
    fileCount: published.files.length,
    unpublished: published.unpublished.slice(0, MAX_ROWS),
    unpublishedCount: published.unpublished.length,
    withheld: published.withheld.slice(0, MAX_ROWS),
    withheldCount: published.withheld.length,
    ownsPlan: entry.status === 'verified' || rewrittenOnly,
    page: null,
  };
}

/**
 * The parts of a plan page: the plan as verification parsed it (the
 * verified evidence's, in the site facts), highlighted and canonical; the
 * notes from their published bytes; the money from the facts; the import's
 * facts. The bundle verified on its own, so its evidence holds its plan;
 * anything else is a bug, and the build fails: the published plan.json is
 * never parsed again (its bytes are published as they are).
 */
async function planPage(
  b: SiteBundle,
  entry: Report['bundles'][number],
  published: Published,
  siteUrl: string,
  limits: ImportLimits,
  facts: SiteFacts,
  freezeLog: Report['freeze_log'],
): Promise<SitePlanPage> {
  // Every published file of the bundle (the model holds the first MAX_ROWS).
  const files = published.bundles[b.report]!.files;
  const planFile = files.find((f) => f.path === 'plan.json');
  if (!planFile) throw new Error(`bundle ${b.content_digest} verified without a published plan.json`);
  if (!Object.hasOwn(facts.plans, b.content_digest)) throw new Error(`bundle ${b.content_digest} verified without a plan in its site facts (its evidence)`);
  const plan = facts.plans[b.content_digest]!;
  const renderProblems: string[] = [];
  const notesFile = files.find((f) => f.path === 'NOTES.md');
  const notes = notesFile ? await published.blob(notesFile.sha256) : null;
  const planHtml = await rendered(() => highlightJson(JSON.stringify(plan, null, 2)), 'the highlighted plan', renderProblems);
  // An imported bundle's source, read through the importers' read side (src/import/sources.ts, site/originals.ts).
  const source = plan.origin?.kind === 'imported' ? siteSource(plan.origin, published.bundles[b.report]!, published, limits) : null;
  const imported =
    source !== null
      ? {
          ...importOf(plan, source, files, published.bundles[b.report]!.withheld.length > 0, await licensesOf(files, published), entry, siteUrl),
          ...(await logMetricsOf(plan, source)),
        }
      : null;
  return {
    plan,
    planUrl: planFile.url,
    planHtml,
    planCanonical: canonicalJson(withoutId(plan)),
    money: moneyOf(facts, b.report, renderProblems),
    grant: !files.some((f) => f.path === 'grant.json') ? 'none' : entry.findings.some((f) => f.code === 'GRANT_MISMATCH') ? 'mismatch' : 'echoes',
    notesHtml: notes ? await rendered(() => renderNotes(notes), 'NOTES.md', renderProblems) : null,
    renderProblems,
    imported,
    anchor: planAnchor(
      entry,
      { created_at: plan.created_at, imported: plan.origin?.kind === 'imported' },
      { published: files, withheld: published.bundles[b.report]!.withheld },
      entry.anchor ? await firstAttemptOf(published.bundles[b.report]!, published) : null,
      freezeLog,
    ),
  };
}

/**
 * When the bundle's first attempt started (FORMAT.md 12: the earliest
 * started_at), for an anchored plan's page: read from the published
 * attempts.jsonl (it verified); withheld when its bytes are not published
 * (the page says so, and never reads them); no attempt without the file.
 */
async function firstAttemptOf(bundle: PublishedBundle, published: Published): Promise<FirstAttempt> {
  const file = bundle.files.find((f) => f.path === 'attempts.jsonl');
  if (file === undefined) return bundle.withheld.some((w) => w.path === 'attempts.jsonl') ? 'withheld' : { time: null };
  return { time: firstAttemptStart(await published.blob(file.sha256)) };
}

/** A published JSON file's value (strict JSON: it verified). */
function parsedJson(bytes: Uint8Array): unknown {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) throw new Error(`a verified file is not JSON: ${parsed.error.message}`);
  return parsed.value;
}

/** The licenses of the published ledger.jsonl's tasks (it verified: one task record a line). */
async function licensesOf(files: readonly SiteFile[], published: Published): Promise<string[]> {
  const file = files.find((f) => f.path === 'ledger.jsonl');
  if (!file) return [];
  const text = new TextDecoder('utf-8').decode(await published.blob(file.sha256));
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (parsedJson(new TextEncoder().encode(line)) as { license: string }).license);
}

/** A plan page's money, from the facts (src/facts/money.ts); a problem the page lists when the report cannot give it. */
function moneyOf(facts: SiteFacts, index: number, problems: string[]): SitePlanPage['money'] {
  const { money, problem } = facts.money[index]!;
  if (problem !== null) problems.push(problem);
  return money;
}

/** The most metrics of an imported source a plan page shows. */
const MAX_LOG_METRICS = 20;

/** The original files of an imported bundle as published: its files under `source/`, in path order. */
function sourceFiles(files: readonly SiteFile[]): SiteFile[] {
  return files.filter((f) => f.path.startsWith('source/'));
}

/**
 * An imported source's own metrics of the graded score (issue 15: the reader
 * sees any gap between the source's figure and the imported rate), read by
 * the importers' read side (src/import/sources.ts) from the originals'
 * published bytes within the report's import limits: `logMetrics` null for a
 * format that reports none or no scorer; `unread` the page's sentence when a
 * limit kept the originals unread (neither the figure nor the transcripts);
 * `figureUnreadable` the reason when the source cannot be read (withheld,
 * not kept, not the format). A bug in a reader fails the build.
 */
async function logMetricsOf(plan: Plan, source: ImportedSource): Promise<Pick<SiteImport, 'logMetrics' | 'unread' | 'figureUnreadable'>> {
  // A format that reads nothing back from its originals has no figure to show, and nothing unread to say.
  if (source.label !== null && !source.reportsFigure && !source.recordsTranscripts) return { logMetrics: null };
  const figure = await source.ownFigure(plan.grader.id);
  if (figure.ok) return { logMetrics: figure.value === null ? null : figure.value.slice(0, MAX_LOG_METRICS) };
  // Past a limit, neither the figure nor the transcripts (transcripts.ts) are read: the page says so either way.
  if (figure.cause === 'limit') return { logMetrics: null, unread: figure.unreadable };
  return { logMetrics: null, figureUnreadable: figure.unreadable };
}

/**
 * The import's facts and its re-run command. File names in the command are
 * fixed (`original.<ext>`, the extension from the bundle path only when it is
 * 1-8 letters or digits) or, for a directory import, the originals' relative
 * paths under `source/` when every one is plain (input.ts: what every shell
 * takes as is); anything else, or a withheld original, gives no command. URLs
 * are the originals' blobs (/blobs/<sha256-hex>).
 */
function importOf(
  plan: Plan,
  importer: ImportedSource,
  files: readonly SiteFile[],
  someWithheld: boolean,
  licenses: readonly string[],
  entry: Pick<Report['bundles'][number], 'bundle_id' | 'status' | 'findings'>,
  siteUrl: string,
): Omit<SiteImport, 'logMetrics' | 'unread' | 'figureUnreadable'> {
  const bundleId = entry.bundle_id;
  const origin = plan.origin as { format: string; source: string; tool: { name: string; version: string } };
  const known = importer.name !== null;
  const source = files.find((f) => f.sha256 === origin.source) ?? null;
  const distinct = [...new Set(licenses)];
  const options = [
    ...(distinct.length === 1 && distinct[0] !== '' ? [`--license ${shellQuote(distinct[0]!)}`] : []),
    ...importer.rerunFlags(plan).map((args) => args.map(shellQuote).join(' ')),
  ];
  // The version is shown in the command's comment: only a plain semantic version (never a URL, a tag, a newline or shell text).
  const version = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/.test(origin.tool.version) && origin.tool.name === 'ledgerboard' ? origin.tool.version : null;
  const fetch = ((): { lines: string[]; input: string } | null => {
    if (!known || source === null) return null;
    if (importer.input === 'file') {
      const ext = /\.([A-Za-z0-9]{1,8})$/.exec(source.path)?.[1];
      const name = ext === undefined ? 'original' : `original.${ext}`;
      return { lines: [`curl -s -o ${name} ${shellQuote(absolute({ siteUrl }, source.url))}`], input: name };
    }
    const originals = sourceFiles(files);
    if (someWithheld || !originals.every((f) => isPlainPath(f.path.slice('source/'.length)))) return null;
    return {
      lines: originals.map((f) => `curl -s --create-dirs -o ${shellQuote(`original/${f.path.slice('source/'.length)}`)} ${shellQuote(absolute({ siteUrl }, f.url))}`),
      input: 'original',
    };
  })();
  // Never `npx ledgerboard@<version>`: the package is not on the registry, and whoever took the name would run code on
  // every visitor who copies the line. The import runs from a checkout of ledgerboard at that version.
  const rerun =
    fetch !== null && version !== null
      ? [
          ...fetch.lines,
          `# in a checkout of ledgerboard ${version} (npm ci first):`,
          `node bin/ledgerboard.mjs import ${importer!.name} ${fetch.input} -o reimported ${options.join(' ')}`.trimEnd(),
          `jq -r .bundle_id reimported/*/manifest.json   # expect ${bundleId ?? '(this bundle has no valid id)'}`,
        ]
      : [];
  return { format: origin.format, label: importer.label, tool: origin.tool, source, rerun, rederived: rederivedOf(entry), rateRule: rateRuleOf(known ? importer : undefined, origin.format, plan) };
}

/** Whether the import was re-derived, from the report's findings alone (see SiteImport.rederived). */
function rederivedOf(entry: Pick<Report['bundles'][number], 'status' | 'findings'>): SiteImport['rederived'] {
  if (entry.findings.some((f) => f.code === 'IMPORT_MISMATCH')) return 'mismatch';
  if (entry.findings.some((f) => f.code === 'IMPORT_NOT_REPRODUCED')) return 'not_reproduced';
  return entry.status === 'verified' ? 'matched' : 'unverified';
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

