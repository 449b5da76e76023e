/**
 * Reading an Every Eval Ever input: a directory holding one aggregate
 * (`<uuid>.json`, EvaluationLog) and the instance-level sidecar it references
 * by `detailed_evaluation_results.file_path` (`<uuid>_samples.jsonl`, one
 * InstanceLevelEvaluationLog row per line).
 *
 * The reference is resolved only inside the input's own files (relative path
 * -> bytes): a reference that is absolute, holds `..`, `.` or an empty
 * segment, or a backslash is refused before anything is looked up, so the
 * import never reads outside its input. The sidecar's checksum and row count
 * are re-derived from its bytes and compared with what the aggregate
 * declares. Every document is parsed once, strictly (duplicate member names,
 * invalid UTF-8, lone surrogates refuse the input with a line and column),
 * and every mapped member is validated with a zod schema.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { parseStrictJson, type JsonValue } from '../../json/strict-json.ts';
import { ImportError, ImportLimitError } from '../errors.ts';
import type { ImportInput } from '../input-shape.ts';
import { boundedString } from '../text.ts';
import { plainPathOf } from './plain-name.ts';
import { describeIssue, EeeAggregate, EeeRow, type EeeDetailed } from './schema.ts';

/** Nesting limit for EEE documents (transcripts nest deeper than evidence files may). */
export const EEE_MAX_DEPTH = 256;

/** The aggregate, where it sits in the input, and its bytes. */
export interface EeeAggregateFile {
  path: string;
  bytes: Uint8Array;
  aggregate: EeeAggregate;
}

/** The sidecar as read: where, its bytes, its rows (line order) and what its reference did not declare. */
export interface EeeSidecar {
  path: string;
  bytes: Uint8Array;
  rows: EeeRow[];
  /** The checksum the aggregate records was not there to check. */
  noChecksum: boolean;
  /** total_rows was not declared. */
  noRowCount: boolean;
  /** The sidecar was found under the plain name of the one the aggregate references (plain-name.ts), not under that name itself. */
  plainName: boolean;
}

function parse(bytes: Uint8Array, what: string): JsonValue {
  const parsed = parseStrictJson(bytes, { maxDepth: EEE_MAX_DEPTH });
  if (!parsed.ok) {
    const { message, line, column } = parsed.error;
    throw new ImportError(`${what} is not readable JSON: ${message} (line ${line}, column ${column})`);
  }
  return parsed.value;
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ImportError(`${what} does not match the Every Eval Ever schema: ${describeIssue(result.error)}`);
  return result.data;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first byte that is not JSON whitespace, or -1. */
function firstByte(bytes: Uint8Array): number {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  return -1;
}

const MARKER = Buffer.from('"evaluation_results"', 'utf8');

/**
 * True when a file's bytes look like an EEE aggregate: one JSON object with
 * string `schema_version` and `evaluation_id` and an `evaluation_results`
 * array. Never throws: what `import auto` and the aggregate search use.
 */
export function looksLikeAggregate(bytes: Uint8Array): boolean {
  if (firstByte(bytes) !== 0x7b) return false;
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(MARKER) === -1) return false;
  const parsed = parseStrictJson(bytes, { maxDepth: EEE_MAX_DEPTH });
  if (!parsed.ok || !isObject(parsed.value)) return false;
  const v = parsed.value;
  return typeof v.schema_version === 'string' && typeof v.evaluation_id === 'string' && Array.isArray(v.evaluation_results);
}

/** The relative paths of the input's files that look like aggregates, in byte order. */
export function aggregatePaths(files: ReadonlyMap<string, Uint8Array>): string[] {
  return [...files].filter(([, bytes]) => looksLikeAggregate(bytes)).map(([path]) => path);
}

/** The one aggregate of an input, parsed and validated; an ImportError when there is none or several. */
export function readAggregate(input: ImportInput): EeeAggregateFile {
  if (input.kind !== 'directory') {
    throw new ImportError('an Every Eval Ever input is a directory holding the aggregate .json and its samples .jsonl sidecar: give the directory, not a file');
  }
  // A .json naming "evaluation_results" is read as a possible aggregate: one that does not parse is refused with its reason, never passed over.
  for (const [path, bytes] of input.files) {
    if (!path.endsWith('.json') || firstByte(bytes) !== 0x7b || Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(MARKER) === -1) continue;
    parse(bytes, `the file ${JSON.stringify(path.slice(0, 200))} (a possible aggregate: it names "evaluation_results")`);
  }
  const paths = aggregatePaths(input.files);
  if (paths.length === 0) throw new ImportError('the directory holds no Every Eval Ever aggregate (a JSON object with schema_version, evaluation_id and evaluation_results)');
  if (paths.length > 1) {
    throw new ImportError(`the directory holds ${paths.length} Every Eval Ever aggregates: give a directory that holds one aggregate and its sidecar`);
  }
  const path = paths[0]!;
  const bytes = input.files.get(path)!;
  return { path, bytes, aggregate: validate(EeeAggregate, parse(bytes, 'the aggregate'), 'the aggregate') };
}

/** Why a sidecar reference is not a plain relative path inside the input, or null when it is one. */
export function unsafeReference(ref: string): string | null {
  if (ref === '') return 'it is empty';
  if (ref.startsWith('/') || /^[A-Za-z]:/.test(ref)) return 'it is absolute';
  if (ref.includes('\\')) return 'it holds a backslash';
  if (ref.includes('\u0000')) return 'it holds a NUL';
  if (ref.split('/').some((s) => s === '..')) return 'it climbs out with ".."';
  if (ref.split('/').some((s) => s === '' || s === '.')) return 'it holds an empty or "." segment';
  return null;
}

/**
 * Where the sidecar is in the input: the reference as a path from the input's
 * root (the datastore layout, `data/<benchmark>/<developer>/<model>/<uuid>_samples.jsonl`,
 * or `instance_level_data/...` in the repository's own early files), else the
 * file of the reference's name beside the aggregate (a model directory
 * downloaded on its own). Candidates in that order; null when neither exists.
 */
export function sidecarCandidates(aggregatePath: string, ref: string): string[] {
  const slash = aggregatePath.lastIndexOf('/');
  const dir = slash === -1 ? '' : aggregatePath.slice(0, slash + 1);
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return [...new Set([ref, `${dir}${name}`])];
}

/**
 * The same two places under their plain names (plain-name.ts), where the
 * reference's own names are not plain: where the sidecar of an ollama model
 * (`...qwen2.5:0.5b...jsonl`) is in a bundle's kept originals, or where its
 * user put it. Candidates that are sidecarCandidates already are left out.
 */
export function plainSidecarCandidates(aggregatePath: string, ref: string): string[] {
  const literal = sidecarCandidates(aggregatePath, ref);
  const plain = literal.map(plainPathOf).filter((p): p is string => p !== null);
  return [...new Set(plain)].filter((p) => !literal.includes(p));
}

/** The lower-case hex digest of bytes by the aggregate's algorithm. */
function hexDigest(algorithm: 'sha256' | 'md5', bytes: Uint8Array): string {
  return createHash(algorithm).update(bytes).digest('hex');
}

/** The algorithm and expected hex of the aggregate's checksum, or null when it records none. */
function expectedChecksum(detailed: EeeDetailed): { algorithm: 'sha256' | 'md5'; hex: string } | null {
  if (detailed.checksum === undefined) return null;
  const hex = detailed.checksum.replace(/^(?:sha256|md5):/, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(hex)) throw new ImportError(`the aggregate's sidecar checksum ${JSON.stringify(detailed.checksum.slice(0, 80))} is not a hex digest`);
  const algorithm = detailed.hash_algorithm ?? (hex.length === 64 ? 'sha256' : hex.length === 32 ? 'md5' : null);
  if (algorithm !== 'sha256' && algorithm !== 'md5') {
    throw new ImportError(`the aggregate's hash_algorithm ${JSON.stringify(String(algorithm).slice(0, 40))} is not sha256 or md5: the sidecar cannot be checked`);
  }
  if (hex.length !== (algorithm === 'sha256' ? 64 : 32)) throw new ImportError(`the aggregate's sidecar checksum is not a ${algorithm} digest (${hex.length} hex digits)`);
  return { algorithm, hex };
}

/**
 * The sidecar the aggregate references: resolved inside the input, its
 * checksum and row count re-derived and compared (a mismatch refuses the
 * input, naming both), its rows parsed line by line (a bad line refuses the
 * input with its line number), at most `maxRecords` rows.
 */
export function readSidecar(input: ImportInput, agg: EeeAggregateFile, maxRecords: number, maxStringBytes = Number.MAX_SAFE_INTEGER): EeeSidecar {
  const detailed = agg.aggregate.detailed_evaluation_results;
  if (detailed === undefined || detailed === null) {
    throw new ImportError(
      'the aggregate holds no instance-level data (no detailed_evaluation_results): its scores are aggregates, and an aggregate cannot make attempts; import an evaluation published with its samples sidecar',
    );
  }
  boundedString(detailed.file_path, maxStringBytes, "the aggregate's sidecar reference (detailed_evaluation_results.file_path)");
  if (detailed.format !== 'jsonl') throw new ImportError(`the aggregate's detailed_evaluation_results.format is ${JSON.stringify(detailed.format.slice(0, 40))}, not "jsonl"`);
  const unsafe = unsafeReference(detailed.file_path);
  if (unsafe !== null) {
    throw new ImportError(`the aggregate's sidecar reference (detailed_evaluation_results.file_path) is refused: ${unsafe}; an import only reads files inside its input`);
  }
  const candidates = sidecarCandidates(agg.path, detailed.file_path);
  const plainCandidates = plainSidecarCandidates(agg.path, detailed.file_path);
  const found = candidates.find((c) => c !== agg.path && input.files.has(c));
  const foundPlain = plainCandidates.find((c) => c !== agg.path && input.files.has(c));
  if (found !== undefined && foundPlain !== undefined) {
    // Two files could be the sidecar: which one the aggregate means depends on a rename the input does not record.
    throw new ImportError(
      `the input holds both ${JSON.stringify(found.slice(0, 200))}, the sidecar the aggregate references, and ${JSON.stringify(foundPlain.slice(0, 200))}, the plain name it is kept under: remove one of them`,
    );
  }
  const path = found ?? foundPlain;
  if (path === undefined) {
    const looked = [...candidates, ...plainCandidates].map((c) => JSON.stringify(c.slice(0, 200)));
    throw new ImportError(
      `the sidecar the aggregate references is not in the input (looked for ${looked.slice(0, -1).join(', ')}${looked.length > 1 ? ' and ' : ''}${looked.at(-1)}): give the directory that holds both`,
    );
  }
  const bytes = input.files.get(path)!;
  const expected = expectedChecksum(detailed);
  if (expected !== null) {
    const actual = hexDigest(expected.algorithm, bytes);
    if (actual !== expected.hex) {
      throw new ImportError(`the sidecar's ${expected.algorithm} is ${actual}, but the aggregate records ${expected.hex}: the sidecar is not the file the aggregate was made with`);
    }
  }
  const rows = readRows(bytes, maxRecords);
  if (detailed.total_rows !== undefined && detailed.total_rows !== rows.length) {
    throw new ImportError(`the aggregate declares total_rows ${detailed.total_rows}, but the sidecar holds ${rows.length} rows`);
  }
  return { path, bytes, rows, noChecksum: expected === null, noRowCount: detailed.total_rows === undefined, plainName: found === undefined };
}

/** The rows of a JSONL sidecar: one object per line; a final newline is allowed, a blank line is not. */
export function readRows(bytes: Uint8Array, maxRecords: number): EeeRow[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rows: EeeRow[] = [];
  let start = 0;
  let line = 0;
  while (start < buf.length) {
    line++;
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl;
    if (end === start) throw new ImportError(`the sidecar's line ${line} is blank: a JSONL row per line, no blank lines`);
    if (rows.length >= maxRecords) throw new ImportLimitError(`the sidecar holds more than ${maxRecords} rows (import_limits.maxRecords)`, 'maxRecords');
    const value = parse(buf.subarray(start, end), `the sidecar's line ${line}`);
    if (!isObject(value)) throw new ImportError(`the sidecar's line ${line} is not a JSON object`);
    rows.push(validate(EeeRow, value, `the sidecar's line ${line}`));
    start = end + 1;
  }
  if (rows.length === 0) throw new ImportError('the sidecar holds no rows: there is nothing to import; a plan needs at least one task (FORMAT.md section 3)');
  return rows;
}
