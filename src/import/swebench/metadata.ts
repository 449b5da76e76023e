/**
 * A SWE-bench/experiments submission's `metadata.yaml`, read only for the
 * subject when the submission has no predictions file (docs/importing.md,
 * "SWE-bench"). It is the submitter's own YAML, so it is parsed strictly with
 * the `yaml` package: YAML 1.2 core schema, one document, no duplicate key,
 * no anchor, alias (no "billion laughs") or tag, nesting at most 64 deep, at
 * most 1 MiB (and import_limits.maxFileBytes); every failure is an
 * ImportError naming the file, the line and the reason.
 *
 * Of it the importer keeps two facts: the system's name (`info.name`, or a
 * top-level `name` as some submissions write it) and the models
 * (`tags.model`: a list of names, or one name). Each is a string within
 * import_limits.maxStringBytes; a wrong type is refused with the member's
 * path. Everything else in the file is not mapped (it stays in the kept
 * original).
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { boundedString } from '../text.ts';
import { ImportError, ImportLimitError } from '../errors.ts';
import type { ImportLimits } from '../limits.ts';

/** Largest metadata.yaml read (a real one is under 1 KiB). */
export const MAX_METADATA_BYTES = 1 << 20;
const MAX_DEPTH = 64;

export interface SubmissionMetadata {
  path: string;
  bytes: Uint8Array;
  /** `info.name` (or top-level `name`): the submitted system's name. */
  name: string;
  /** `tags.model`, in file order, each once. */
  models: string[];
}

type Plain = null | boolean | number | string | Plain[] | { [key: string]: Plain };

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function shown(path: string): string {
  return JSON.stringify(path.slice(0, 200));
}

/** Parses metadata.yaml strictly into plain data; throws ImportError with the line and reason. */
export function parseMetadataYaml(path: string, bytes: Uint8Array, limits: ImportLimits): Plain {
  const what = `the submission metadata ${shown(path)}`;
  const cap = Math.min(MAX_METADATA_BYTES, limits.maxFileBytes);
  if (bytes.length > cap) throw new ImportLimitError(`${what} is ${bytes.length} bytes, more than the ${cap} a metadata.yaml may be`, 'maxFileBytes');
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    throw new ImportError(`${what} is not UTF-8 text`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { version: '1.2', schema: 'core', merge: false, uniqueKeys: true, strict: true, prettyErrors: false, lineCounter: lines });
  const lineOf = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line);
  const first = doc.errors[0] ?? doc.warnings[0];
  if (first !== undefined) {
    const reason = first.code === 'DUPLICATE_KEY' ? 'a key appears twice in one mapping' : first.code === 'MULTIPLE_DOCS' ? 'it holds more than one YAML document' : first.message.replace(/ at line \d+, column \d+[\s\S]*$/, '').trim();
    throw new ImportError(`${what} is not readable YAML (line ${lineOf(first.pos[0])}): ${reason}`);
  }
  const convert = (node: unknown, depth: number): Plain => {
    const offset = (node as { range?: [number, number, number] } | null)?.range?.[0];
    const at = `${what} (line ${lineOf(offset)})`;
    if (depth > MAX_DEPTH) throw new ImportError(`${at} nests deeper than ${MAX_DEPTH}`);
    if (isAlias(node)) throw new ImportError(`${at} uses an alias (*${node.source.slice(0, 100)}): anchors and aliases are not accepted in metadata.yaml`);
    if (node === null || node === undefined) return null;
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) throw new ImportError(`${at} holds an unsupported YAML node`);
    if (node.anchor !== undefined) throw new ImportError(`${at} sets an anchor (&${node.anchor.slice(0, 100)}): anchors and aliases are not accepted in metadata.yaml`);
    if (node.tag !== undefined) throw new ImportError(`${at} uses a tag: tags are not accepted in metadata.yaml`);
    if (isScalar(node)) {
      const v = node.value;
      if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
      if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
      if (typeof v === 'bigint') return String(v);
      throw new ImportError(`${at} holds an unsupported scalar`);
    }
    if (isSeq(node)) return node.items.map((item) => convert(item, depth + 1));
    const out: { [key: string]: Plain } = {};
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key;
      if (!isScalar(key) || key.anchor !== undefined || key.tag !== undefined || (typeof key.value !== 'string' && typeof key.value !== 'number' && typeof key.value !== 'boolean')) {
        throw new ImportError(`${what} (line ${lineOf((key as { range?: [number] } | null)?.range?.[0])}) has a key that is not a plain name`);
      }
      const name = String(key.value);
      if (Object.hasOwn(out, name)) throw new ImportError(`${what} (line ${lineOf((key as { range?: [number] }).range?.[0])}) is not readable YAML: the key ${JSON.stringify(name.slice(0, 100))} appears twice in one mapping`);
      Object.defineProperty(out, name, { value: convert(pair.value, depth + 1), enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  return convert(doc.contents, 1);
}

function isMapping(value: Plain | undefined): value is { [key: string]: Plain } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads the subject facts of a metadata.yaml; refuses a file without a system name, or with a mistyped one. */
export function readMetadata(path: string, bytes: Uint8Array, limits: ImportLimits): SubmissionMetadata {
  const what = `the submission metadata ${shown(path)}`;
  const value = parseMetadataYaml(path, bytes, limits);
  if (!isMapping(value)) throw new ImportError(`${what} is not a YAML mapping (info, tags, ...)`);
  const info = value.info;
  if (info !== undefined && info !== null && !isMapping(info)) throw new ImportError(`${what}: info must be a mapping`);
  const rawName = isMapping(info) && info.name !== undefined ? { at: 'info.name', v: info.name } : { at: 'name', v: value.name };
  if (rawName.v === undefined || rawName.v === null) throw new ImportError(`${what} names no system (info.name): without a predictions file the subject is read from it`);
  if (typeof rawName.v !== 'string' || rawName.v.trim() === '') throw new ImportError(`${what}: ${rawName.at} must be a non-empty string`);
  const name = boundedString(rawName.v, limits.maxStringBytes, `${rawName.at} of ${what}`);
  const tags = value.tags;
  if (tags !== undefined && tags !== null && !isMapping(tags)) throw new ImportError(`${what}: tags must be a mapping`);
  const rawModels = isMapping(tags) ? tags.model : undefined;
  const list = rawModels === undefined || rawModels === null ? [] : typeof rawModels === 'string' ? [rawModels] : rawModels;
  if (!Array.isArray(list)) throw new ImportError(`${what}: tags.model must be a list of model names`);
  if (list.length > 1000) throw new ImportError(`${what}: tags.model names more than 1000 models`);
  const models = new Set<string>();
  list.forEach((m, i) => {
    if (typeof m !== 'string' || m.trim() === '') throw new ImportError(`${what}: tags.model[${i}] must be a non-empty string`);
    models.add(boundedString(m, limits.maxStringBytes, `tags.model[${i}] of ${what}`));
  });
  return { path, bytes, name, models: [...models] };
}
