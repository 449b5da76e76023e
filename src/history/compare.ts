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
 */
import { shortDigest } from '../json/canonical.ts';
import { compareUtf8 } from '../evidence/paths.ts';
import type { VerifiedBundle } from '../pipeline/verify-paths.ts';
import { finding, statusOf, type Finding } from '../verify/findings.ts';
import { classCounts, classifyFiles, REWRITING_CLASSES, type FileChange, type FileClass } from './classify.ts';
import { prefixDigest } from './prefix.ts';
import { readRetainedManifests, type RetainedManifests } from './retained-manifests.ts';

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

/** What the history check found. */
export interface HistoryCheck {
  /** The results, with REWRITTEN_EVIDENCE findings added and statuses recomputed. */
  results: VerifiedBundle[];
  changes: PlanChange[];
  /** Retained bundles whose plan has no bundle at all in the current evidence. */
  absent: { plan_id: string; bundle_id: string }[];
  /** Files in the retained manifests directory that are not a valid manifest (shown on the archive page). */
  problems: RetainedManifests['problems'];
}

/** Compares the current bundles with the retained manifests. Reads only the new files' prefixes, and only for appends. */
export async function checkHistory(results: readonly VerifiedBundle[], retained: RetainedManifests): Promise<HistoryCheck> {
  const byPlan = new Map<string, string[]>();
  for (const manifest of retained.byBundle.values()) {
    const list = byPlan.get(manifest.plan_id) ?? [];
    list.push(manifest.bundle_id);
    byPlan.set(manifest.plan_id, list);
  }
  const changes: PlanChange[] = [];
  const out: VerifiedBundle[] = [];
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
      const all = await classifyFiles(old.files, current.files, (path, bytes, expected) => prefixDigest(result.path, path, bytes, expected));
      const files = all.filter((c) => c.class !== 'unchanged');
      const rewriting = files.filter((c) => REWRITING_CLASSES.has(c.class));
      changes.push({ plan_id: v.plan_id, previous_bundle_id: previous, bundle_id: current.bundle_id, counts: classCounts(all), files, rewritten: rewriting.length > 0 });
      for (const change of rewriting) added.push(rewriteFinding(change, previous));
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
  const absent = [...retained.byBundle.values()]
    .filter((m) => !present.has(m.plan_id))
    .map((m) => ({ plan_id: m.plan_id, bundle_id: m.bundle_id }))
    .sort((a, b) => (a.plan_id < b.plan_id ? -1 : a.plan_id > b.plan_id ? 1 : a.bundle_id < b.bundle_id ? -1 : a.bundle_id > b.bundle_id ? 1 : 0));
  changes.sort((a, b) => compareUtf8(a.plan_id, b.plan_id) || compareUtf8(a.previous_bundle_id, b.previous_bundle_id) || compareUtf8(a.bundle_id, b.bundle_id));
  return { results: out, changes, absent, problems: retained.problems };
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

/** Reads `<retainedDir>/manifests/` and checks the results against it. */
export async function checkHistoryIn(results: readonly VerifiedBundle[], retainedDir: string): Promise<HistoryCheck> {
  return checkHistory(results, await readRetainedManifests(retainedDir));
}
