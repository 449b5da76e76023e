/**
 * The human-written plan that `ledgerboard freeze` turns into plan.json: the
 * members a person decides, in YAML. Everything that can be computed is
 * computed by freeze and refused here if written (plan_id, the ledger's
 * digest and task count, the per-attempt ceiling, each subject's exact
 * model), so a hand-written value can never disagree with the evidence.
 *
 * Every mapping is strict, like plan.json: an unknown key is refused with
 * its name, where it is, the closest allowed key ("did you mean") and the
 * keys allowed there (a typo'd `atempts` must not silently become a default).
 */
import { z } from 'zod';
import { Digest, Timestamp } from '../schema/common.ts';
import { unsafePathReason } from '../evidence/paths.ts';
import { type InputProblem, refuseIfAny } from './problems.ts';
import { describePath, type StrictYaml, type YamlPath } from './strict-yaml.ts';
import { didYouMean } from './suggest.ts';

/** A name that identifies something (a selector, an agent, a harness): not empty. */
const Identity = z.string().min(1, 'must not be empty');

/** The plan as a person writes it (see docs/harness-authors.md). */
export const YamlPlan = z.strictObject({
  title: z.string(),
  /** Optional: the freeze moment; without it, SOURCE_DATE_EPOCH, then the clock. */
  created_at: Timestamp.optional(),
  ledger: z.strictObject({ name: Identity }),
  environment: z.strictObject({
    tool_policy: Digest,
    /** Optional: an empty list when absent. */
    wiki: z
      .array(
        z.strictObject({
          path: z.string().refine((p) => unsafePathReason(p) === null, { message: 'breaks the path rules of FORMAT.md 2.1 (relative, "/"-separated, no empty, "." or ".." segment, no backslash or NUL, at most 255 bytes)' }),
          sha256: Digest,
        }),
      )
      .optional(),
    isolation: z.string(),
    session_topology: z.string(),
  }),
  harness: z.strictObject({
    name: Identity,
    version: Identity,
    commit: z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'expected 40 or 64 lowercase hex digits'),
  }),
  grader: z.strictObject({ profile: z.string(), id: Identity, version: Identity, executable: Digest }),
  subjects: z
    .array(
      z.strictObject({
        selector: Identity,
        agent: z.strictObject({ name: Identity, version: Identity }),
        role: z.enum(['candidate', 'baseline']),
      }),
    )
    .min(1, 'at least one subject is needed'),
  attempts: z.int().min(1),
  budget: z.strictObject({
    currency: Identity,
    aggregate_micros: z.int().min(1),
    timeout_seconds: z.int().min(0),
  }),
  access_tier: z.string(),
  seed: z.int(),
});
export type YamlPlan = z.infer<typeof YamlPlan>;

/** Members freeze computes, by where they would be written (`*` for any index), and what computes them. */
const COMPUTED: Record<string, string> = {
  schema: 'freeze writes "ledgerboard.plan.v1"',
  plan_id: 'freeze derives it from the plan (RFC 8785, SHA-256)',
  origin: 'freeze writes frozen plans (no origin); imported evidence has its own tool',
  'ledger.digest': 'freeze hashes the --ledger file',
  'ledger.tasks': 'freeze counts the --ledger file',
  'subjects.*.model': 'freeze resolves it from the selector (through --aliases for a ":name" alias; an exact identity is itself)',
  'budget.per_attempt_micros': 'freeze computes floor(aggregate_micros / (tasks x subjects x attempts))',
};

/** Validates the parsed YAML against the plan shape; throws AuthorInputError with every problem. */
export function readYamlPlan(yaml: StrictYaml): YamlPlan {
  const result = YamlPlan.safeParse(yaml.value);
  if (result.success) return result.data;
  const problems: InputProblem[] = [];
  for (const issue of result.error.issues) problems.push(...describeIssue(yaml, issue));
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  refuseIfAny(problems);
  throw new Error('plan schema refused the plan without an issue (bug)');
}

function describeIssue(yaml: StrictYaml, issue: z.core.$ZodIssue): InputProblem[] {
  const path = issue.path.filter((k): k is string | number => typeof k === 'string' || typeof k === 'number');
  const file = yaml.file;
  if (issue.code === 'unrecognized_keys') {
    const allowed = keysAt(YamlPlan, path);
    return issue.keys.map((key) => {
      const memberPath = [...path, key];
      const where = yaml.keyPositionOf(memberPath) ?? yaml.positionOf(path);
      const computed = COMPUTED[computedKey(memberPath)];
      if (computed !== undefined) {
        return { file, ...where, message: `key ${JSON.stringify(key)} at ${describePath(path)} is computed, not written: ${computed}; remove it` };
      }
      const suggestion = didYouMean(key, allowed);
      const hint = suggestion !== null ? `; did you mean ${JSON.stringify(suggestion)}?` : '';
      return {
        file,
        ...where,
        message: `unknown key ${JSON.stringify(key)} at ${describePath(path)}${hint} (allowed there: ${allowed.join(', ')})`,
      };
    });
  }
  const where = yaml.positionOf(path);
  const value = valueAt(yaml.value, path);
  if (issue.code === 'invalid_type' && value === undefined) {
    const parent = path.slice(0, -1);
    return [{ file, ...yaml.positionOf(parent), message: `missing key ${JSON.stringify(path.at(-1))} at ${describePath(parent)} (${expectedName(issue.expected)})` }];
  }
  if (issue.code === 'invalid_type' && issue.expected === 'string' && value !== null && typeof value !== 'object') {
    const source = yaml.sourceOf(path) ?? String(value);
    return [{ file, ...where, message: `${describePath(path)}: expected text, got the ${typeof value} ${source}; quote it: "${source}"` }];
  }
  if (issue.code === 'invalid_type') {
    return [{ file, ...where, message: `${describePath(path)}: expected ${expectedName(issue.expected)}, got ${describeValue(value)}` }];
  }
  return [{ file, ...where, message: `${describePath(path)}: ${issue.message}` }];
}

/** `subjects.*.model` for `["subjects", 2, "model"]`. */
function computedKey(path: YamlPath): string {
  return path.map((k) => (typeof k === 'number' ? '*' : k)).join('.');
}

function expectedName(expected: string): string {
  switch (expected) {
    case 'string':
      return 'text';
    case 'int':
    case 'number':
      return 'an integer';
    case 'object':
      return 'a mapping of keys';
    case 'array':
      return 'a list';
    default:
      return expected;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'an empty value (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}

function valueAt(value: unknown, path: YamlPath): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** The keys a strict object schema allows at a path (through optional, nullable and array wrappers). */
export function keysAt(schema: z.ZodType, path: YamlPath): string[] {
  let current: z.ZodType | undefined = schema;
  const unwrap = (s: z.ZodType): z.ZodType => {
    let inner = s;
    while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap() as z.ZodType;
    return inner;
  };
  for (const key of path) {
    if (current === undefined) return [];
    current = unwrap(current);
    if (typeof key === 'number' && current instanceof z.ZodArray) current = current.element as z.ZodType;
    else if (typeof key === 'string' && current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[key];
    else return [];
  }
  if (current === undefined) return [];
  current = unwrap(current);
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}
