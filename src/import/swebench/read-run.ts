/**
 * Finds the files of one SWE-bench run in a directory input, by content and
 * layout (never by a path written inside a file), and parses them strictly:
 *
 * - the predictions: a JSONL file whose lines carry `instance_id`,
 *   `model_name_or_path` and `model_patch` (`all_preds.jsonl`, `preds.jsonl`);
 * - the aggregate: the harness's run report `<model>.<run_id>.json` (it holds
 *   `resolved_ids`), or an experiments `results/results.json` (id lists such
 *   as `resolved`, `no_generation`, `no_logs`); at most one of them;
 * - the per-instance reports: `report.json` objects `{<instance_id>: {resolved, patch_successfully_applied, tests_status}}`,
 *   each in a folder named after its instance (harness:
 *   `logs/run_evaluation/<run_id>/<model>/<instance_id>/report.json`;
 *   experiments: `logs/<instance_id>/report.json`).
 *
 * Every other file (test logs, eval scripts, patches, metadata.yaml, other
 * JSON) is not part of the mapping. Every failure is an ImportError.
 */
import { parseStrictJson, parseStrictText, type JsonValue } from '../../json/strict-json.ts';
import { decodeUtf8 } from '../../json/strict-json.ts';
import type { z } from 'zod';
import { ImportError, ImportLimitError } from '../errors.ts';
import { boundedString } from '../common.ts';
import type { ImportInput } from '../input-shape.ts';
import type { ImportLimits } from '../limits.ts';
import { describeIssue, ExperimentsResults, InstanceReport, Prediction, RunReport } from './schema.ts';

/** Nesting limit of SWE-bench documents (reports nest 5 deep). */
const MAX_DEPTH = 64;

export interface PredictionsFile {
  path: string;
  bytes: Uint8Array;
  /** In file order. */
  lines: Prediction[];
}

export type Aggregate =
  | { kind: 'run-report'; path: string; bytes: Uint8Array; report: RunReport }
  | { kind: 'experiments-results'; path: string; bytes: Uint8Array; results: ExperimentsResults };

export interface ReportFile {
  path: string;
  bytes: Uint8Array;
  instanceId: string;
  report: InstanceReport;
}

/** One run, as read. */
export interface SweRun {
  predictions: PredictionsFile | null;
  aggregate: Aggregate | null;
  /** By instance id. */
  reports: Map<string, ReportFile>;
}

function isObject(value: JsonValue | undefined): value is { [member: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shown(path: string): string {
  return JSON.stringify(path.slice(0, 200));
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ImportError(`${what} is not of the SWE-bench shape: ${describeIssue(result.error)}`);
  return result.data;
}

/** The first non-whitespace byte, or -1. */
function firstByte(bytes: Uint8Array): number {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return b;
  return -1;
}

/** The first line's text (up to 64 KiB), for recognising a predictions JSONL without parsing the whole file. */
function firstLine(bytes: Uint8Array): string | null {
  const end = bytes.indexOf(0x0a);
  const slice = bytes.subarray(0, end === -1 ? bytes.length : end);
  if (slice.length > 64 * 1024 && end === -1) return null;
  const decoded = decodeUtf8(slice);
  return decoded.ok ? decoded.text : null;
}

/** True when the first line is a prediction object (the harness's three members). */
function looksLikePredictions(bytes: Uint8Array): boolean {
  const line = firstLine(bytes);
  if (line === null) return false;
  const parsed = parseStrictText(line, { maxDepth: MAX_DEPTH });
  return parsed.ok && isObject(parsed.value) && 'instance_id' in parsed.value && 'model_patch' in parsed.value && 'model_name_or_path' in parsed.value;
}

/** What a JSON document is, by its members. */
function kindOf(value: JsonValue): 'run-report' | 'experiments-results' | 'instance-report' | null {
  if (!isObject(value)) return null;
  // A SWE-bench run report lists resolved ids beside the submitted or empty-patch ids; a Terminal-Bench 1 results.json
  // also has resolved_ids, but with a per-trial "results" list and neither of those.
  if (Array.isArray(value.resolved_ids) && (Array.isArray(value.submitted_ids) || Array.isArray(value.empty_patch_ids)) && !Array.isArray(value.results)) return 'run-report';
  const entries = Object.entries(value);
  if (Array.isArray(value.resolved) && entries.every(([, v]) => Array.isArray(v))) return 'experiments-results';
  if (entries.length === 1) {
    const inner = entries[0]![1];
    if (isObject(inner) && 'resolved' in inner && ('patch_successfully_applied' in inner || 'tests_status' in inner)) return 'instance-report';
  }
  return null;
}

/** The kind of one file, judged from its bytes; null for a file that is none of the run's files. */
export function classify(bytes: Uint8Array): { kind: 'predictions' } | { kind: 'run-report' | 'experiments-results' | 'instance-report'; value: JsonValue } | null {
  if (firstByte(bytes) !== 0x7b /* { */) return null;
  if (looksLikePredictions(bytes)) return { kind: 'predictions' };
  const parsed = parseStrictJson(bytes, { maxDepth: MAX_DEPTH });
  if (!parsed.ok) return null;
  const kind = kindOf(parsed.value);
  return kind === null ? null : { kind, value: parsed.value };
}

/** Parses a predictions JSONL strictly, line by line. */
function readPredictions(path: string, bytes: Uint8Array, limits: ImportLimits): PredictionsFile {
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) throw new ImportError(`the predictions file ${shown(path)} is not UTF-8 text: ${decoded.error.message}`);
  const text = decoded.text.endsWith('\n') ? decoded.text.slice(0, -1) : decoded.text;
  const raw = text.split('\n');
  if (raw.length > limits.maxRecords) throw new ImportLimitError(`the predictions file holds ${raw.length} lines, more than the ${limits.maxRecords} records an import reads (import_limits.maxRecords)`, 'maxRecords');
  const lines: Prediction[] = [];
  const seen = new Set<string>();
  raw.forEach((line, i) => {
    const at = `line ${i + 1} of the predictions file ${shown(path)}`;
    if (line.trim() === '') throw new ImportError(`${at} is blank: a predictions JSONL holds one JSON object per line`);
    const parsed = parseStrictText(line, { maxDepth: MAX_DEPTH });
    if (!parsed.ok) throw new ImportError(`${at} is not readable JSON: ${parsed.error.message} (column ${parsed.error.column})`);
    const p = validate(Prediction, parsed.value, at);
    boundedString(p.instance_id, limits.maxStringBytes, `the instance_id on ${at}`);
    boundedString(p.model_name_or_path, limits.maxStringBytes, `the model_name_or_path on ${at}`);
    if (seen.has(p.instance_id)) throw new ImportError(`the predictions hold instance ${JSON.stringify(p.instance_id.slice(0, 200))} twice (${at}): one run has one prediction per instance`);
    seen.add(p.instance_id);
    lines.push(p);
  });
  return { path, bytes, lines };
}

/** The folder a file sits in (its parent directory's name), or '' at the top. */
function parentName(path: string): string {
  const parts = path.split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : '';
}

/**
 * Reads a run directory. Refuses two predictions files, two aggregates, two
 * reports of one instance, a report outside a folder of its instance's name,
 * and a directory with neither predictions nor per-instance reports.
 */
export function readSweRun(input: ImportInput, limits: ImportLimits): SweRun {
  if (input.kind !== 'directory') throw new ImportError('a SWE-bench run is a directory (predictions, run report, logs): give the run directory, not a file');
  let predictions: PredictionsFile | null = null;
  let aggregate: Aggregate | null = null;
  const reports = new Map<string, ReportFile>();
  for (const [path, bytes] of input.files) {
    const found = classify(bytes);
    if (found === null) continue;
    if (found.kind === 'predictions') {
      if (predictions !== null) throw new ImportError(`the directory holds two predictions files (${shown(predictions.path)} and ${shown(path)}): one run has one; keep the one that was evaluated`);
      predictions = readPredictions(path, bytes, limits);
      continue;
    }
    if (found.kind === 'run-report' || found.kind === 'experiments-results') {
      if (aggregate !== null) throw new ImportError(`the directory holds two run reports (${shown(aggregate.path)} and ${shown(path)}): one run directory holds one run`);
      aggregate =
        found.kind === 'run-report'
          ? { kind: 'run-report', path, bytes, report: validate(RunReport, found.value, `the run report ${shown(path)}`) }
          : { kind: 'experiments-results', path, bytes, results: validate(ExperimentsResults, found.value, `the results file ${shown(path)}`) as ExperimentsResults };
      continue;
    }
    const [instanceId, value] = Object.entries(found.value as Record<string, JsonValue>)[0]!;
    boundedString(instanceId, limits.maxStringBytes, `the instance id of the report ${shown(path)}`);
    if (parentName(path) !== instanceId) {
      throw new ImportError(`the report ${shown(path)} is for instance ${JSON.stringify(instanceId.slice(0, 200))} but does not sit in a folder of that name (the harness writes <instance_id>/report.json)`);
    }
    const earlier = reports.get(instanceId);
    if (earlier !== undefined) throw new ImportError(`two reports for instance ${JSON.stringify(instanceId.slice(0, 200))} (${shown(earlier.path)} and ${shown(path)}): one run directory holds one run`);
    if (reports.size >= limits.maxRecords) throw new ImportLimitError(`the directory holds more than ${limits.maxRecords} per-instance reports (import_limits.maxRecords)`, 'maxRecords');
    reports.set(instanceId, { path, bytes, instanceId, report: validate(InstanceReport, value, `the report ${shown(path)}`) });
  }
  if (predictions === null && reports.size === 0) {
    throw new ImportError(
      aggregate === null
        ? 'not a SWE-bench run: the directory holds no predictions JSONL, no run report and no per-instance report.json'
        : 'the directory holds a run report but neither predictions nor per-instance reports: a run report alone is an aggregate, with nothing per instance to import',
    );
  }
  return { predictions, aggregate, reports };
}

/**
 * True when the directory itself is a run directory: a predictions JSONL or a
 * run report among its top-level files, or an experiments results.json in
 * `results/`. Cheap: only those files are looked at. (A directory that merely
 * holds run directories deeper down is not claimed, so `import auto` opens it.)
 */
export function isRunDirectory(input: ImportInput): boolean {
  if (input.kind !== 'directory') return false;
  for (const [path, bytes] of input.files) {
    const depth = path.split('/').length;
    if (depth > 2 || (depth === 2 && !path.startsWith('results/'))) continue;
    const found = classify(bytes);
    if (found === null) continue;
    if (depth === 1 && (found.kind === 'predictions' || found.kind === 'run-report')) return true;
    if (depth === 2 && found.kind === 'experiments-results') return true;
  }
  return false;
}
