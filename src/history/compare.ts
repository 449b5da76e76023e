/**
 * The append-only check (issue "Trust under attack", point 7; FORMAT.md
 * section 8): every verified bundle whose plan a retained report counted
 * under another bundle_id is compared file by file with the retained
 * manifest. Removed or rewritten files become REWRITTEN_EVIDENCE findings on
 * the new bundle (an error: it is published with them and never counted), so
 * the report and every page show them; the retained report keeps its own
 * numbers at its own URL. Retained plans with no bundle at all any more are
 * listed too.
 *
 * The check needs history, so it runs in `report`, `build` and `retain`
 * (which read the retained reports directory), not in `verify`, which looks at
 * one bundle alone.
 *
 * An incomplete retention (issue 10, item 2): a retained report that counted
 * a bundle whose manifest is not in manifests/ (a retain killed between the
 * report and the manifests, by a version that wrote the report first; a
 * report retained before manifests existed; a manifest deleted or edited).
 * Nothing could be compared with that bundle, so a rewrite of it would be
 * counted silently; instead:
 * - when a verified bundle with exactly that bundle_id is among the evidence,
 *   its manifest is the one the report counted (the id is the digest of the
 *   manifest): it is used as the retained manifest, and `retain` writes it
 *   (finishes the retention);
 * - otherwise every verified bundle of that plan with another bundle_id gets
 *   a REWRITTEN_EVIDENCE finding on manifest.json (no file can be shown
 *   unchanged or appended: an append is shown, never assumed), so it is not
 *   counted, and `retain` refuses until the manifest is restored.
 * Both are listed as problems of the manifests directory (the archive page).
 * A manifest no retained report names (a retain killed after a manifest and
 * before its report, the commit point) is history like any other: it can only
 * make a later bundle of its plan not counted, never count one.
 */
import { shortDigest } from '../json/canonical.ts';
import { compareUtf8 } from '../json/compare.ts';
import type { BundleResult } from '../pipeline/verify-paths.ts';
import { finding, statusOf, type Finding } from '../verify/findings.ts';
import { classCounts, classifyFiles, REWRITING_CLASSES, type FileChange, type FileClass } from './classify.ts';
import { prefixDigest } from './prefix.ts';
import type { Manifest } from '../schema/index.ts';
import { readRetained, type RetainedReport } from './retained-reports.ts';
import { MANIFESTS_DIR, readRetainedManifests, type RetainedManifests } from './retained-manifests.ts';

/** At most this many REWRITTEN_EVIDENCE findings per bundle; one more finding counts the rest. */
export const MAX_REWRITE_FINDINGS = 1000;

/** One re-published plan: the retained bundle, the current one, and how each file changed. */
export interface PlanChange {
  plan_id: string;
  previous_bundle_id: string;
  bundle_id: string;
  counts: Record<FileClass, number>;
  /** Every file that did not stay unchanged, by path. */
  files: FileChange[];
  rewritten: boolean;
}

/**
 * The digest of the first `bytes` bytes of a current bundle's file, read in
 * the same pass as the whole file, whose digest and size must be `expected`
 * (what verification saw); null when it cannot be read or is not that file.
 * The build reads the bundle directory (prefix.ts); a stranger's
 * re-derivation reads the site's blob (src/rederive).
 */
export type PrefixReader = (result: BundleResult, path: string, bytes: number, expected: { sha256: string; bytes: number }) => Promise<string | null>;

/** The build's reader: the bundle's own file on disk. */
const diskPrefix: PrefixReader = (result, path, bytes, expected) => prefixDigest(result.path, path, bytes, expected);

/** What the history check found. */
export interface HistoryCheck {
  /** The retained manifests it compared with (the valid ones read, by bundle id): the site publishes them so a stranger re-runs this check. */
  manifests: Manifest[];
  /** The results, with REWRITTEN_EVIDENCE findings added and statuses recomputed. */
  results: BundleResult[];
  changes: PlanChange[];
  /** Retained bundles whose plan has no bundle at all in the current evidence. */
  absent: { plan_id: string; bundle_id: string }[];
  /** Files in the retained manifests directory that are not a valid manifest, or missing (shown on the archive page). */
  problems: RetainedManifests['problems'];
  /** Bundles a retained report counted whose manifest is not retained, by bundle_id. */
  incomplete: IncompleteRetention[];
}

/** A bundle that a retained report counted, and whose manifest is not in manifests/ (or does not check). */
export interface IncompleteRetention {
  bundle_id: string;
  plan_id: string;
  /** The retained reports (hex of their ids) that counted it. */
  reports: string[];
  /**
   * The manifest of a verified bundle among the evidence with exactly this
   * bundle_id (the retention can be finished: `retain` writes it), or null
   * (it cannot: the plan's other bundles are not counted and `retain` refuses).
   */
  manifest: Manifest | null;
}

/** The bundles the retained reports counted whose manifests are missing, each with the evidence's manifest when one has that id. */
export function incompleteRetentions(
  reports: readonly RetainedReport[],
  retained: RetainedManifests,
  results: readonly BundleResult[],
): IncompleteRetention[] {
  const missing = new Map<string, IncompleteRetention>();
  for (const r of reports) {
    // An edited report is still read here (fail safe: it can only ask for more history); it is shown as edited anyway.
    for (const b of r.report?.bundles ?? []) {
      if (!b.counted || b.bundle_id === null || b.plan_id === null || retained.byBundle.has(b.bundle_id)) continue;
      const entry = missing.get(b.bundle_id) ?? { bundle_id: b.bundle_id, plan_id: b.plan_id, reports: [], manifest: null };
      if (!entry.reports.includes(r.hex)) entry.reports.push(r.hex);
      missing.set(b.bundle_id, entry);
    }
  }
  for (const result of results) {
    const manifest = result.verification.evidence.manifest;
    if (result.verification.status !== 'verified' || manifest === null) continue;
    const entry = missing.get(manifest.bundle_id);
    if (entry && manifest.plan_id === entry.plan_id) entry.manifest = manifest;
  }
  return [...missing.values()].sort((a, b) => compareUtf8(a.bundle_id, b.bundle_id));
}

function incompleteProblem(i: IncompleteRetention): RetainedManifests['problems'][number] {
  const reports = i.reports.map((hex) => `${hex}.json`).join(', ');
  const problem = i.manifest !== null
    ? `missing: retained report ${reports} counted bundle ${i.bundle_id} but no valid manifest of it is retained here (an interrupted retain, or a deleted or edited file); that bundle is among the evidence, so its manifest is used and the next \`ledgerboard retain\` writes it here`
    : `missing: retained report ${reports} counted bundle ${i.bundle_id} of plan ${i.plan_id} but no valid manifest of it is retained here (an interrupted retain, or a deleted or edited file), and no bundle with that id is among the evidence: the plan's other bundles cannot be compared with it and are not counted (REWRITTEN_EVIDENCE), and \`ledgerboard retain\` refuses until that bundle's manifest.json is copied here under this name (from the bundle, a backup or the site that published it), or the bundle is put back among the evidence`;
  return { name: `${i.bundle_id.slice(7)}.json`, problem };
}

/** Compares the current bundles with the retained manifests. Reads only the new files' prefixes, and only for appends. */
export async function checkHistory(
  results: readonly BundleResult[],
  retainedManifests: RetainedManifests,
  reports: readonly RetainedReport[] = [],
  prefix: PrefixReader = diskPrefix,
): Promise<HistoryCheck> {
  const incomplete = incompleteRetentions(reports, retainedManifests, results);
  // A finishable retention's manifest is history already: the report counted exactly those bytes.
  const byBundle = new Map(retainedManifests.byBundle);
  for (const i of incomplete) if (i.manifest !== null) byBundle.set(i.bundle_id, i.manifest);
  const retained: RetainedManifests = { byBundle, problems: retainedManifests.problems };
  const uncomparable = new Map<string, IncompleteRetention[]>();
  for (const i of incomplete) if (i.manifest === null) uncomparable.set(i.plan_id, [...(uncomparable.get(i.plan_id) ?? []), i]);
  const byPlan = new Map<string, string[]>();
  for (const manifest of retained.byBundle.values()) {
    const list = byPlan.get(manifest.plan_id) ?? [];
    list.push(manifest.bundle_id);
    byPlan.set(manifest.plan_id, list);
  }
  const changes: PlanChange[] = [];
  const out: BundleResult[] = [];
  for (const result of results) {
    const v = result.verification;
    const current = v.evidence.manifest;
    if (v.status !== 'verified' || current === null || v.plan_id === null) {
      out.push(result);
      continue;
    }
    const added: Finding[] = [];
    for (const previous of (byPlan.get(v.plan_id) ?? []).sort()) {
      if (previous === current.bundle_id) continue;
      const old = retained.byBundle.get(previous)!;
      const all = await classifyFiles(old.files, current.files, (path, bytes, expected) => prefix(result, path, bytes, expected));
      const files = all.filter((c) => c.class !== 'unchanged');
      const rewriting = files.filter((c) => REWRITING_CLASSES.has(c.class));
      changes.push({ plan_id: v.plan_id, previous_bundle_id: previous, bundle_id: current.bundle_id, counts: classCounts(all), files, rewritten: rewriting.length > 0 });
      for (const change of rewriting) added.push(rewriteFinding(change, previous));
    }
    for (const missing of uncomparable.get(v.plan_id) ?? []) {
      added.push(
        finding(
          'REWRITTEN_EVIDENCE',
          'manifest.json',
          `cannot be compared with bundle ${shortDigest(missing.bundle_id)}, which retained report ${shortDigest(`sha256:${missing.reports[0]!}`)} counted: no valid manifest of it is in ${MANIFESTS_DIR}/ (an interrupted retain?), so no file can be shown unchanged or appended; restore it (see the archive page) and this bundle is compared as usual`,
        ),
      );
    }
    if (added.length === 0) {
      out.push(result);
      continue;
    }
    const capped = added.length > MAX_REWRITE_FINDINGS
      ? [...added.slice(0, MAX_REWRITE_FINDINGS), finding('REWRITTEN_EVIDENCE', 'manifest.json', `and ${added.length - MAX_REWRITE_FINDINGS} more removed or rewritten files`)]
      : added;
    const findings = [...v.findings, ...capped];
    out.push({ ...result, verification: { ...v, findings, status: statusOf(findings) } });
  }
  // Present means published in a verified bundle: an invalid bundle that merely names the plan (its plan.json is public) does not hide a withdrawal.
  const present = new Set([
    ...out.filter((r) => r.verification.status === 'verified').map((r) => r.verification.plan_id).filter((id): id is string => id !== null),
    ...changes.map((c) => c.plan_id),
  ]);
  const absent = [...retained.byBundle.values(), ...incomplete.filter((i) => i.manifest === null)]
    .filter((m) => !present.has(m.plan_id))
    .map((m) => ({ plan_id: m.plan_id, bundle_id: m.bundle_id }))
    .sort((a, b) => (a.plan_id < b.plan_id ? -1 : a.plan_id > b.plan_id ? 1 : a.bundle_id < b.bundle_id ? -1 : a.bundle_id > b.bundle_id ? 1 : 0));
  changes.sort((a, b) => compareUtf8(a.plan_id, b.plan_id) || compareUtf8(a.previous_bundle_id, b.previous_bundle_id) || compareUtf8(a.bundle_id, b.bundle_id));
  const problems = [...retained.problems, ...incomplete.map(incompleteProblem)].sort((a, b) => compareUtf8(a.name, b.name));
  const manifests = [...retainedManifests.byBundle.values()].sort((a, b) => compareUtf8(a.bundle_id, b.bundle_id));
  return { results: out, changes, absent, problems, incomplete, manifests };
}

function rewriteFinding(change: FileChange, previous: string): Finding {
  const since = `bundle ${shortDigest(previous)} (retained)`;
  if (change.class === 'removed') {
    return finding('REWRITTEN_EVIDENCE', change.path, `removed since ${since}: ${change.old!.bytes} bytes, ${change.old!.sha256}, are no longer published`);
  }
  return finding(
    'REWRITTEN_EVIDENCE',
    change.path,
    `rewritten since ${since}: the old ${change.old!.bytes} bytes (${change.old!.sha256}) are not a prefix of the new ${change.new!.bytes} bytes (${change.new!.sha256})`,
  );
}

/** One warning line per incomplete retention, for the commands that read history (`report`, `build`); `retain` finishes or refuses. */
export function incompleteRetentionWarnings(history: Pick<HistoryCheck, 'incomplete'>): string[] {
  return history.incomplete.map((i) =>
    i.manifest !== null
      ? `warning: incomplete retention: the manifest of bundle ${i.bundle_id}, counted by retained report ${shortDigest(`sha256:${i.reports[0]!}`)}, is not retained; it is among the evidence, so \`ledgerboard retain\` will write it`
      : `warning: incomplete retention: the manifest of bundle ${i.bundle_id}, counted by retained report ${shortDigest(`sha256:${i.reports[0]!}`)}, is not retained (missing or edited) and no bundle with that id is among the evidence: the other bundles of plan ${shortDigest(i.plan_id)} are not counted (REWRITTEN_EVIDENCE) and \`ledgerboard retain\` refuses until the manifest is restored under ${MANIFESTS_DIR}/${i.bundle_id.slice(7)}.json`,
  );
}

/** Reads `<retainedDir>/manifests/` and the retained reports, and checks the results against them. */
export async function checkHistoryIn(results: readonly BundleResult[], retainedDir: string): Promise<HistoryCheck> {
  const manifests = await readRetainedManifests(retainedDir);
  return checkHistory(results, manifests, (await readRetained(retainedDir)).reports);
}
