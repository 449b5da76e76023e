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
 * Where a file sits decides whether it is read at all (placeOf): a `.jsonl`
 * or `.json` file at the top of the directory, `results/results.json`, and
 * files named `report.json` below the top. Every file read there is parsed
 * strictly, and one that does not parse (a duplicate member, a NaN, invalid
 * UTF-8, truncated) refuses the import with its name, line and reason: it is
 * never skipped as "not a run file", which would import the run without it.
 * Every other file (test logs, eval scripts, patches, metadata.yaml, JSON
 * elsewhere) is not read. Every failure is an ImportError.
 */
import { decodeUtf8, parseStrictJson, parseStrictText, type JsonValue } from '../../json/strict-json.ts';
import { replaceNonFinite } from '../source-json.ts';
import type { z } from 'zod';
import { ImportError, ImportLimitError } from '../errors.ts';
import { boundedString } from '../text.ts';
import type { ImportInput } from '../input-shape.ts';
import type { ImportLimits } from '../limits.ts';
import { readMetadata, type SubmissionMetadata } from './metadata.ts';
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
  /** An experiments submission's `metadata.yaml` at the top: read (and kept) only when there is no predictions file, for the subject. */
  metadata: SubmissionMetadata | null;
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
    if (!parsed.ok) throw new ImportError(`${at} is not readable JSON: ${parsed.error.message} (column ${parsed.error.column})${nonFiniteHint(Buffer.from(line, 'utf8'))}`);
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
 * Where a run's file may sit, by its relative path: a JSONL at the top (the
 * predictions' place), a JSON file at the top (the run report's),
 * `results/results.json` (the experiments aggregate's), a `report.json`
 * below the top (a per-instance report's); null for every other file, which
 * is not read.
 */
export type Place = 'top-jsonl' | 'top-json' | 'results' | 'report';

export function placeOf(path: string): Place | null {
  const parts = path.split('/');
  const name = parts[parts.length - 1]!;
  if (parts.length === 1) return name.endsWith('.jsonl') ? 'top-jsonl' : name.endsWith('.json') ? 'top-json' : null;
  if (path === 'results/results.json') return 'results';
  return name === 'report.json' ? 'report' : null;
}

/** What a file is called in a refusal, by its place. */
function described(path: string, place: Place): string {
  switch (place) {
    case 'top-jsonl':
      return `the JSONL file ${shown(path)} at the top of the run directory (where the predictions are read from)`;
    case 'top-json':
      return `the JSON file ${shown(path)} at the top of the run directory (where the run report is read from)`;
    case 'results':
      return `the results file ${shown(path)}`;
    case 'report':
      return `the report ${shown(path)}`;
  }
}

/** Why a document that does not parse does not: the parser's reason, where, and a word on Python's non-finite tokens when it holds one. */
function unreadable(what: string, bytes: Uint8Array, error: { message: string; line: number; column: number }): ImportError {
  return new ImportError(`${what} is not readable JSON: ${error.message} (line ${error.line}, column ${error.column})${nonFiniteHint(bytes)}`);
}

/** Said after the parser's reason when the text holds Python's NaN or Infinity outside strings. */
function nonFiniteHint(bytes: Uint8Array): string {
  return replaceNonFinite(bytes).count > 0 ? ': it holds NaN or Infinity (as Python writes a non-finite float), which is not JSON' : '';
}

/** Parses a JSON file the importer chose to read; a file that does not parse refuses the import. */
function parseChosen(path: string, bytes: Uint8Array, place: Place): JsonValue {
  const parsed = parseStrictJson(bytes, { maxDepth: MAX_DEPTH });
  if (!parsed.ok) throw unreadable(described(path, place), bytes, parsed.error);
  return parsed.value;
}

/**
 * The first line of a JSONL at the top, parsed strictly (a line that does not
 * parse refuses the import: it is read to tell a predictions file, and is
 * one); null for an empty file.
 */
function firstLineOf(path: string, bytes: Uint8Array): JsonValue | null {
  if (bytes.length === 0) return null;
  const end = bytes.indexOf(0x0a);
  const line = bytes.subarray(0, end === -1 ? bytes.length : end);
  const what = `line 1 of ${described(path, 'top-jsonl')}`;
  const decoded = decodeUtf8(line);
  if (!decoded.ok) throw new ImportError(`${what} is not UTF-8 text: ${decoded.error.message}`);
  const parsed = parseStrictText(decoded.text, { maxDepth: MAX_DEPTH });
  if (!parsed.ok) throw unreadable(what, line, parsed.error);
  return parsed.value;
}

/** A per-instance report (a `report.json` below the top): one member, the instance id, whose value is the report. */
function readReport(path: string, value: JsonValue, limits: ImportLimits): { instanceId: string; report: InstanceReport } {
  const entries = isObject(value) ? Object.entries(value) : [];
  if (entries.length !== 1) {
    throw new ImportError(`the report ${shown(path)} is not a per-instance report of the SWE-bench shape: it must be an object of one member, the instance id, whose value is the report`);
  }
  const [instanceId, inner] = entries[0]!;
  boundedString(instanceId, limits.maxStringBytes, `the instance id of the report ${shown(path)}`);
  return { instanceId, report: validate(InstanceReport, inner, `the report ${shown(path)}`) };
}

/**
 * Reads a run directory: only the files at a run file's place (placeOf), each
 * parsed strictly. Refuses a file there that does not parse, two predictions
 * files, two aggregates, two reports of one instance, a report outside a
 * folder of its instance's name, and a directory with neither predictions nor
 * per-instance reports (an experiments results.json alone too, after its
 * metadata.yaml is parsed: resultsOnlyRefusal). A JSON file at the top that parses and is neither a
 * run report nor an experiments results object is not part of the run.
 */
export function readSweRun(input: ImportInput, limits: ImportLimits): SweRun {
  if (input.kind !== 'directory') throw new ImportError('a SWE-bench run is a directory (predictions, run report, logs): give the run directory, not a file');
  let predictions: PredictionsFile | null = null;
  let aggregate: Aggregate | null = null;
  const reports = new Map<string, ReportFile>();
  const setAggregate = (next: Aggregate) => {
    if (aggregate !== null) throw new ImportError(`the directory holds two run reports (${shown(aggregate.path)} and ${shown(next.path)}): one run directory holds one run`);
    // Its ids become task ids (without predictions): bounded like every id the import keeps.
    for (const [member, ids] of Object.entries(next.kind === 'run-report' ? next.report : next.results)) {
      if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'string') boundedString(id, limits.maxStringBytes, `an instance id in ${member} of ${shown(next.path)}`);
    }
    aggregate = next;
  };
  const addReport = (path: string, bytes: Uint8Array, value: JsonValue) => {
    const { instanceId, report } = readReport(path, value, limits);
    if (parentName(path) !== instanceId) {
      throw new ImportError(`the report ${shown(path)} is for instance ${JSON.stringify(instanceId.slice(0, 200))} but does not sit in a folder of that name (the harness writes <instance_id>/report.json)`);
    }
    const earlier = reports.get(instanceId);
    if (earlier !== undefined) throw new ImportError(`two reports for instance ${JSON.stringify(instanceId.slice(0, 200))} (${shown(earlier.path)} and ${shown(path)}): one run directory holds one run`);
    if (reports.size >= limits.maxRecords) throw new ImportLimitError(`the directory holds more than ${limits.maxRecords} per-instance reports (import_limits.maxRecords)`, 'maxRecords');
    reports.set(instanceId, { path, bytes, instanceId, report });
  };
  for (const [path, bytes] of input.files) {
    const place = placeOf(path);
    if (place === null) continue;
    if (place === 'top-jsonl') {
      const first = firstLineOf(path, bytes);
      // A JSONL whose first line is not a record of an instance is not a predictions file (a trajectory, another tool's log).
      if (!isObject(first) || !Object.hasOwn(first, 'instance_id')) continue;
      if (predictions !== null) throw new ImportError(`the directory holds two predictions files (${shown(predictions.path)} and ${shown(path)}): one run has one; keep the one that was evaluated`);
      predictions = readPredictions(path, bytes, limits);
      continue;
    }
    const value = parseChosen(path, bytes, place);
    if (place === 'results') {
      setAggregate({ kind: 'experiments-results', path, bytes, results: validate(ExperimentsResults, value, `the results file ${shown(path)}`) });
      continue;
    }
    if (place === 'report') {
      addReport(path, bytes, value);
      continue;
    }
    // A JSON file at the top: the run report, an experiments results object, or (misplaced) a per-instance report, by its members.
    const kind = kindOf(value);
    if (kind === 'run-report') setAggregate({ kind, path, bytes, report: validate(RunReport, value, `the run report ${shown(path)}`) });
    else if (kind === 'experiments-results') setAggregate({ kind, path, bytes, results: validate(ExperimentsResults, value, `the results file ${shown(path)}`) });
    else if (kind === 'instance-report') addReport(path, bytes, value);
  }
  // The aggregate found (TypeScript does not follow the closure's assignment).
  const found = aggregate as Aggregate | null;
  if (predictions === null && reports.size === 0 && found?.kind !== 'experiments-results') {
    throw new ImportError(
      found === null
        ? 'not a SWE-bench run: the directory holds no predictions JSONL, no run report and no per-instance report.json'
        : 'the directory holds a run report but neither predictions nor per-instance reports: a run report alone is an aggregate, with nothing per instance to import',
    );
  }
  // Without predictions metadata.yaml names the subject: parsed strictly (and refused with its line) before anything else is decided.
  const metadataBytes = input.files.get('metadata.yaml');
  const metadata = predictions === null && metadataBytes !== undefined ? readMetadata('metadata.yaml', metadataBytes, limits) : null;
  if (predictions === null && reports.size === 0) throw new ImportError(resultsOnlyRefusal(found!.path));
  return { predictions, aggregate: found, reports, metadata };
}

/**
 * Why an experiments results.json alone (with or without metadata.yaml) is
 * refused (issue 26): it lists the resolved instances and those without a
 * generation or logs, never the ones it did not resolve, so the instances
 * evaluated (the rate's denominator) are not in the directory. Importing the
 * listed ids made a run of 442 resolved of 500 read 442 of 447.
 */
export function resultsOnlyRefusal(path: string): string {
  return (
    `the submission holds ${shown(path)} but no predictions and no per-instance report.json: results.json lists instance ids by outcome (resolved, no_generation, no_logs), ` +
    'and the instances it did not resolve are not listed, so the denominator is unknown (the source divides by the whole split, which no file here lists); ' +
    "add the submission's all_preds.jsonl (its predictions) or the logs/<instance_id>/report.json files"
  );
}

/**
 * True when the directory itself is a run directory: a predictions JSONL or a
 * run report among its top-level files, or an experiments
 * `results/results.json`. Cheap: only those files are looked at. Never throws
 * for a file that does not parse (that is said when it is imported). (A directory that merely
 * holds run directories deeper down is not claimed, so `import auto` opens it.)
 */
export function isRunDirectory(input: ImportInput): boolean {
  if (input.kind !== 'directory') return false;
  for (const [path, bytes] of input.files) {
    const place = placeOf(path);
    if (place === null || place === 'report') continue;
    const found = classify(bytes);
    if (found === null) continue;
    if ((place === 'top-jsonl' && found.kind === 'predictions') || (place === 'top-json' && found.kind === 'run-report') || (place === 'results' && found.kind === 'experiments-results')) return true;
  }
  return false;
}
