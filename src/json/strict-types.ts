/**
 * The types of the strict I-JSON parser (src/json/strict-json.ts): a parsed
 * value, a syntax error, a parse result, the options and their default.
 * Their own module so that the parser's parts (careful-parser.ts,
 * fast-path.ts, utf8.ts) and its entry points share them without importing
 * one another.
 */

/** A parsed JSON value. Objects are plain objects with own enumerable members. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A parsed JSON object. */
export interface JsonObject {
  [member: string]: JsonValue;
}

/** Where and why a document failed to parse. Line and column are 1-based. */
export interface JsonSyntaxError {
  message: string;
  line: number;
  column: number;
  /**
   * Set when the only problem is a number whose value a double cannot hold
   * (e.g. 1e400), or a string longer than `maxStringBytes` (then `string`
   * says where it is).
   */
  kind?: 'number-out-of-range' | 'string-over-limit';
  /** With kind `string-over-limit`: the string's place and size. */
  string?: LongString;
}

/** Where a string over `maxStringBytes` is, and how long it is. */
export interface LongString {
  /** Member names and array indices from the top-level value down to the string (or to the object whose member name it is). */
  path: (string | number)[];
  /** True when the string is a member name (then `path` ends at its object). */
  memberName: boolean;
  /** Its UTF-8 bytes (after unescaping). */
  bytes: number;
}

/**
 * A number token that is not an integer token with |n| <= 2^53 - 1, or is
 * `-0` (FORMAT.md section 1: jq prints `-0` where RFC 8785 writes `0`).
 */
export interface NonIntegerToken {
  token: string;
  line: number;
  column: number;
}

/** The outcome of a strict parse: the value, or the first error. */
export type StrictParseResult =
  | { ok: true; value: JsonValue; nonIntegerTokens: NonIntegerToken[] }
  | { ok: false; error: JsonSyntaxError };

/** Options of the strict parser. */
export interface StrictJsonOptions {
  /** Deepest allowed value: the top-level value is depth 1, a member or element one more than its container. Default 64. */
  maxDepth?: number;
  /**
   * Longest allowed string (a value or a member name), in UTF-8 bytes after
   * unescaping; a longer one fails the parse with kind `string-over-limit`.
   * Default: no limit.
   */
  maxStringBytes?: number;
}

/** The nesting limit of FORMAT.md section 2. */
export const DEFAULT_MAX_DEPTH = 64;
