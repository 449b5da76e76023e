/**
 * Reads an Inspect AI eval log from its bytes, in either format:
 *
 * - `.json`: one JSON document, the whole EvalLog (samples inline);
 * - `.eval`: a ZIP archive with `header.json` (eval spec, plan, results,
 *   stats, status), one `samples/<id>_epoch_<n>.json` per sample and
 *   summaries the importer does not need. An archive whose `header.json` was
 *   never written (a run that did not finish) is read from
 *   `_journal/start.json`, with status `started`.
 *
 * The format is recognised from the bytes (a ZIP signature, or a JSON
 * object), never from the file name. Entry names only select what to read;
 * a sample's identity comes from its own `id` and `epoch`.
 */
import type { z } from 'zod';
import type { JsonValue } from '../../json/strict-json.ts';
import { ImportError } from '../errors.ts';
import { parseSourceJson } from '../source-json.ts';
import { describeIssue, InspectHeader, InspectSample, InspectStart, MAX_LOG_VERSION } from './schema.ts';
import { DEFAULT_ZIP_LIMITS, readZipEntries, type ZipLimits } from './zip.ts';

/** The two log formats, by their file extension. */
export type InspectFormat = 'eval' | 'json';

/** A log as read: its header, its samples (in log order) and what the reading noticed. */
export interface InspectLog {
  format: InspectFormat;
  header: InspectHeader;
  /** True when the header came from _journal/start.json (no header.json: the run did not finish). */
  headerFromJournal: boolean;
  samples: InspectSample[];
  /** NaN / Infinity tokens read as null, over every document read. */
  nonFinite: number;
}

const HEADER = 'header.json';
const JOURNAL_START = '_journal/start.json';

/** Recognises the format from the first bytes, or null when it is neither. */
export function detectFormat(bytes: Uint8Array): InspectFormat | null {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 3 || bytes[2] === 5) && (bytes[3] === 4 || bytes[3] === 6)) return 'eval';
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b /* { */ ? 'json' : null;
  }
  return null;
}

/** Reads a log; throws ImportError for anything that is not a readable Inspect log. */
export async function readInspectLog(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<InspectLog> {
  const format = detectFormat(bytes);
  if (format === null) throw new ImportError('not an Inspect log: neither a .eval ZIP archive nor a JSON log');
  return format === 'json' ? readJsonLog(bytes) : readEvalLog(bytes, limits);
}

/**
 * The log's own metrics of one score (results.scores[] of that name: accuracy,
 * stderr, ... as Inspect computed them), for the plan page to show beside the
 * imported rate; null when the log records none, an ImportError when it does
 * not read as a log. For a .eval archive only
 * header.json is read. Metric values that are not finite numbers are null.
 */
export async function readInspectMetrics(
  bytes: Uint8Array,
  scorer: string,
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<{ name: string; value: number | null }[] | null> {
  const format = detectFormat(bytes);
  let header: JsonValue;
  if (format === 'json') header = parseSourceJson(bytes, 'the log').value;
  else if (format === 'eval') {
    const { contents } = await readZipEntries(bytes, (name) => name === HEADER, limits);
    const data = contents.get(HEADER);
    if (!data) return null;
    header = parseSourceJson(data, HEADER).value;
  } else throw new ImportError('not an Inspect log: neither a .eval ZIP archive nor a JSON log');
  const results = isObject(header) ? header.results : null;
  const scores = results && isObject(results) && Array.isArray(results.scores) ? results.scores : [];
  const score = scores.find((s) => isObject(s) && s.name === scorer);
  if (!score || !isObject(score) || !score.metrics || !isObject(score.metrics)) return null;
  return Object.entries(score.metrics).map(([key, metric]) => {
    const value = isObject(metric) ? metric.value : null;
    return { name: isObject(metric) && typeof metric.name === 'string' ? metric.name : key, value: typeof value === 'number' && Number.isFinite(value) ? value : null };
  });
}

/** The entry names of an .eval archive's central directory (nothing decompressed): what `import auto` checks. */
export async function readZipNames(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<string[]> {
  const { entries } = await readZipEntries(bytes, () => false, limits);
  return entries.map((e) => e.name);
}

function validate<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new ImportError(`not an Inspect log: ${what}: ${describeIssue(result.error)}`);
  return result.data;
}

function checkVersion(version: number): void {
  if (version > MAX_LOG_VERSION) throw new ImportError(`the log is Inspect log format version ${version}; this importer reads versions up to ${MAX_LOG_VERSION}`);
}

function readJsonLog(bytes: Uint8Array): InspectLog {
  const { value, nonFinite } = parseSourceJson(bytes, 'the log');
  if (!isObject(value)) throw new ImportError('not an Inspect log: the JSON document is not an object');
  const { samples: rawSamples, ...rest } = value;
  const header = validate(InspectHeader, rest, 'the log');
  checkVersion(header.version);
  if (rawSamples !== undefined && rawSamples !== null && !Array.isArray(rawSamples)) throw new ImportError('not an Inspect log: samples: expected an array');
  const samples = (rawSamples ?? []).map((s, i) => validate(InspectSample, s, `samples[${i}]`));
  return { format: 'json', header, headerFromJournal: false, samples, nonFinite };
}

/**
 * A flat sample entry: `samples/<id>_epoch_<n>.json`. The id may itself hold
 * `/` (Inspect writes the id as it is), so a flat entry can sit in nested
 * folders: `samples/a/b_epoch_1.json` is sample `a/b`, epoch 1.
 */
export function isFlatSampleEntry(name: string): boolean {
  return /^samples\/.+_epoch_[0-9]+\.json$/s.test(name) || (name.startsWith('samples/') && name.endsWith('.json') && name.indexOf('/', 8) === -1);
}

/**
 * An entry of the chunked per-sample layout: inside a folder named after the
 * sample, `samples/<id>_epoch_<n>/sample.json` and its siblings. A flat entry
 * always ends in `_epoch_<n>.json`, so the two are told apart by the name.
 */
export function isChunkedSampleEntry(name: string): boolean {
  return name.startsWith('samples/') && !isFlatSampleEntry(name) && /_epoch_[0-9]+\//.test(name.slice(8));
}

async function readEvalLog(bytes: Uint8Array, limits: ZipLimits): Promise<InspectLog> {
  const isSample = isFlatSampleEntry;
  const { entries, contents } = await readZipEntries(bytes, (name) => name === HEADER || name === JOURNAL_START || isSample(name), limits);
  if (entries.some((e) => isChunkedSampleEntry(e.name))) {
    throw new ImportError('the log uses the chunked per-sample layout (samples/<id>_epoch_<n>/sample.json), which this importer does not read');
  }
  const stray = entries.find((e) => e.name.startsWith('samples/') && !e.name.endsWith('/') && !isSample(e.name));
  if (stray) {
    throw new ImportError(`the archive holds an entry under samples/ that is neither a sample (samples/<id>_epoch_<n>.json) nor the chunked layout: ${JSON.stringify(stray.name)}`);
  }
  let nonFinite = 0;
  const parse = (name: string): JsonValue => {
    const parsed = parseSourceJson(contents.get(name)!, name);
    nonFinite += parsed.nonFinite;
    return parsed.value;
  };
  let header: InspectHeader;
  let headerFromJournal = false;
  if (contents.has(HEADER)) {
    header = validate(InspectHeader, parse(HEADER), HEADER);
  } else if (contents.has(JOURNAL_START)) {
    const start = validate(InspectStart, parse(JOURNAL_START), JOURNAL_START);
    header = { ...start, status: 'started' };
    headerFromJournal = true;
  } else {
    throw new ImportError('not an Inspect log: the archive holds neither header.json nor _journal/start.json');
  }
  checkVersion(header.version);
  // Samples in entry-name byte order (the order of reading does not matter: the mapper sorts by id and epoch).
  const names = [...contents.keys()].filter(isSample).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const samples = names.map((name) => validate(InspectSample, parse(name), name));
  return { format: 'eval', header, headerFromJournal, samples, nonFinite };
}

function isObject(value: JsonValue): value is { [member: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
