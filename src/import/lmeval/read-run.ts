/**
 * Reads an lm-evaluation-harness output directory (the folder `--output_path`
 * gives one model: `results_<timestamp>.json` and, with `--log_samples`, one
 * `samples_<task>_<timestamp>.jsonl` per task), strictly, from its relative
 * paths and bytes. Only files at the top of the directory are run files;
 * file names only select what to read (the task of a samples file is its
 * name between `samples_` and `_<timestamp>.jsonl`, as lm-eval writes it).
 */
import type { z } from 'zod';
import type { JsonValue } from '../../json/strict-json.ts';
import { compareUtf8 } from '../../json/compare.ts';
import { ImportError, ImportLimitError } from '../errors.ts';
import type { ImportInput } from '../input-shape.ts';
import type { ImportLimits } from '../limits.ts';
import { parseSourceJson } from '../source-json.ts';
import { describeIssue, LmEvalResults, LmEvalSample } from './schema.ts';

/** One parsed line of a samples file. */
export interface SampleLine {
  /** 1-based line number in its file. */
  line: number;
  sample: LmEvalSample;
  /** The whole line as parsed (its metric values are top-level members). */
  raw: { [member: string]: JsonValue };
}

/** The samples of one task. */
export interface TaskSamples {
  task: string;
  /** Relative path of its samples file in the input. */
  path: string;
  bytes: Uint8Array;
  lines: SampleLine[];
}

/** A read run: the results file, its samples files, and what was not read. */
export interface LmEvalRun {
  resultsPath: string;
  resultsBytes: Uint8Array;
  results: LmEvalResults;
  /** The results document as parsed (for members mapped only as raw values into digests). */
  rawResults: { [member: string]: JsonValue };
  /** The timestamp part of the results file name, shared by its samples files. */
  stamp: string;
  /** One per samples file of the run, by task name (byte order). */
  tasks: TaskSamples[];
  /** Files of the input that were not read (other runs, files in subfolders, anything else). */
  ignored: number;
  /** NaN / Infinity tokens read as null, over every document read. */
  nonFinite: number;
}

const RESULTS_NAME = /^results_(.+)\.json$/;

/** The results files at the top of a directory input, in byte order. */
export function resultsFilesOf(input: ImportInput): string[] {
  return [...input.files.keys()].filter((p) => !p.includes('/') && RESULTS_NAME.test(p)).sort(compareUtf8);
}

function isObject(value: JsonValue): value is { [member: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ImportError(`not lm-eval output: ${what}: ${describeIssue(result.error)}`);
  return result.data;
}

/**
 * The shape of an lm-eval results document: a `results` object of per-task
 * objects, with lm-eval's run `config`, `configs` or `n-samples` beside it,
 * and no `eval` (an Inspect log also has a `results` object).
 */
function isLmEvalResults(value: JsonValue): boolean {
  if (!isObject(value) || Object.hasOwn(value, 'eval') || !isObject(value.results ?? null)) return false;
  if (!Object.values(value.results as { [member: string]: JsonValue }).every((entry) => isObject(entry))) return false;
  return ['config', 'configs', 'n-samples'].some((key) => isObject(value[key] ?? null));
}

/**
 * True when the input looks like an lm-eval output directory: a top-level
 * `results_*.json` of lm-eval's shape (isLmEvalResults). Cheap: only the
 * results files are parsed. Never throws.
 */
export function looksLikeRun(input: ImportInput): boolean {
  if (input.kind !== 'directory') return false;
  for (const path of resultsFilesOf(input)) {
    try {
      const { value } = parseSourceJson(input.files.get(path)!, path);
      if (isLmEvalResults(value)) return true;
    } catch {
      // not this one
    }
  }
  return false;
}

/** The one results file of the input: the only one, or the one --results names. */
function chooseResults(input: ImportInput, chosen: string | null): string {
  const candidates = resultsFilesOf(input);
  const list = candidates.map((c) => JSON.stringify(c)).join(', ');
  if (chosen !== null) {
    if (!candidates.includes(chosen)) {
      throw new ImportError(
        `--results ${JSON.stringify(chosen.slice(0, 200))} is not a results file at the top of the directory (it holds: ${candidates.length === 0 ? 'none' : list})`,
      );
    }
    return chosen;
  }
  if (candidates.length === 0) {
    throw new ImportError('the directory holds no results_<timestamp>.json at its top: give the folder lm-eval wrote for one model (--output_path/<model>)');
  }
  if (candidates.length > 1) {
    throw new ImportError(`the directory holds ${candidates.length} runs (${list}): choose one with --results FILE`);
  }
  return candidates[0]!;
}

/** Parses a samples file line by line; a bad line is refused with its number. */
function readSamplesFile(path: string, bytes: Uint8Array, budget: { records: number; nonFinite: number }, limits: ImportLimits): SampleLine[] {
  const lines: SampleLine[] = [];
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let start = 0;
  let number = 0;
  while (start < data.length) {
    let end = data.indexOf(0x0a, start);
    if (end === -1) end = data.length;
    number++;
    const chunk = data.subarray(start, end);
    start = end + 1;
    if (chunk.length === 0 || (chunk.length === 1 && chunk[0] === 0x0d)) {
      throw new ImportError(`${path} line ${number} is blank: a samples file holds one JSON object per line`);
    }
    budget.records++;
    if (budget.records > limits.maxRecords) throw new ImportLimitError(`the samples files hold more than ${limits.maxRecords} lines (import_limits.maxRecords)`, 'maxRecords');
    const parsed = parseSourceJson(chunk, `${path} line ${number}`);
    budget.nonFinite += parsed.nonFinite;
    if (!isObject(parsed.value)) throw new ImportError(`not lm-eval output: ${path} line ${number} is not a JSON object`);
    const sample = validate(LmEvalSample, parsed.value, `${path} line ${number}`);
    lines.push({ line: number, sample, raw: parsed.value });
  }
  if (lines.length === 0) throw new ImportError(`${path} is empty: a samples file holds one line per doc`);
  return lines;
}

/** Reads the run: its results file (the only one, or --results), and every samples file of its timestamp. */
export function readLmEvalRun(input: ImportInput, limits: ImportLimits, chosen: string | null = null): LmEvalRun {
  if (input.kind !== 'directory') throw new ImportError('an lm-eval run is a directory (results_<timestamp>.json and samples_<task>_<timestamp>.jsonl files): give the directory, not a file');
  const resultsPath = chooseResults(input, chosen);
  const resultsBytes = input.files.get(resultsPath)!;
  const parsed = parseSourceJson(resultsBytes, resultsPath);
  if (!isObject(parsed.value)) throw new ImportError(`not lm-eval output: ${resultsPath} is not a JSON object`);
  const results = validate(LmEvalResults, parsed.value, resultsPath);
  const stamp = RESULTS_NAME.exec(resultsPath)![1]!;
  const suffix = `_${stamp}.jsonl`;
  const budget = { records: 0, nonFinite: parsed.nonFinite };
  const tasks: TaskSamples[] = [];
  for (const [path, bytes] of input.files) {
    if (path.includes('/') || !path.startsWith('samples_') || !path.endsWith(suffix)) continue;
    const task = path.slice('samples_'.length, path.length - suffix.length);
    if (task === '') continue;
    tasks.push({ task, path, bytes, lines: readSamplesFile(path, bytes, budget, limits) });
  }
  tasks.sort((a, b) => compareUtf8(a.task, b.task));
  if (tasks.length === 0) {
    throw new ImportError(
      `${resultsPath} has no samples files (samples_<task>_${stamp}.jsonl) beside it: lm-eval writes them only with --log_samples; an aggregate alone has no per-doc evidence to import`,
    );
  }
  return {
    resultsPath,
    resultsBytes,
    results,
    rawResults: parsed.value,
    stamp,
    tasks,
    ignored: input.files.size - 1 - tasks.length,
    nonFinite: budget.nonFinite,
  };
}
