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
 *
 * Beside whole reports it keeps each ledger's section (report/ledger-section.ts),
 * so a run where one ledger gained a bundle analyses that ledger alone:
 *
 * - The key is the SHA-256 of the canonical JSON of the code identity, the
 *   config, the ledger digest and, per counted bundle of the ledger in bundle
 *   id order, its content digest, bundle id and plan id (a counted bundle is
 *   verified; its evidence is a function of its bytes, the limits and the code).
 * - An entry is `section-<key-hex>.json`: the first line names the format,
 *   the key and the SHA-256 of the rest, the section's canonical JSON. It is
 *   taken only when the line matches, the rest hashes to the digest it names,
 *   parses, fits the section schema and names the same ledger: anything else
 *   is ignored and analysed again (a section has no self id the way a
 *   report has, hence the digest).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { canonicalJson, digestCanonical, selfId } from '../json/canonical.ts';
import { codeIdentity, keepAtomically, type VerifyCache } from '../pipeline/verify-cache.ts';
import type { LedgerGroup, ReportInput, SectionStore } from '../report/build-report.ts';
import { LedgerSection } from '../report/ledger-section.ts';
import { Report } from '../report/schema.ts';

/** The name of the entry format, on the first line of every report entry. */
export const REPORT_CACHE_FORMAT = 'ledgerboard.report-cache.v1';
/** The name of the entry format, on the first line of every section entry. */
export const SECTION_CACHE_FORMAT = 'ledgerboard.report-section.v1';

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

/** The key of a ledger's section under this config. */
export function sectionKey(group: LedgerGroup, config: Config): string {
  return digestCanonical({
    format: SECTION_CACHE_FORMAT,
    code: codeIdentity(),
    config,
    ledger: group.ledger_digest,
    bundles: group.bundles.map((b) => [b.content_digest, b.bundle_id, b.plan_id]),
  });
}

/** The kept section for a key, or null (none, or one that does not check). */
export async function readCachedSection(cache: VerifyCache, key: string, ledger_digest: string): Promise<LedgerSection | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(sectionPath(cache, key));
  } catch {
    return null;
  }
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return null;
  const body = bytes.subarray(newline + 1);
  const expected = `${SECTION_CACHE_FORMAT} ${key} sha256:${createHash('sha256').update(body).digest('hex')}`;
  if (bytes.subarray(0, newline).toString('utf8') !== expected) return null;
  try {
    const parsed = LedgerSection.safeParse(JSON.parse(body.toString('utf8')));
    return parsed.success && parsed.data.ledger_digest === ledger_digest ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Keeps a section under its key (atomically; a failure is ignored). */
export async function writeCachedSection(cache: VerifyCache, key: string, section: LedgerSection): Promise<void> {
  const body = canonicalJson(section);
  const digest = createHash('sha256').update(body, 'utf8').digest('hex');
  await keepAtomically(cache, sectionPath(cache, key), [`${SECTION_CACHE_FORMAT} ${key} sha256:${digest}\n`, body]);
}

/**
 * The sections kept for these groups, read ahead (buildReport is
 * synchronous), as a store that also collects the sections made afresh for
 * {@link SectionStore.made}; write those with `keep()` after the report.
 */
export async function sectionStore(cache: VerifyCache, groups: readonly LedgerGroup[], config: Config): Promise<SectionStore & { reused: number; keep(): Promise<void> }> {
  const kept = new Map<string, LedgerSection>();
  for (const group of groups) {
    const key = sectionKey(group, config);
    const section = await readCachedSection(cache, key, group.ledger_digest);
    if (section !== null) kept.set(key, section);
  }
  const made: [string, LedgerSection][] = [];
  return {
    reused: kept.size,
    // By key, not by object: the report groups its inputs again, and only a group of the same bundles has the same key.
    kept: (group) => kept.get(sectionKey(group, config)) ?? null,
    made: (group, section) => void made.push([sectionKey(group, config), section]),
    keep: async () => {
      for (const [key, section] of made) await writeCachedSection(cache, key, section);
    },
  };
}

function sectionPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `section-${key.slice('sha256:'.length)}.json`);
}
