/**
 * The report cache, beside the verification cache (same directory): the
 * report is a pure function of each bundle's verification (status, findings
 * with the history's, ids), its content digest and the config, so a run
 * whose inputs are those of a kept report takes it instead of analysing
 * again (at 10^6 attempts the analysis is the larger part of a rebuild once
 * verification is reused).
 *
 * - The key is the SHA-256 of the canonical JSON of the code identity
 *   (verify-cache.ts), the config and, per bundle in order, its content
 *   digest, ids, status and findings. The evidence itself is a function of
 *   the content digest's bytes, the limits (in the config) and the code.
 * - An entry is `report-<key-hex>.json`: the first line names the format and
 *   the key; the rest is the report's canonical JSON. It is taken only when
 *   the key matches, the JSON parses, fits the report schema, and its
 *   report_id re-derives (the report identifies itself): anything else is
 *   ignored and rebuilt.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { canonicalJson, digestCanonical, selfId } from '../json/canonical.ts';
import { codeIdentity, keepAtomically, type VerifyCache } from '../pipeline/verify-cache.ts';
import type { ReportInput } from '../report/build-report.ts';
import { Report } from '../report/schema.ts';

/** The name of the entry format, on the first line of every report entry. */
export const REPORT_CACHE_FORMAT = 'ledgerboard.report-cache.v1';

/** The key of the report of these inputs under this config. */
export function reportKey(inputs: readonly ReportInput[], config: Config): string {
  return digestCanonical({
    format: REPORT_CACHE_FORMAT,
    code: codeIdentity(),
    config,
    inputs: inputs.map(({ content_digest, verification: v }) => [content_digest, v.bundle_id, v.plan_id, v.status, v.findings]),
  });
}

/** The kept report for a key, or null (none, or one that does not check). */
export async function readCachedReport(cache: VerifyCache, key: string): Promise<Report | null> {
  let text: string;
  try {
    text = await readFile(entryPath(cache, key), 'utf8');
  } catch {
    return null;
  }
  const newline = text.indexOf('\n');
  if (newline < 0 || text.slice(0, newline) !== `${REPORT_CACHE_FORMAT} ${key}`) return null;
  try {
    const parsed = Report.safeParse(JSON.parse(text.slice(newline + 1)));
    if (!parsed.success) return null;
    const report = parsed.data;
    return selfId(report as Record<string, unknown>, 'report_id') === report.report_id ? report : null;
  } catch {
    return null;
  }
}

/** Keeps a report under its key (atomically; a failure is ignored: the cache only saves time). */
export async function writeCachedReport(cache: VerifyCache, key: string, report: Report): Promise<void> {
  await keepAtomically(cache, entryPath(cache, key), [`${REPORT_CACHE_FORMAT} ${key}\n`, canonicalJson(report)]);
}

function entryPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `report-${key.slice('sha256:'.length)}.json`);
}
