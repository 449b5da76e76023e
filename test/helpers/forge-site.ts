/**
 * Test helper: forging a built site as a hostile host or mirror would
 * (issue 24): a copy of the site whose report.json is edited with every id
 * re-derived (report_id, the cohort files, the current entry of
 * changes.json with its diff recomputed, the report id in every page and
 * badge), so only a verifier that re-derives the numbers from the evidence
 * can notice.
 */
import { existsSync } from 'node:fs';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canonicalJson, digestHex, selfId } from '../../src/json/canonical.ts';
import { diffReports, diffSummary } from '../../src/history/report-diff.ts';
import type { Report } from '../../src/report/schema.ts';
import { makeTempDir } from './bundle-builder.ts';

/** A fresh copy of a built site (removed with the other temporary directories). */
export async function copySite(site: string, prefix = 'ledgerboard-forged-'): Promise<string> {
  const dir = join(await makeTempDir(prefix), 'site');
  await cp(site, dir, { recursive: true });
  return dir;
}

/** Every file under a directory whose name ends with one of the extensions. */
async function filesEnding(root: string, extensions: readonly string[]): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && extensions.some((x) => e.name.endsWith(x))).map((e) => join(e.parentPath, e.name));
}

/** Replaces a text in a file; returns whether it was there. */
export async function replaceInFile(file: string, from: string, to: string): Promise<boolean> {
  const text = await readFile(file, 'utf8');
  if (!text.includes(from)) return false;
  await writeFile(file, text.split(from).join(to));
  return true;
}

/**
 * Edits the site's report.json and re-derives everything a verifier of ids
 * checks: report_id, every /cohorts/<hex>.json, the current report's entry
 * of changes.json (its id, and its diff and summary recomputed from the
 * retained report before it), and the old report id in every page and data
 * file. Returns the new report.
 */
export async function forgeReport(site: string, edit: (report: Report) => void): Promise<Report> {
  const report = JSON.parse(await readFile(join(site, 'report.json'), 'utf8')) as Report;
  const oldId = report.report_id;
  edit(report);
  const { report_id: _old, ...rest } = report;
  const newId = selfId(rest as Record<string, unknown>, 'report_id');
  const forged = { ...report, report_id: newId } as Report;
  await writeFile(join(site, 'report.json'), `${canonicalJson(forged)}\n`);
  for (const cohort of forged.cohorts) await writeFile(join(site, 'cohorts', `${digestHex(cohort.cohort_id)}.json`), canonicalJson(cohort));
  const changes = JSON.parse(await readFile(join(site, 'changes.json'), 'utf8')) as { schema: string; reports: { report: string; previous: string | null; summary: string; diff: unknown }[] };
  for (const entry of changes.reports) {
    if (entry.report !== digestHex(oldId)) continue;
    entry.report = digestHex(newId);
    if (entry.previous !== null) {
      const previous = JSON.parse(await readFile(join(site, 'reports', `${entry.previous}.json`), 'utf8')) as Report;
      const diff = diffReports(previous, forged);
      entry.diff = diff;
      entry.summary = diffSummary(diff);
    }
  }
  await writeFile(join(site, 'changes.json'), `${canonicalJson(changes)}\n`);
  for (const file of await filesEnding(site, ['.html', '.xml', '.csv'])) {
    await replaceInFile(file, digestHex(oldId), digestHex(newId));
  }
  // The badges (/badges/<cohort-hex>.svg) name the report by its first 12 hex digits.
  for (const file of existsSync(join(site, 'badges')) ? await filesEnding(join(site, 'badges'), ['.svg']) : []) {
    await replaceInFile(file, digestHex(oldId).slice(0, 12), digestHex(newId).slice(0, 12));
  }
  return forged;
}
