/**
 * Where a published report and the one re-derived from its evidence differ
 * (FORMAT.md 8: "names the first member that differs"): entities are
 * matched by their ids (a bundle by its ids and content digest, a board or a
 * cohort by its id, a pair by its two cohorts), and each difference names
 * the entity, the member's path inside it, and both values:
 * `cohort sha256:… verdict: published PASS, re-derived NO_GAIN`.
 * Pure: two plain JSON values in, sentences out.
 */

/** One difference: the entity, the member path inside it, both values as text. */
export interface ReportDifference {
  subject: string;
  member: string;
  published: string;
  rederived: string;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Entity = { [key: string]: Json };

/** At most this many differences are listed (each entity gives at most its first). */
export const MAX_DIFFERENCES = 20;

const isObject = (v: unknown): v is Entity => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value as it is shown in a difference: JSON, cut to 160 characters. */
export function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  // A plain token (a verdict, a status, an id) reads better unquoted.
  if (typeof value === 'string' && /^[A-Za-z0-9_:.+-]{1,160}$/.test(value)) return value;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** The first member path where two JSON values differ (null when equal), with both values there. */
export function firstDifference(published: unknown, rederived: unknown, path = ''): { member: string; published: unknown; rederived: unknown } | null {
  if (Object.is(published, rederived)) return null;
  if (Array.isArray(published) && Array.isArray(rederived)) {
    const n = Math.min(published.length, rederived.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(published[i], rederived[i], `${path}[${i}]`);
      if (d !== null) return d;
    }
    if (published.length === rederived.length) return null;
    return { member: `${path || '(list)'} length`, published: published.length, rederived: rederived.length };
  }
  if (isObject(published) && isObject(rederived)) {
    const keys = [...Object.keys(rederived), ...Object.keys(published).filter((k) => !Object.hasOwn(rederived, k))];
    for (const key of keys) {
      const d = firstDifference(published[key], rederived[key], path === '' ? key : `${path}.${key}`);
      if (d !== null) return d;
    }
    return null;
  }
  if (typeof published === 'number' && typeof rederived === 'number' && published === rederived) return null;
  return { member: path === '' ? '(value)' : path, published, rederived };
}

/** The error codes of a bundle entry's findings, for "re-derived invalid (IDENTITY_MISMATCH, ...)". */
function errorCodes(bundle: Entity | undefined): string {
  const findings = Array.isArray(bundle?.findings) ? bundle.findings : [];
  const codes = [...new Set(findings.flatMap((f) => (isObject(f) && f.severity === 'error' && typeof f.code === 'string' ? [f.code] : [])))];
  return codes.length > 0 ? ` (${codes.slice(0, 4).join(', ')}${codes.length > 4 ? ', ...' : ''})` : '';
}

/** Matches two lists of entities by key and gives each pair's first difference (one per entity). */
function compareEntities(
  kind: string,
  published: Json | undefined,
  rederived: Json | undefined,
  keyOf: (e: Entity) => string,
  nameOf: (e: Entity) => string,
  out: ReportDifference[],
  explain?: (member: string, published: Entity, rederived: Entity) => string,
): void {
  const a = Array.isArray(published) ? published.filter(isObject) : [];
  const b = Array.isArray(rederived) ? rederived.filter(isObject) : [];
  const byKey = new Map(a.map((e) => [keyOf(e), e]));
  const seen = new Set<string>();
  for (const r of b) {
    const key = keyOf(r);
    seen.add(key);
    const p = byKey.get(key);
    if (p === undefined) {
      out.push({ subject: `${kind} ${nameOf(r)}`, member: '(entry)', published: 'none', rederived: 'an entry the evidence gives' });
      continue;
    }
    const d = firstDifference(p, r);
    if (d !== null) out.push({ subject: `${kind} ${nameOf(r)}`, member: d.member, published: shown(d.published), rederived: `${shown(d.rederived)}${explain?.(d.member, p, r) ?? ''}` });
  }
  for (const p of a) if (!seen.has(keyOf(p))) out.push({ subject: `${kind} ${nameOf(p)}`, member: '(entry)', published: 'in the report', rederived: 'none (the evidence gives no such entry)' });
  // Same entities in another order: the report's order is part of its bytes.
  if (out.length === 0 && a.length === b.length && a.some((e, i) => keyOf(e) !== keyOf(b[i]!))) {
    const i = a.findIndex((e, j) => keyOf(e) !== keyOf(b[j]!));
    out.push({ subject: `${kind}s`, member: `order at [${i}]`, published: nameOf(a[i]!), rederived: nameOf(b[i]!) });
  }
}

const str = (v: Json | undefined): string => (typeof v === 'string' ? v : shown(v));

/** Every difference between a published report and the re-derived one, in report order, at most MAX_DIFFERENCES. */
export function reportDifferences(published: unknown, rederived: unknown): ReportDifference[] {
  const out: ReportDifference[] = [];
  if (!isObject(published) || !isObject(rederived)) return [{ subject: 'report', member: '(value)', published: shown(published), rederived: shown(rederived) }];
  const members = [...Object.keys(rederived), ...Object.keys(published).filter((k) => !Object.hasOwn(rederived, k))];
  for (const member of members) {
    const p = published[member];
    const r = rederived[member];
    if (member === 'bundles') {
      compareEntities(
        'bundle',
        p,
        r,
        (e) => `${str(e.bundle_id)}/${str(e.content_digest)}`,
        (e) => str(e.bundle_id ?? e.content_digest),
        out,
        (m, _p, rb) => (m === 'status' || m === 'counted' ? errorCodes(rb) : ''),
      );
    } else if (member === 'boards') {
      compareEntities('board', p, r, (e) => str(e.board_id), (e) => str(e.board_id), out);
    } else if (member === 'cohorts') {
      compareEntities('cohort', p, r, (e) => str(e.cohort_id), (e) => str(e.cohort_id), out);
    } else if (member !== 'report_id') {
      const d = firstDifference(p, r, member);
      if (d !== null) out.push({ subject: 'report', member: d.member, published: shown(d.published), rederived: shown(d.rederived) });
    }
  }
  if (out.length === 0 && published.report_id !== rederived.report_id) out.push({ subject: 'report', member: 'report_id', published: shown(published.report_id), rederived: shown(rederived.report_id) });
  return out.slice(0, MAX_DIFFERENCES);
}

/** One difference as a sentence: "cohort sha256:… verdict: published PASS, re-derived NO_GAIN". */
export function differenceText(d: ReportDifference): string {
  return `${d.subject} ${d.member}: published ${d.published}, re-derived ${d.rederived}`;
}
