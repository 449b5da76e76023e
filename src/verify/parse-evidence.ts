/**
 * The edge where untrusted bytes become typed values: strict JSON, then a
 * zod strict schema. Parse failures and schema issues become findings (with
 * line, column and JSON path in the message); the typed value is returned
 * only when the content is usable for later checks.
 */
import { z } from 'zod';
import { forEachStrictJsonlLine } from '../json/jsonl.ts';
import { limitMessage } from '../evidence/limits.ts';
import { formatJsonPath } from '../json/json-path.ts';
import { parseStrictJson, type JsonSyntaxError, type JsonValue } from '../json/strict-json.ts';
import { addFinding, type VerifyContext } from './context.ts';
import { finding } from './findings.ts';

/** A parsed JSON file: the raw value (for id derivation) and the typed value (for checks). */
export interface ParsedFile<T> {
  raw: JsonValue;
  data: T | undefined;
  /** How many number tokens were not safe integer tokens (ids are not re-derived over such numbers). */
  nonIntegerTokens: number;
}

/**
 * Parses a JSON file strictly and checks it against a schema. With
 * `integerTokens`, every number must be an integer token with |n| <= 2^53 - 1
 * (plan.json, manifest.json: FORMAT.md section 1).
 */
export function parseJsonFile<T>(
  ctx: VerifyContext,
  path: string,
  bytes: Uint8Array,
  schema: z.ZodType<T>,
  integerTokens: boolean,
): ParsedFile<T> | undefined {
  const parsed = parseStrictJson(bytes, { maxStringBytes: ctx.stringBytes });
  if (!parsed.ok) {
    if (parsed.error.kind === 'string-over-limit') {
      reportLongString(ctx, path, parsed.error);
      return undefined;
    }
    const { message, line, column, kind } = parsed.error;
    // In plan.json and manifest.json any number that is not a safe integer token is SCHEMA_VIOLATION (FORMAT.md 1).
    const code = integerTokens && kind === 'number-out-of-range' ? 'SCHEMA_VIOLATION' : 'BAD_JSON';
    addFinding(ctx, code, path, `line ${line}, column ${column}: ${message}`, line);
    return undefined;
  }
  if (integerTokens) {
    for (const { token, line, column } of parsed.nonIntegerTokens) {
      const why = token === '-0' ? 'is not allowed (jq prints -0 where RFC 8785 writes 0, so the two would hash differently)' : 'is not an integer token with |n| <= 2^53 - 1';
      addFinding(ctx, 'SCHEMA_VIOLATION', path, `line ${line}, column ${column}: number ${token} ${why}`, line);
    }
  }
  return { raw: parsed.value, data: checkSchema(ctx, path, parsed.value, schema), nonIntegerTokens: parsed.nonIntegerTokens.length };
}

/**
 * Parses JSONL strictly, line by line; returns the valid typed lines and
 * whether every line was valid. Each line is parsed and checked before the
 * next is read, and only its typed value is kept (for a line the schema
 * accepts, the parsed object itself: see checkSchema), so a million-line file
 * never holds two copies of every record.
 */
export function parseJsonlFile<T>(
  ctx: VerifyContext,
  path: string,
  bytes: Uint8Array,
  schema: z.ZodType<T>,
): { lines: { line: number; data: T }[]; complete: boolean; lineCount: number } {
  const { records, complete, lineCount } = parseJsonlRecords(ctx, path, bytes, schema, (line, data) => ({ line, data }));
  return { lines: records, complete, lineCount };
}

/** {@link parseJsonlFile}, keeping for each valid line only what `keep` makes of it (one object per record, not two). */
export function parseJsonlRecords<T, R>(
  ctx: VerifyContext,
  path: string,
  bytes: Uint8Array,
  schema: z.ZodType<T>,
  keep: (line: number, data: T) => R,
): { records: R[]; complete: boolean; lineCount: number } {
  const records: R[] = [];
  const { complete, lineCount } = forEachJsonlRecord(ctx, path, bytes, schema, (line, data) => {
    records.push(keep(line, data));
  });
  return { records, complete, lineCount };
}

/**
 * Parses JSONL strictly, line by line, handing each valid typed line to
 * `visit` as soon as it is checked, and keeping nothing: what survives is
 * what `visit` keeps. Parse and schema findings are reported as they come,
 * in line order. Returns whether every line was valid, and the line count.
 */
export function forEachJsonlRecord<T>(
  ctx: VerifyContext,
  path: string,
  bytes: Uint8Array,
  schema: z.ZodType<T>,
  visit: (line: number, data: T) => void,
): { complete: boolean; lineCount: number } {
  let complete = true;
  const lineCount = forEachStrictJsonlLine(
    bytes,
    (entry) => {
      if (!entry.ok) {
        complete = false;
        if (entry.error.kind === 'string-over-limit') reportLongString(ctx, path, entry.error, entry.line);
        else addFinding(ctx, 'BAD_JSON', path, `line ${entry.line}, column ${entry.error.column}: ${entry.error.message}`, entry.line);
        return;
      }
      const data = checkSchema(ctx, path, entry.value, schema, entry.line);
      if (data === undefined) complete = false;
      else visit(entry.line, data);
    },
    { maxStringBytes: ctx.stringBytes },
  );
  return { complete, lineCount };
}

/** Longest member name shown in the field path of a LIMIT_EXCEEDED finding (a longer one is cut, with its length). */
const FIELD_NAME_SHOWN = 64;

/**
 * LIMIT_EXCEEDED for a string over limits.string_bytes: the file, the line
 * (JSONL), the field path (`title`, `results[3].attempt_id`; a member name
 * is named by the object holding it) and the limit. The string itself is
 * never quoted, and long member names on the path are cut.
 */
function reportLongString(ctx: VerifyContext, path: string, error: JsonSyntaxError, line?: number): void {
  const long = error.string!;
  const names = long.path.map((key) => (typeof key === 'string' && key.length > FIELD_NAME_SHOWN ? `${key.slice(0, FIELD_NAME_SHOWN)}... (${key.length} characters)` : key));
  const where = formatJsonPath(names);
  const field = long.memberName ? `a member name in ${where}` : where;
  const at = `${line === undefined ? `line ${error.line}` : `line ${line}`}, column ${error.column}`;
  ctx.findings.push(finding('LIMIT_EXCEEDED', path, limitMessage({ path, limit: 'string_bytes', value: ctx.stringBytes, actual: long.bytes, field: `${field}, ${at}` }), line));
}

/**
 * Checks a value against a strict schema; every issue becomes a finding. When
 * the only issues are unknown members, the value is still returned with them
 * removed, so later checks run (the unknown members are already errors).
 */
export function checkSchema<T>(
  ctx: VerifyContext,
  path: string,
  value: JsonValue,
  schema: z.ZodType<T>,
  line?: number,
): T | undefined {
  const fast = compiled(schema);
  // The evidence schemas only validate (no default, transform or catch: test/schema/no-copy.test.ts), so
  // for a value they accept, parsing would only return a copy of it (members in the schema's order): the
  // value itself is the typed value. Only a value they reject is parsed, for zod's issues.
  if (fast.validate(value)) return value as T;
  const result = fast.safeParse(value);
  if (result.success) return result.data;
  let onlyUnknown = true;
  const prefix = line === undefined ? '' : `line ${line}: `;
  for (const issue of result.error.issues) {
    const where = formatJsonPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const names = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      addFinding(ctx, 'UNKNOWN_MEMBER', path, `${prefix}${where}: unknown member${issue.keys.length > 1 ? 's' : ''} ${names}`, line);
    } else {
      onlyUnknown = false;
      addFinding(ctx, 'SCHEMA_VIOLATION', path, `${prefix}${where}: ${issue.message}`, line);
    }
  }
  if (!onlyUnknown) return undefined;
  const stripped = stripMembers(value, result.error.issues);
  const retry = fast.safeParse(stripped);
  return retry.success ? retry.data : undefined;
}

const compiledSchemas = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema compiled by zod itself (`z.compile`): the same schema, run
 * through generated code on the happy path; any input the fast path rejects
 * is parsed again by zod's runtime parser, so issues and messages are zod's
 * own. A schema zod cannot compile is returned as it is. Compiled once per
 * schema (attempts are checked by the million).
 */
export function compiled<T>(schema: z.ZodType<T>): z.ZodType<T> {
  let fast = compiledSchemas.get(schema) as z.ZodType<T> | undefined;
  if (fast === undefined) {
    fast = z.compile(schema);
    compiledSchemas.set(schema, fast);
  }
  return fast;
}

function stripMembers(value: JsonValue, issues: readonly z.core.$ZodIssue[]): JsonValue {
  const copy = structuredClone(value);
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    let target: unknown = copy;
    for (const key of issue.path) target = (target as Record<PropertyKey, unknown> | undefined)?.[key];
    if (target && typeof target === 'object') {
      for (const key of issue.keys) delete (target as Record<string, unknown>)[key];
    }
  }
  return copy;
}
