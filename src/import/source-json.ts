/**
 * Parses the JSON documents of another harness's output (Inspect logs,
 * lm-eval results, HELM runs, Terminal-Bench results), strictly: every
 * importer that reads JSON reads it here.
 *
 * They are not our format, but every value an importer maps comes out of
 * them, so they are read with the project's strict I-JSON parser: a
 * member name twice in one object (which reading would win?), invalid UTF-8,
 * a lone surrogate or a noncharacter makes the log unreadable, with a line
 * and column. Two departures, both documented in docs/importing.md:
 *
 * - Python's json module writes the non-standard tokens `NaN`, `Infinity` and
 *   `-Infinity`, and older Inspect versions wrote logs with it (a standard
 *   error over one sample is NaN). Outside strings these tokens are read as
 *   `null` and counted; a mapped field that held one then fails its schema
 *   like any other null, and the import says how many were read.
 * - Logs nest deeper than evidence files may (Inspect messages with tool calls
 *   inside events): the depth limit is 512, not 64.
 */
import { parseStrictJson, type JsonValue } from '../json/strict-json.ts';
import { ImportError } from './errors.ts';

/** Nesting limit for source documents (values, the top level being depth 1). */
export const SOURCE_MAX_DEPTH = 512;

/** A parsed document and the number of non-finite number tokens read as null. */
export interface SourceJson {
  value: JsonValue;
  nonFinite: number;
}

const NON_FINITE = ['NaN', 'Infinity', '-Infinity'] as const;

/**
 * Replaces the tokens NaN, Infinity and -Infinity outside strings with null.
 * Works on raw bytes: the tokens are ASCII and a string is delimited by
 * unescaped double quotes, which never occur inside a multi-byte UTF-8
 * sequence. (A column reported later on the same line as a replaced `NaN`
 * is one more than in the original.)
 */
export function replaceNonFinite(bytes: Uint8Array): { bytes: Uint8Array; count: number } {
  const pieces: Uint8Array[] = [];
  let copied = 0;
  let count = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c !== 0x4e /* N */ && c !== 0x49 /* I */ && c !== 0x2d /* - */) continue;
    const token = NON_FINITE.find((t) => matches(bytes, i, t));
    if (token === undefined) continue;
    // A whole token, not the start of a longer word (which the strict parser rejects anyway).
    const next = bytes[i + token.length];
    if (next !== undefined && isWordByte(next)) continue;
    pieces.push(bytes.subarray(copied, i), NULL_BYTES);
    copied = i + token.length;
    i = copied - 1;
    count++;
  }
  if (count === 0) return { bytes, count };
  pieces.push(bytes.subarray(copied));
  return { bytes: Buffer.concat(pieces), count };
}

const NULL_BYTES = Buffer.from('null', 'latin1');

function matches(bytes: Uint8Array, at: number, token: string): boolean {
  if (at + token.length > bytes.length) return false;
  for (let j = 0; j < token.length; j++) if (bytes[at + j] !== token.charCodeAt(j)) return false;
  return true;
}

function isWordByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** Parses one document of the log; `what` names it in the error ("the log", "header.json"). */
export function parseSourceJson(bytes: Uint8Array, what: string): SourceJson {
  const { bytes: cleaned, count } = replaceNonFinite(bytes);
  const parsed = parseStrictJson(cleaned, { maxDepth: SOURCE_MAX_DEPTH });
  if (!parsed.ok) {
    const { message, line, column } = parsed.error;
    throw new ImportError(`${what} is not readable JSON: ${message} (line ${line}, column ${column})`);
  }
  return { value: parsed.value, nonFinite: count };
}
