/**
 * A strict I-JSON (RFC 7493) parser for untrusted evidence bytes.
 *
 * `JSON.parse` silently keeps the last of two duplicate member names, accepts
 * lone surrogate escapes and noncharacters, and has no depth limit, so a plan
 * whose hash covers one reading could be shown with another. This parser
 * rejects all of those, with a line and column, and never throws on bad input.
 *
 * Bytes are decoded with a fatal UTF-8 decoder first (invalid UTF-8 and a
 * byte-order mark are errors: utf8.ts); the decoded text is then parsed by a
 * small recursive-descent parser whose recursion is bounded by `maxDepth`
 * (careful-parser.ts). Text on which JSON.parse provably reads the same (no
 * escape, no code unit from U+D800, no duplicate member, finite numbers,
 * shallow nesting) takes a fast path through JSON.parse instead
 * (fast-path.ts; test/json/fast-path.test.ts holds the two to the same
 * results). This module holds the entry points and re-exports the parts'
 * public names (types in strict-types.ts), so callers import from here only.
 */

import { parseStrictTextCarefully } from './careful-parser.ts';
import { parseWithJsonParse } from './fast-path.ts';
import { DEFAULT_MAX_DEPTH, type StrictJsonOptions, type StrictParseResult } from './strict-types.ts';
import { decodeUtf8 } from './utf8.ts';

export { isNoncharacter, parseStrictTextCarefully } from './careful-parser.ts';
export { parseStrictTextFast } from './fast-path.ts';
export {
  DEFAULT_MAX_DEPTH,
  type JsonObject,
  type JsonSyntaxError,
  type JsonValue,
  type LongString,
  type NonIntegerToken,
  type StrictJsonOptions,
  type StrictParseResult,
} from './strict-types.ts';
export { bytePosition, decodeUtf8, firstInvalidUtf8 } from './utf8.ts';

/** Parses one JSON document from raw bytes, strictly (see module comment). */
export function parseStrictJson(bytes: Uint8Array, options: StrictJsonOptions = {}): StrictParseResult {
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return decoded;
  return parseStrictText(decoded.text, options);
}

/**
 * Parses already-decoded text strictly. The text must come from a fatal UTF-8
 * decode (so it holds no lone surrogate code units); use {@link parseStrictJson}
 * for bytes.
 */
export function parseStrictText(text: string, options: StrictJsonOptions = {}): StrictParseResult {
  const fast = parseWithJsonParse(text, options.maxDepth ?? DEFAULT_MAX_DEPTH, true, options.maxStringBytes);
  if (fast !== undefined) return fast;
  return parseStrictTextCarefully(text, options);
}

/**
 * {@link parseStrictText} for a caller that never looks at `nonIntegerTokens`
 * (a JSONL line): the same value or error, but number tokens are not
 * collected on the fast path (the list is then empty).
 */
export function parseStrictTextValue(text: string, options: StrictJsonOptions = {}): StrictParseResult {
  const fast = parseWithJsonParse(text, options.maxDepth ?? DEFAULT_MAX_DEPTH, false, options.maxStringBytes);
  if (fast !== undefined) return fast;
  return parseStrictTextCarefully(text, options);
}
