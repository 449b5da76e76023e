/**
 * Re-deriving a published site (FORMAT.md 8): from the site's bytes alone,
 * verify every published bundle again (sections 6 and 9, imports re-run),
 * analyse the counted ones with the config the report carries, and compare
 * the report so made with /report.json byte for byte; then every file the
 * site derives from it (cohort JSON, leaderboard.csv, changes.json, the feed,
 * the cohorts' badges)
 * and the figures its pages print. A difference names the first member that
 * differs, with both values.
 *
 * The very code the build runs does this (verifySnapshot, rederiveImport,
 * buildReport, the site's data texts): verify.mjs is this folder bundled for
 * Node, the in-browser verifier's worker the same for a browser, and
 * `ledgerboard verify-site` runs it from the installed package.
 */
import { canonicalJson, digestBytes, digestCanonical, selfId } from '../json/canonical.ts';
import { checkHistory, type PrefixReader } from '../history/compare.ts';
import { checkRetainedManifest } from '../history/retained-manifests.ts';
import type { RetainedReport } from '../history/retained-reports.ts';
import type { Manifest } from '../schema/manifest.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { Config, importLimitsOf, limitsOf, withScorecard, withTimestampRoots, type LoadedScorecard } from '../config/schema.ts';
import { parseScorecard } from '../schema/scorecard.ts';
import { buildReport } from '../report/build-report.ts';
import { isGrouped, Report } from '../report/schema.ts';
import { statusOf, type Finding } from '../verify/findings.ts';
import type { BundleResult } from '../pipeline/results.ts';
import { VERSION } from '../version.ts';
import { differenceText, reportDifferences } from './compare-report.ts';
import { checkDerivedFiles, derivedModel, readRetainedFromSite } from './derived-files.ts';
import { checkPages } from './pages.ts';
import { checkBadges } from './badges.ts';
import { readSiteFreezeLog } from './freeze-log.ts';
import { fetchBlob, readSiteBundle, SiteProblem, type SiteBundleOptions } from './site-bundles.ts';
import { readSiteRoots } from './timestamp-roots.ts';
import { anchorLines } from './anchor-lines.ts';
import type { RederiveLine, RederiveOptions, RederiveResult, SiteGet } from './types.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

export type { RederiveLine, RederiveOptions, RederiveResult, SiteGet } from './types.ts';

/** The site has no report to re-derive (no /report.json): not a mismatch, a site that cannot be checked. */
export class NoReportError extends LedgerboardError {
  static override readonly code: string = 'SITE_NO_REPORT';
  static override readonly exitStatus = EXIT_STATUS.usage;
}

/** Codes found by comparing with the retained history, which this re-derivation takes as published (see takeHistory). */
const HISTORY_CODES = new Set(['REWRITTEN_EVIDENCE']);

const decoder = new TextDecoder();

/** Re-derives a site's report and everything derived from it (see the module comment). */
export async function rederiveSite(get: SiteGet, options: RederiveOptions & Pick<SiteBundleOptions, 'cannotRunHere' | 'prepareAnchors'> = {}): Promise<RederiveResult> {
  const lines: RederiveLine[] = [];
  const reportBytes = await get('/report.json');
  if (reportBytes === null) throw new NoReportError('the site has no /report.json');
  const parsed = parseStrictJson(reportBytes);
  const schema = parsed.ok ? Report.safeParse(parsed.value) : null;
  const claimed = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value) ? (parsed.value as { generator?: { version?: unknown } }).generator?.version : undefined;
  const version = { rederived: VERSION, report: typeof claimed === 'string' ? claimed : null };
  const finish = (): RederiveResult => ({ lines, mismatches: lines.filter((l) => l.status === 'MISMATCH').length, notRederived, version });
  let notRederived: string[] = [];
  if (schema === null || !schema.success) {
    lines.push({ status: 'MISMATCH', check: 'report', subject: '/report.json', detail: parsed.ok ? 'not a ledgerboard.report.v1 report: nothing can be re-derived' : `not strict JSON (${parsed.error.message})` });
    return finish();
  }
  const published = schema.data;
  // The score card the report was made with: /scorecard.json, whose digest must be the one the report's config names.
  const card = await readSiteScorecard(get, published.config.scorecard);
  if (card.line !== null) lines.push(card.line);
  if (card.refused) return finish();
  const parsedConfig = Config.parse({ ...published.config });
  const carded = card.loaded === null ? parsedConfig : withScorecard(parsedConfig, card.loaded);
  // The time-stamp roots the report's config pins (FORMAT.md 12), each checked against its name: every anchor's `pinned` is re-derived with them.
  const timestamp = await readSiteRoots(get, published.config);
  lines.push(...timestamp.lines);
  const config = carded.timestamp_roots === undefined ? carded : withTimestampRoots(carded, timestamp.roots);
  // The limits the bundles were read and imports re-run under: the report's config carries both (absent: the defaults).
  const limits = limitsOf(config);
  const importLimits = importLimitsOf(config);

  // The bundles to verify again: all, or those pinning a chosen ledger.
  const chosen = options.ledgers;
  const inScope = (b: Report['bundles'][number]) => chosen === undefined || (b.plan !== null && chosen.has(b.plan.ledger.digest));
  const bundles = published.bundles.filter(inScope);
  let bytes = 0;
  const progress = (phase: 'bundles' | 'history' | 'analysis' | 'files' | 'pages', done: number, total: number) => options.onProgress?.({ phase, done, total, bytes });
  const results: BundleResult[] = [];
  const problems: RederiveLine[] = [];
  progress('bundles', 0, bundles.length);
  for (const [i, entry] of bundles.entries()) {
    try {
      const read = await readSiteBundle(get, entry, { limits, importLimits, cannotRunHere: options.cannotRunHere, prepareAnchors: options.prepareAnchors, timestampRoots: timestamp.roots });
      results.push(read.result);
      problems.push(...read.lines);
      // Each token checked again, the report's anchor time against them, and the command a stranger runs with their own root.
      problems.push(...anchorLines(entry, read.anchors, timestamp.roots, options.tokenLocation));
      bytes += read.fetched;
    } catch (error) {
      if (!(error instanceof SiteProblem)) throw error;
      problems.push({ status: 'MISMATCH', check: 'bundle', subject: error.subject, detail: `${error.message}: it cannot be verified again` });
    }
    progress('bundles', i + 1, bundles.length);
  }
  progress('history', 0, 1);
  // The history the build compared with: the retained reports and manifests /history.json lists (FORMAT.md 8).
  const history = await readSiteHistory(get);
  if (history.problem !== null) lines.push({ status: 'MISMATCH', check: 'history', subject: '/history.json', detail: history.problem });
  let withHistory = results;
  if (history.manifests === null) {
    const taken = takeHistory(results, published);
    withHistory = results;
    problems.push({ status: 'info', check: 'history', subject: '/history.json', detail: history.listed ? 'lists no retained manifests (a site built before they were published): the append-only check is not re-derived' : 'not published (a site built before it existed): the append-only check is not re-derived' });
    if (taken > 0) problems.push({ status: 'info', check: 'history', subject: '/history.json', detail: `${taken} REWRITTEN_EVIDENCE finding(s) taken from the report as published` });
  } else {
    const checked = await checkHistory(results, { byBundle: history.manifests, problems: [] }, history.reports, sitePrefix(get));
    withHistory = checked.results;
    if (checked.changes.length > 0 || history.manifests.size > 0) {
      problems.push({ status: 'ok', check: 'history', subject: '/history.json', detail: `the append-only check re-run against ${history.manifests.size} retained manifests and ${history.reports.length} retained reports: ${checked.changes.filter((c) => c.rewritten).length} rewritten, ${checked.changes.filter((c) => !c.rewritten).length} grown or unchanged` });
    }
  }
  progress('history', 1, 1);
  // The freeze log the site publishes, checked against the retained copies it lists (freeze-log.ts): the report's freeze_log.
  const freezeLog = await readSiteFreezeLog(get);
  problems.push(...freezeLog.lines);
  progress('analysis', 0, 1);
  const made = buildReport(withHistory, config, undefined, freezeLog.input);
  // Another version's report names that version: compared as if this one had written its name (the analysis is what must agree).
  const rederived = version.report !== null && version.report !== VERSION ? renamed(made, published.generator) : made;
  progress('analysis', 1, 1);

  // The report itself: byte for byte in full, the chosen ledgers' parts otherwise.
  if (chosen === undefined) {
    const text = `${canonicalJson(rederived)}\n`;
    const same = text === decoder.decode(reportBytes);
    if (same) {
      const counted = rederived.bundles.filter((b) => b.counted).length;
      lines.push({ status: 'ok', check: 'report', subject: '/report.json', detail: `re-derived from the evidence, byte for byte: ${rederived.bundles.length} bundles verified again (${counted} counted), ${rederived.boards.length} boards, ${rederived.cohorts.length} cohorts, every verdict, rate, interval, pair${card.loaded === null ? ' and rank range' : ', rank range and claim'}` });
    } else lines.push(...mismatchLines(published, rederived, text));
  } else {
    const part = (r: Report) => restrict(r, chosen);
    const differences = reportDifferences(part(published), part(rederived));
    if (differences.length === 0) lines.push({ status: 'ok', check: 'report', subject: '/report.json', detail: `the chosen boards re-derive from the evidence: ${part(rederived).bundles.length} bundles, ${part(rederived).boards.length} boards, ${part(rederived).cohorts.length} cohorts` });
    for (const d of differences) lines.push({ status: 'MISMATCH', check: 'report', subject: '/report.json', detail: differenceText(d) });
    notRederived = published.boards.filter((b) => !chosen.has(b.ledger.digest)).map((b) => b.board_id);
    if (notRederived.length > 0) lines.push({ status: 'info', check: 'report', subject: '/report.json', detail: `${notRederived.length} board(s) not re-derived (not chosen): ${notRederived.map((id) => id.slice(0, 19)).join(', ')}` });
  }
  lines.push(...problems);

  // What the site derives from the report, made again from the re-derived one.
  if (chosen === undefined) {
    progress('files', 0, 1);
    lines.push(...(await checkDerivedFiles(get, derivedModel(rederived, history.reports))));
    lines.push(...(await checkBadges(get, rederived, published.report_id)));
    progress('files', 1, 1);
  } else lines.push({ status: 'info', check: 'files', subject: '/', detail: 'leaderboard.csv, changes.json, the feed and the badges (which name the report id) span every board: compared only when every board is re-derived' });
  lines.push(...(await checkPages(get, rederived, chosen, (done, total) => progress('pages', done, total))));

  if (version.report !== null && version.report !== VERSION) {
    lines.push({ status: 'info', check: 'version', subject: '/report.json', detail: `the report was made by ledgerboard ${version.report}; re-derived by ledgerboard ${VERSION}` });
  }
  return finish();
}

/**
 * The site's /scorecard.json checked against the digest the report's config
 * names (FORMAT.md 11.3): the card to re-derive the claims with. Refused
 * (a MISMATCH, nothing re-derived) when the report names a card and the site
 * serves none, one that is not a valid card, or one of another digest: the
 * claims could not be checked against the card they were made with. A card
 * served beside a report that names none is a MISMATCH too (the site shows
 * a card its claims were not made with), but the report is still re-derived.
 */
async function readSiteScorecard(get: SiteGet, digest: string | undefined): Promise<{ loaded: LoadedScorecard | null; line: RederiveLine | null; refused: boolean }> {
  const bytes = await get('/scorecard.json');
  const refuse = (detail: string) => ({ loaded: null, refused: true, line: { status: 'MISMATCH', check: 'scorecard', subject: '/scorecard.json', detail } as RederiveLine });
  if (digest === undefined) {
    if (bytes === null) return { loaded: null, refused: false, line: null };
    return { loaded: null, refused: false, line: { status: 'MISMATCH', check: 'scorecard', subject: '/scorecard.json', detail: "served, but the report's config names no score card: its cohorts carry no claims" } };
  }
  if (bytes === null) return refuse(`not published, but the report's config names the score card ${digest}: the claims cannot be re-derived, so nothing is`);
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return refuse(`not strict JSON (${parsed.error.message}): the report's config names the score card ${digest}; nothing is re-derived`);
  const served = digestCanonical(parsed.value);
  if (served !== digest) return refuse(`its digest is ${served}, but the report's config names the score card ${digest}: the claims were not made with this card, so nothing is re-derived`);
  const checked = parseScorecard(parsed.value);
  if (!checked.ok) return refuse(`not a valid score card (${checked.problems.slice(0, 3).join('; ')}): nothing is re-derived`);
  return { loaded: { card: checked.card, bytes, digest, file: '/scorecard.json' }, refused: false, line: { status: 'ok', check: 'scorecard', subject: '/scorecard.json', detail: `the score card the report's config names (${digest}): every claim is re-derived with it` } };
}

/** /history.json read back: the retained reports (read and checked as the build reads them) and manifests it lists. */
async function readSiteHistory(get: SiteGet): Promise<{ reports: RetainedReport[]; manifests: Map<string, Manifest> | null; listed: boolean; problem: string | null }> {
  const bytes = await get('/history.json');
  if (bytes === null) return { reports: [], manifests: null, listed: false, problem: null };
  const parsed = parseStrictJson(bytes);
  const value = parsed.ok ? (parsed.value as { reports?: unknown; manifests?: unknown }) : null;
  const hexList = (v: unknown): v is string[] => Array.isArray(v) && v.every((h) => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h));
  if (value === null || typeof value !== 'object' || !hexList(value.reports) || (value.manifests !== undefined && !hexList(value.manifests))) {
    return { reports: [], manifests: null, listed: true, problem: 'not {"schema": "ledgerboard.history.v1", "reports": [<hex>, ...], "manifests": [<hex>, ...]}' };
  }
  const reports = await readRetainedFromSite(get, value.reports);
  if (value.manifests === undefined) return { reports, manifests: null, listed: true, problem: null };
  const manifests = new Map<string, Manifest>();
  const problems: string[] = [];
  for (const hex of value.manifests) {
    const file = await get(`/reports/manifests/${hex}.json`);
    const checked = file === null ? null : checkRetainedManifest(hex, file);
    if (checked?.manifest) manifests.set(checked.manifest.bundle_id, checked.manifest);
    else problems.push(`/reports/manifests/${hex}.json ${checked === null ? 'is listed but not published' : checked.problem}`);
  }
  return { reports, manifests, listed: true, problem: problems.length > 0 ? problems.slice(0, 3).join('; ') : null };
}

/** The append-only check's prefix reader over the site's blobs: the verified bytes, re-hashed, and the digest of their first `bytes`. */
function sitePrefix(get: SiteGet): PrefixReader {
  return async (_result, _path, bytes, expected) => {
    const blob = await fetchBlob(get, expected.sha256, expected.bytes).catch(() => null);
    if (blob === null || bytes > blob.length) return null;
    return digestBytes(blob.subarray(0, bytes));
  };
}

/** The report as another generator would have named itself in it (its id re-derived). */
function renamed(report: Report, generator: Report['generator']): Report {
  const { report_id: _id, ...rest } = { ...report, generator };
  const { schema, ...others } = rest;
  return { schema, report_id: selfId(rest as Record<string, unknown>, 'report_id'), ...others } as Report;
}

/** The MISMATCH lines of a report that does not re-derive: each differing member, or the bytes when only they differ. */
function mismatchLines(published: Report, rederived: Report, text: string): RederiveLine[] {
  const differences = reportDifferences(published, rederived);
  if (differences.length === 0) {
    return [{ status: 'MISMATCH', check: 'report', subject: '/report.json', detail: `the same members as the re-derived report, but not its bytes (RFC 8785 plus a newline, ${text.length} characters)` }];
  }
  return differences.map((d) => ({ status: 'MISMATCH', check: 'report', subject: '/report.json', detail: differenceText(d) }));
}

/**
 * The history-stage findings of the published report, added to the
 * re-derived verification of the same bundle: the append-only check
 * compares with retained manifests this site does not publish, so it is
 * taken as published (docs/threat-model.md says so). Returns how many.
 */
function takeHistory(results: BundleResult[], published: Report): number {
  const byKey = new Map(published.bundles.map((b) => [b.content_digest, b]));
  let taken = 0;
  for (const [i, result] of results.entries()) {
    const entry = byKey.get(result.content_digest);
    const history = (entry?.findings ?? []).filter((f) => HISTORY_CODES.has(f.code)) as Finding[];
    if (history.length === 0 || result.verification.status !== 'verified') continue;
    const findings = [...result.verification.findings, ...history.map((f) => ({ ...f }))];
    results[i] = { ...result, verification: { ...result.verification, findings, status: statusOf(findings) } };
    taken += history.length;
  }
  return taken;
}

/** The parts of a report that concern the chosen ledgers: their bundles, boards, cohorts and incompatibilities. */
function restrict(report: Report, ledgers: ReadonlySet<string>): Report {
  const boards = report.boards.filter((b) => ledgers.has(b.ledger.digest));
  const boardIds = new Set(boards.map((b) => b.board_id));
  return {
    ...report,
    bundles: report.bundles.filter((b) => b.plan !== null && ledgers.has(b.plan.ledger.digest)),
    boards,
    cohorts: report.cohorts.filter((c) => boardIds.has(c.board_id)),
    // A published report of the shape before issue 25 (pairs) is restricted as it was; it differs from any report made now.
    incompatibilities: isGrouped(report.incompatibilities)
      ? { by_ledger: report.incompatibilities.by_ledger.filter((i) => ledgers.has(i.ledger_digest)), by_name: [] }
      : { cohorts: report.incompatibilities.cohorts.filter((i) => boardIds.has(i.board_a)), ledgers: [] },
    // The plans of the chosen ledgers (whose bundles are all re-derived, so each `published` is too).
    ...(report.freeze_log === null || report.freeze_log === undefined ? {} : { freeze_log: { ...report.freeze_log, plans: report.freeze_log.plans.filter((p) => ledgers.has(p.ledger_digest)) } }),
    conflicts: [],
    excluded_by_grading_pin: [],
    inputs_digest: '',
    evidence_date: null,
    report_id: '',
  } as Report;
}
