/**
 * A strict reader for the human-written YAML the authoring tools take
 * (plan.yaml, the aliases file). YAML has many ways to say one thing and
 * several that surprise: this reader accepts the plain subset a plan needs
 * and refuses the rest, with line and column.
 *
 * - YAML 1.2, core schema (so `yes`, `no`, `on` and dates are strings, never
 *   booleans or timestamps); one document; UTF-8.
 * - A key twice in one mapping is refused (also `a` and `"a"`), naming it.
 * - Anchors, aliases (`&a`, `*a`: no "billion laughs") and tags (`!!str`,
 *   `!custom`) are refused; so is a key that is not a plain name.
 * - Numbers must be decimal integers within 2^53 - 1: a fraction, an
 *   exponent, `.inf`, `.nan`, hex and octal are refused (the plan's numbers
 *   are integers, and money is integer micros), as is an integer too large to
 *   hold exactly.
 * - At most 1 MiB, nesting at most 64 deep.
 *
 * The value comes back as plain JSON data, with the position of every value
 * and key by path, for messages.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { JsonObject, JsonValue } from '../json/strict-json.ts';
import { type InputProblem, refuse, refuseIfAny } from './problems.ts';

/** A path into the parsed value: member names and array indexes. */
export type YamlPath = readonly (string | number)[];

/** A 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/** The parsed document: its JSON value and where each part of it was written. */
export interface StrictYaml {
  file: string;
  value: JsonValue;
  /** Where the value at a path was written (or its nearest written ancestor; 1:1 for the root). */
  positionOf(path: YamlPath): Position;
  /** Where the key of the member at a path was written, when it was. */
  keyPositionOf(path: YamlPath): Position | undefined;
  /** The source text of the scalar at a path (e.g. `1.10`, whose value is 1.1). */
  sourceOf(path: YamlPath): string | undefined;
}

/** Largest YAML file accepted (1 MiB): a plan or an aliases file is a few kilobytes. */
export const MAX_YAML_BYTES = 1 << 20;
/** Deepest nesting accepted (the top-level value is depth 1, as for JSON). */
export const MAX_YAML_DEPTH = 64;

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses YAML bytes strictly; throws AuthorInputError with every problem found. */
export function parseStrictYaml(bytes: Uint8Array, file: string): StrictYaml {
  if (bytes.length > MAX_YAML_BYTES) refuse({ file, message: `the file is ${bytes.length} bytes; at most ${MAX_YAML_BYTES} are accepted` });
  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    refuse({ file, message: 'the file is not valid UTF-8' });
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    merge: false,
    uniqueKeys: true,
    intAsBigInt: true,
    strict: true,
    prettyErrors: false,
    lineCounter: lines,
    keepSourceTokens: false,
  });
  const at = (offset: number): Position => {
    const { line, col } = lines.linePos(offset);
    return { line, column: col };
  };
  const problems: InputProblem[] = [];
  for (const error of [...doc.errors, ...doc.warnings]) {
    // Duplicate keys are found again below, with the key's name.
    if (error.code === 'DUPLICATE_KEY') continue;
    const message =
      error.code === 'MULTIPLE_DOCS'
        ? 'the file holds more than one YAML document (a second "---"); it must be exactly one'
        : error.code === 'TAG_RESOLVE_FAILED'
          ? `${firstSentence(error.message)}: tags are not accepted`
          : firstSentence(error.message);
    problems.push({ file, ...at(error.pos[0]), message });
  }
  refuseIfAny(problems);

  const positions = new Map<string, Position>([[pathKey([]), { line: 1, column: 1 }]]);
  const keyPositions = new Map<string, Position>();
  const sources = new Map<string, string>();

  const convert = (node: unknown, path: YamlPath, depth: number): JsonValue | undefined => {
    const start = nodeStart(node);
    if (start !== undefined) positions.set(pathKey(path), at(start));
    const where: Partial<Position> = start === undefined ? {} : at(start);
    if (depth > MAX_YAML_DEPTH) {
      problems.push({ file, ...where, message: `nesting deeper than ${MAX_YAML_DEPTH}` });
      return undefined;
    }
    if (isAlias(node)) {
      problems.push({ file, ...where, message: `alias *${node.source} refused: anchors and aliases are not accepted (write the value out)` });
      return undefined;
    }
    if (!isNodeLike(node)) return null; // An empty value (`key:` with nothing after it) is null.
    if (node.anchor !== undefined) problems.push({ file, ...where, message: `anchor &${node.anchor} refused: anchors and aliases are not accepted` });
    if (node.tag !== undefined) {
      problems.push({ file, ...where, message: `tag ${shortTag(node.tag)} refused: tags are not accepted (quote a value to make it a string)` });
      return undefined;
    }
    if (isScalar(node)) {
      if (typeof node.source === 'string') sources.set(pathKey(path), node.source);
      return scalarValue(node.value, node.source, node.format, path, where);
    }
    if (isSeq(node)) {
      const out: JsonValue[] = [];
      node.items.forEach((item, index) => {
        const value = convert(item, [...path, index], depth + 1);
        out.push(value === undefined ? null : value);
      });
      return out;
    }
    if (isMap(node)) {
      const out: JsonObject = {};
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyStart = nodeStart(pair.key);
        const keyWhere: Position = keyStart !== undefined ? at(keyStart) : start !== undefined ? at(start) : { line: 1, column: 1 };
        const key = keyName(pair.key);
        if (key === null) {
          problems.push({ file, ...keyWhere, message: `a key must be a plain name; got ${describeKey(pair.key)}` });
          continue;
        }
        const memberPath = [...path, key];
        if (Object.prototype.hasOwnProperty.call(out, key)) {
          const first = keyPositions.get(pathKey(memberPath));
          problems.push({ file, ...keyWhere, message: `duplicate key ${JSON.stringify(key)}${first ? ` (first on line ${first.line})` : ''}` });
          continue;
        }
        keyPositions.set(pathKey(memberPath), keyWhere);
        const value = convert(pair.value, memberPath, depth + 1);
        // Data member even when named __proto__ (never the prototype).
        Object.defineProperty(out, key, { value: value === undefined ? null : value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    problems.push({ file, ...where, message: 'unsupported YAML node' });
    return undefined;
  };

  const scalarValue = (value: unknown, source: string | undefined, format: string | undefined, path: YamlPath, where: Partial<Position>): JsonValue | undefined => {
    const shown = source ?? String(value);
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'bigint') {
      if (format === 'HEX' || format === 'OCT') {
        problems.push({ file, ...where, message: `${shown} at ${describePath(path)}: write integers in decimal` });
        return undefined;
      }
      if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER)) {
        problems.push({ file, ...where, message: `${shown} at ${describePath(path)} is beyond 2^53 - 1 (${Number.MAX_SAFE_INTEGER}), the largest integer a plan holds exactly` });
        return undefined;
      }
      return Number(value);
    }
    if (typeof value === 'number') {
      problems.push({
        file,
        ...where,
        message: `${shown} at ${describePath(path)} is not an integer: numbers in a plan are integers (money in integer micros, 1 unit = 1000000); if it is text, quote it: "${shown}"`,
      });
      return undefined;
    }
    problems.push({ file, ...where, message: `unsupported value at ${describePath(path)}` });
    return undefined;
  };

  const value = doc.contents === null ? null : convert(doc.contents, [], 1);
  refuseIfAny(problems);
  if (value === undefined) throw new Error('strict YAML: a value was refused without a problem (bug)');

  return {
    file,
    value,
    positionOf(path) {
      for (let n = path.length; n >= 0; n--) {
        const found = positions.get(pathKey(path.slice(0, n)));
        if (found) return found;
      }
      return { line: 1, column: 1 };
    },
    keyPositionOf: (path) => keyPositions.get(pathKey(path)),
    sourceOf: (path) => sources.get(pathKey(path)),
  };
}

/** `budget.aggregate_micros`, `subjects[1].agent`, `(root)`. */
export function describePath(path: YamlPath): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

/** `!!str` for the core tags, as they are usually written. */
function shortTag(tag: string): string {
  return tag.startsWith('tag:yaml.org,2002:') ? `!!${tag.slice('tag:yaml.org,2002:'.length)}` : tag;
}

function pathKey(path: YamlPath): string {
  return JSON.stringify(path);
}

function firstSentence(message: string): string {
  return message.replace(/ at line \d+, column \d+[\s\S]*$/, '').trim();
}

function isNodeLike(node: unknown): node is Node {
  return isScalar(node) || isMap(node) || isSeq(node);
}

function nodeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return range?.[0];
}

/** A key's name: a string scalar without anchor or tag; anything else is not a name. */
function keyName(key: unknown): string | null {
  if (!isScalar(key) || key.anchor !== undefined || key.tag !== undefined) return null;
  return typeof key.value === 'string' ? key.value : null;
}

function describeKey(key: unknown): string {
  if (isScalar(key)) {
    if (key.tag !== undefined) return `a tagged key (${shortTag(key.tag)})`;
    if (key.anchor !== undefined) return `an anchored key (&${key.anchor})`;
    if (key.value === null) return 'an empty key';
    return `${typeof key.value === 'bigint' ? 'the number' : `the ${typeof key.value}`} ${key.source ?? String(key.value)} (quote it to make it a name)`;
  }
  if (isAlias(key)) return `an alias (*${key.source})`;
  if (isMap(key) || isSeq(key)) return 'a collection';
  return 'no name';
}
