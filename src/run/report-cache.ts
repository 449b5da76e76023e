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
 * - An entry is `report-<key-hex>.json`, sealed like every cache entry
 *   (cache/sealed.ts: the format, the key and an HMAC under the cache's
 *   secret); the rest is the report's JSON (JSON.stringify: canonicalising
 *   it again cost a run with a new bundle about 30 ms at 10^6). It is taken
 *   only when the seal checks, the JSON parses, fits the report schema, and
 *   its report_id re-derives (the report identifies itself): anything else
 *   is ignored and rebuilt.
 *
 * Beside whole reports it keeps each ledger's section (report/ledger-section.ts),
 * so a run where one ledger gained a bundle analyses that ledger alone:
 *
 * - The key is the SHA-256 of the canonical JSON of the code identity, the
 *   config, the ledger digest and, per counted bundle of the ledger in bundle
 *   id order, its content digest, bundle id and plan id (a counted bundle is
 *   verified; its evidence is a function of its bytes, the limits and the code).
 * - An entry is `section-<key-hex>.json`: the first line names the format,
 *   the key and the HMAC of the rest (cache/sealed.ts), the section's JSON.
 *   It is taken only when the line matches and the seal checks, the rest
 *   parses, fits the section schema and names the same ledger: anything else
 *   is ignored and analysed again (a section has no self id the way a
 *   report has, hence the seal over its bytes).
 *
 * And beside sections, each counted bundle's pooling (src/analysis/pool.ts
 * BundlePooling: the cohorts it joins and its summarised part of each), so a
 * ledger analysed again because it gained a bundle pools only that bundle's
 * rows and merges the others' kept parts:
 *
 * - The key is the SHA-256 of the canonical JSON of the code identity, the
 *   bundle's content digest, bundle id and plan id, the grading pin and the
 *   layer ('latest', or 'first' for the cohorts as generation 1 graded them).
 * - An entry is `pooling-<key-hex>.v8`: the first line names the format, the
 *   key and the HMAC of the rest, the pooling serialised by V8. It is
 *   taken only when the line matches, the seal checks, the rest
 *   deserialises, has the shape of a pooling (every array and typed array
 *   where it belongs, lengths that agree) and names the same bundle, plan
 *   and ledger: anything else is ignored and the bundle pooled again.
 */
import { deserialize, serialize } from 'node:v8';
import { join } from 'node:path';
import type { Config } from '../config/config.ts';
import { digestCanonical, selfId } from '../json/canonical.ts';
import { readSealed, writeSealed } from '../cache/sealed.ts';
import { codeIdentity, type VerifyCache } from '../pipeline/verify-cache.ts';
import type { CohortPart } from '../analysis/cohort-part.ts';
import { REASON_CODES, TERMINAL_CLASSES } from '../analysis/grading.ts';
import type { AnalysisInput, BundlePooling, PoolingStore } from '../analysis/pool.ts';
import type { CountedBundle, LedgerGroup, ReportInput, SectionStore } from '../report/build-report.ts';
import { LedgerSection } from '../report/ledger-section.ts';
import { Report } from '../report/schema.ts';
import type { FreezeLogInput } from '../report/freeze-log.ts';

/** The name of the entry format, on the first line of every report entry. */
export const REPORT_CACHE_FORMAT = 'ledgerboard.report-cache.v1';
/** The name of the entry format, on the first line of every section entry. */
export const SECTION_CACHE_FORMAT = 'ledgerboard.report-section.v1';
/** The name of the entry format, on the first line of every bundle pooling entry. */
export const POOLING_CACHE_FORMAT = 'ledgerboard.bundle-pooling.v1';

/** The key of the report of these inputs under this config. */
export function reportKey(inputs: readonly ReportInput[], config: Config, freezeLog: FreezeLogInput | null = null): string {
  return digestCanonical({
    format: REPORT_CACHE_FORMAT,
    code: codeIdentity(),
    config,
    // The freeze log as checked (its digest, lines and findings decide the report's freeze_log).
    freeze_log: freezeLog === null ? null : digestCanonical({ digest: freezeLog.digest, lines: freezeLog.lines, entries: freezeLog.entries, findings: freezeLog.findings } as unknown as Parameters<typeof digestCanonical>[0]),
    inputs: inputs.map(({ content_digest, verification: v }) => [content_digest, v.bundle_id, v.plan_id, v.status, v.findings]),
  });
}

/** The kept report for a key, or null (none, or one that does not check). */
export async function readCachedReport(cache: VerifyCache, key: string): Promise<Report | null> {
  const body = await readSealed(cache, entryPath(cache, key), REPORT_CACHE_FORMAT, key);
  if (body === null) return null;
  try {
    const parsed = Report.safeParse(JSON.parse(body.toString('utf8')));
    if (!parsed.success) return null;
    const report = parsed.data;
    return selfId(report as Record<string, unknown>, 'report_id') === report.report_id ? report : null;
  } catch {
    return null;
  }
}

/** Keeps a report under its key (atomically; a failure is ignored: the cache only saves time). */
export async function writeCachedReport(cache: VerifyCache, key: string, report: Report): Promise<void> {
  await writeSealed(cache, entryPath(cache, key), REPORT_CACHE_FORMAT, key, JSON.stringify(report));
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
  const body = await readSealed(cache, sectionPath(cache, key), SECTION_CACHE_FORMAT, key);
  if (body === null) return null;
  try {
    const parsed = LedgerSection.safeParse(JSON.parse(body.toString('utf8')));
    return parsed.success && parsed.data.ledger_digest === ledger_digest ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Keeps a section under its key (atomically; a failure is ignored). */
export async function writeCachedSection(cache: VerifyCache, key: string, section: LedgerSection): Promise<void> {
  await writeSealed(cache, sectionPath(cache, key), SECTION_CACHE_FORMAT, key, JSON.stringify(section));
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

type Layer = 'latest' | 'first';

/** The key of a counted bundle's pooling under this grading pin and layer. */
export function poolingKey(bundle: CountedBundle, config: Config, layer: Layer): string {
  return digestCanonical({
    format: POOLING_CACHE_FORMAT,
    code: codeIdentity(),
    bundle: [bundle.content_digest, bundle.bundle_id, bundle.plan_id],
    pin: config.grading_pin,
    layer,
  });
}

/** The kept pooling for a key, or null (none, or one that does not check: see the module comment). */
export async function readCachedPooling(cache: VerifyCache, key: string, bundle: AnalysisInput): Promise<BundlePooling | null> {
  const body = await readSealed(cache, poolingPath(cache, key), POOLING_CACHE_FORMAT, key);
  if (body === null) return null;
  try {
    const value: unknown = deserialize(body);
    return isPoolingOf(value, bundle) ? value : null;
  } catch {
    return null;
  }
}

/** Keeps a pooling under its key (atomically; a failure is ignored). */
export async function writeCachedPooling(cache: VerifyCache, key: string, pooling: BundlePooling): Promise<void> {
  await writeSealed(cache, poolingPath(cache, key), POOLING_CACHE_FORMAT, key, serialize(pooling));
}

/**
 * The poolings kept for the bundles of these groups (both layers), read
 * ahead, as a store that collects the poolings made afresh; write those
 * with `keep()` after the report. `reused` counts the bundles whose pooling
 * (the layer in use) was kept, of `total`.
 */
export async function poolingStore(cache: VerifyCache, groups: readonly LedgerGroup[], config: Config): Promise<PoolingStore & { reused: number; total: number; keep(): Promise<void> }> {
  const keys = new Map<string, CountedBundle>();
  const kept = new Map<string, BundlePooling>();
  let reused = 0;
  for (const group of groups) {
    for (const bundle of group.bundles) {
      keys.set(bundle.bundle_id, bundle);
      for (const layer of ['latest', 'first'] as const) {
        const key = poolingKey(bundle, config, layer);
        const pooling = await readCachedPooling(cache, key, bundle);
        if (pooling === null) continue;
        kept.set(key, pooling);
        if (layer === 'latest') reused++;
      }
    }
  }
  const keyOf = (input: AnalysisInput, layer: Layer): string | null => {
    const bundle = keys.get(input.bundle_id);
    return bundle === undefined || bundle.plan_id !== input.plan_id ? null : poolingKey(bundle, config, layer);
  };
  const made: [string, BundlePooling][] = [];
  return {
    reused,
    total: keys.size,
    kept: (input, layer) => {
      const key = keyOf(input, layer);
      return key === null ? null : (kept.get(key) ?? null);
    },
    made: (input, layer, pooling) => {
      const key = keyOf(input, layer);
      if (key !== null) made.push([key, pooling]);
    },
    keep: async () => {
      for (const [key, pooling] of made) await writeCachedPooling(cache, key, pooling);
    },
  };
}

function poolingPath(cache: VerifyCache, key: string): string {
  return join(cache.dir, `pooling-${key.slice('sha256:'.length)}.v8`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * Whether a deserialised value has the shape of this bundle's pooling: the
 * cache's own bytes, but checked as input (a foreign or damaged entry that
 * still hashes to its header must not crash or skew the analysis).
 */
function isPoolingOf(value: unknown, bundle: AnalysisInput): value is BundlePooling {
  if (!isObject(value) || value.bundle_id !== bundle.bundle_id || value.plan_id !== bundle.plan_id) return false;
  if (value.ledger_digest !== bundle.evidence.plan?.ledger.digest || !isCount(value.excluded)) return false;
  if (!Array.isArray(value.joins) || !Array.isArray(value.parts)) return false;
  for (const join of value.joins) {
    if (!isObject(join) || !isString(join.board_id) || !isString(join.cohort_id) || !isString(join.earlier) || !isString(join.selector)) return false;
    if ((join.role !== 'candidate' && join.role !== 'baseline') || !isObject(join.board) || !isObject(join.key) || !isObject(join.plan)) return false;
    if (join.plan.plan_id !== bundle.plan_id || join.plan.bundle_id !== bundle.bundle_id) return false;
  }
  const cohorts = new Set(value.joins.map((j) => (j as { cohort_id: string }).cohort_id));
  for (const entry of value.parts) {
    if (!isObject(entry) || !isString(entry.cohort_id) || !cohorts.has(entry.cohort_id) || !Array.isArray(entry.regrades) || !isPart(entry.part, bundle)) return false;
  }
  return true;
}

function isPart(part: unknown, bundle: AnalysisInput): part is CohortPart {
  if (!isObject(part) || part.bundle_id !== bundle.bundle_id || part.plan_id !== bundle.plan_id || !isCount(part.attempts) || part.integral !== true) return false;
  const n = part.attempts as number;
  const counts = (v: unknown, length: number) => Array.isArray(v) && v.length === length && v.every(isCount) && v.reduce((a: number, b: number) => a + b, 0) === n;
  if (!counts(part.classes, TERMINAL_CLASSES.length) || !counts(part.reasons, REASON_CODES.length)) return false;
  if (!(part.walls instanceof Float64Array) || part.walls.length !== n) return false;
  const { tokens, cost, headline, tasks } = part;
  if (!isObject(tokens) || !isCount(tokens.input) || !isCount(tokens.output) || !isCount(tokens.unknown)) return false;
  if (!isObject(cost) || ![cost.micros, cost.partial, cost.unavailable, cost.not_applicable, cost.zero].every(isCount) || !isCount(part.retries)) return false;
  if (!isObject(headline) || !isCount(headline.resolved) || !isCount(headline.graded)) return false;
  if (!Array.isArray(part.replicates) || !part.replicates.every((r) => isObject(r) && Number.isFinite(r.index) && isCount(r.resolved) && isCount(r.graded))) return false;
  if (!isObject(tasks) || !(tasks.positions instanceof Int32Array)) return false;
  const t = tasks.positions.length;
  const onLedger = bundle.evidence.ledger.length;
  if (!tasks.positions.every((p) => p >= 0 && p < onLedger)) return false;
  const int32 = (v: unknown, length: number) => v instanceof Int32Array && v.length === length;
  return int32(tasks.attempts, t) && int32(tasks.resolved, t) && int32(tasks.ungraded, t) && int32(tasks.filled, t);
}
