/**
 * Board and cohort keys (FORMAT.md section 7.1) as explicit objects. A board
 * id / cohort id is the RFC 8785 digest of its key. Cohorts on one board are
 * comparable; cohorts on different boards are not.
 */
import { digestCanonical } from '../json/canonical.ts';
import type { Grader, Plan } from '../schema/index.ts';
import { compareUtf8 } from '../json/compare.ts';

/** Everything that must match for two attempts to be comparable. */
export interface BoardKey {
  ledger_digest: string;
  environment: {
    tool_policy: string;
    wiki: { path: string; sha256: string }[];
    isolation: string;
    session_topology: string;
  };
  harness: { name: string; version: string; commit: string };
  budget: { currency: string; per_attempt_micros: number; timeout_seconds: number } | null;
  grading: { id: string; version: string; executable: string };
  origin: 'frozen' | 'imported';
}

/** A subject: exact model and agent. */
export interface SubjectKey {
  model: string;
  agent: { name: string; version: string };
}

/** Board key plus subject: attempts with the same cohort key pool into one cohort, across bundles. */
export interface CohortKey extends BoardKey {
  subject: SubjectKey;
}

/** The board key of a plan's attempts graded in a given layer. */
export function boardKeyOf(plan: Plan, grading: Grader): BoardKey {
  const { environment: env, harness, budget } = plan;
  return {
    ledger_digest: plan.ledger.digest,
    environment: {
      tool_policy: env.tool_policy,
      wiki: [...env.wiki].sort((a, b) => compareUtf8(a.path, b.path)).map(({ path, sha256 }) => ({ path, sha256 })),
      isolation: env.isolation,
      session_topology: env.session_topology,
    },
    harness: { name: harness.name, version: harness.version, commit: harness.commit },
    budget: budget === null ? null : { currency: budget.currency, per_attempt_micros: budget.per_attempt_micros, timeout_seconds: budget.timeout_seconds },
    grading: { id: grading.id, version: grading.version, executable: grading.executable },
    origin: plan.origin?.kind ?? 'frozen',
  };
}

/** The cohort key: the board key and the subject. */
export function cohortKeyOf(board: BoardKey, subject: SubjectKey): CohortKey {
  return { ...board, subject: { model: subject.model, agent: { name: subject.agent.name, version: subject.agent.version } } };
}

/** The id of a key object: `sha256:` of its RFC 8785 form. */
export function keyId(key: BoardKey | CohortKey): string {
  return digestCanonical(key);
}

/** A key component that differs between two boards, with both values (leaf paths such as `harness.commit`). */
export interface KeyDifference {
  component: string;
  a: unknown;
  b: unknown;
}

/** Every leaf component where two keys differ; arrays (the wiki) compare as one component. */
export function keyDifferences(a: BoardKey, b: BoardKey): KeyDifference[] {
  const out: KeyDifference[] = [];
  walk(a, b, '', out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: KeyDifference[]): void {
  const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a as object), ...Object.keys(b as object)])].sort();
    for (const key of keys) {
      walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], path ? `${path}.${key}` : key, out);
    }
    return;
  }
  if (digestCanonical(a ?? null) !== digestCanonical(b ?? null)) out.push({ component: path, a: a ?? null, b: b ?? null });
}
