/**
 * A strict I-JSON (RFC 7493) parser for untrusted evidence bytes.
 *
 * `JSON.parse` silently keeps the last of two duplicate member names, accepts
 * lone surrogate escapes and noncharacters, and has no depth limit, so a plan
 * whose hash covers one reading could be shown with another. This parser
 * rejects all of those, with a line and column, and never throws on bad input.
 *
 * Bytes are decoded with a fatal UTF-8 decoder first (invalid UTF-8 and a
 * byte-order mark are errors); the decoded text is then parsed by a small
 * recursive-descent parser whose recursion is bounded by `maxDepth`. Text on
 * which JSON.parse provably reads the same (no escape, no code unit from
 * U+D800, no duplicate member, finite numbers, shallow nesting) takes a fast
 * path through JSON.parse instead: see the end of this file, and
 * test/json/fast-path.test.ts, which holds the two to the same results.
 */

import { isAscii, isUtf8 } from 'node:buffer';

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

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const fatalDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class ParseFailure {
  constructor(
    readonly offset: number,
    readonly message: string,
    readonly kind?: 'number-out-of-range' | 'string-over-limit',
    /** With kind `string-over-limit`: the string's UTF-8 bytes. */
    readonly bytes?: number,
  ) {}
}

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

/**
 * {@link parseStrictText} without the JSON.parse fast path: the reference
 * parser, which every input the fast path declines goes to (and which the
 * tests compare the fast path against).
 */
export function parseStrictTextCarefully(text: string, options: StrictJsonOptions = {}): StrictParseResult {
  const parser = new Parser(text, options.maxDepth ?? DEFAULT_MAX_DEPTH, options.maxStringBytes);
  try {
    const value = parser.parseDocument();
    const where = positions(text, parser.nonInteger.map((n) => n.offset));
    const nonIntegerTokens = parser.nonInteger.map(({ token }, i) => ({ token, ...where[i]! }));
    return { ok: true, value, nonIntegerTokens };
  } catch (error) {
    if (error instanceof ParseFailure) {
      const failure: JsonSyntaxError = { message: error.message, ...position(text, error.offset), ...(error.kind ? { kind: error.kind } : {}) };
      if (error.kind === 'string-over-limit') failure.string = { ...pathAt(text, error.offset), bytes: error.bytes! };
      return { ok: false, error: failure };
    }
    if (error instanceof RangeError) {
      // Call stack exhausted: only reachable with a huge maxDepth option.
      return { ok: false, error: { message: 'document nests too deeply', line: 1, column: 1 } };
    }
    throw error;
  }
}

/** Decodes UTF-8 fatally; a BOM or an invalid sequence is an error with its byte position. */
export function decodeUtf8(bytes: Uint8Array): { ok: true; text: string } | { ok: false; error: JsonSyntaxError } {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { ok: false, error: { message: 'starts with a UTF-8 byte-order mark', line: 1, column: 1 } };
  }
  // Fast path: validate natively (simdutf), then decode without a second check. The same strings as
  // the fatal decoder gives for valid input (ignoreBOM: a BOM after the start is kept as U+FEFF).
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isAscii(buffer)) return { ok: true, text: buffer.toString('latin1') };
  if (isUtf8(buffer)) return { ok: true, text: buffer.toString('utf8') };
  try {
    return { ok: true, text: fatalDecoder.decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    return { ok: false, error: { message: 'invalid UTF-8', ...bytePosition(bytes, offset) } };
  }
}

/** 1-based lines and columns of ascending character offsets, in one pass over the text. */
function positions(text: string, offsets: readonly number[]): { line: number; column: number }[] {
  const out: { line: number; column: number }[] = [];
  let line = 1;
  let lineStart = 0;
  let next = text.indexOf('\n');
  for (const offset of offsets) {
    while (next !== -1 && next < offset) {
      line++;
      lineStart = next + 1;
      next = text.indexOf('\n', next + 1);
    }
    out.push({ line, column: offset - lineStart + 1 });
  }
  return out;
}

/** 1-based line and column (in UTF-16 code units) of a character offset. */
function position(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** 1-based line and column (in bytes) of a byte offset. */
export function bytePosition(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Offset of the first byte that starts an invalid UTF-8 sequence (RFC 3629: no overlongs, no surrogates). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    let cp: number;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      min = 0x800;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = 0x10000;
      cp = b & 0x07;
    } else {
      return i;
    }
    if (i + need >= n) return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return n;
}

/** True for Unicode noncharacters: U+FDD0..U+FDEF and U+xFFFE / U+xFFFF in every plane. */
export function isNoncharacter(codePoint: number): boolean {
  return (codePoint >= 0xfdd0 && codePoint <= 0xfdef) || (codePoint & 0xfffe) === 0xfffe;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Characters a string fast path cannot take as they are: backslash, controls, U+D800 and above. */
// eslint-disable-next-line no-control-regex
const NEEDS_CAREFUL_SCAN = /[\\\u0000-\u001f\ud800-\uffff]/;

class Parser {
  i = 0;
  readonly nonInteger: { token: string; offset: number }[] = [];
  /** Strings of at most this many code units are within maxStringBytes whatever they hold (a code unit is at most 3 UTF-8 bytes). */
  private readonly shortString: number;

  constructor(
    private readonly s: string,
    private readonly maxDepth: number,
    private readonly maxStringBytes: number = Infinity,
  ) {
    this.shortString = Math.floor(maxStringBytes / 3);
  }

  parseDocument(): JsonValue {
    this.skipWhitespace();
    if (this.i >= this.s.length) throw new ParseFailure(this.i, 'empty document: expected a JSON value');
    const value = this.parseValue(1);
    this.skipWhitespace();
    if (this.i < this.s.length) throw new ParseFailure(this.i, 'unexpected data after the JSON value');
    return value;
  }

  private skipWhitespace(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  /** Parses the value at the cursor, whose depth is `depth` (the top-level value is 1). */
  private parseValue(depth: number): JsonValue {
    if (depth > this.maxDepth) throw new ParseFailure(this.i, `nesting deeper than ${this.maxDepth} (a value at depth ${depth})`);
    const c = this.s.charCodeAt(this.i);
    switch (c) {
      case 123: // {
        return this.parseObject(depth);
      case 91: // [
        return this.parseArray(depth);
      case 34: // "
        return this.parseString();
      case 116: // t
        return this.parseLiteral('true', true);
      case 102: // f
        return this.parseLiteral('false', false);
      case 110: // n
        return this.parseLiteral('null', null);
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return this.parseNumber();
        if (Number.isNaN(c)) throw new ParseFailure(this.i, 'unexpected end of input: expected a value');
        throw new ParseFailure(this.i, `unexpected character ${describeChar(this.s, this.i)}: expected a value`);
    }
  }

  private parseObject(depth: number): JsonObject {
    const s = this.s;
    const object: JsonObject = {};
    this.i++;
    this.skipWhitespace();
    if (s.charCodeAt(this.i) === 125) {
      this.i++;
      return object;
    }
    for (;;) {
      if (s.charCodeAt(this.i) !== 34) throw this.expected('a member name in double quotes');
      const keyOffset = this.i;
      const key = this.parseString();
      // JSON values are never undefined, so only an inherited name (e.g. "toString") needs hasOwn.
      if (object[key] !== undefined && hasOwn.call(object, key)) {
        throw new ParseFailure(keyOffset, `duplicate member name ${JSON.stringify(key)}`);
      }
      this.skipWhitespace();
      if (s.charCodeAt(this.i) !== 58) throw this.expected("':' after a member name");
      this.i++;
      this.skipWhitespace();
      const value = this.parseValue(depth + 1);
      if (key === '__proto__') {
        // A plain assignment would set the prototype; keep it an own data member like JSON.parse.
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        object[key] = value;
      }
      this.skipWhitespace();
      const c = s.charCodeAt(this.i);
      if (c === 44) {
        this.i++;
        this.skipWhitespace();
      } else if (c === 125) {
        this.i++;
        return object;
      } else {
        throw this.expected("',' or '}'");
      }
    }
  }

  private parseArray(depth: number): JsonValue[] {
    const s = this.s;
    const array: JsonValue[] = [];
    this.i++;
    this.skipWhitespace();
    if (s.charCodeAt(this.i) === 93) {
      this.i++;
      return array;
    }
    for (;;) {
      array.push(this.parseValue(depth + 1));
      this.skipWhitespace();
      const c = s.charCodeAt(this.i);
      if (c === 44) {
        this.i++;
        this.skipWhitespace();
      } else if (c === 93) {
        this.i++;
        return array;
      } else {
        throw this.expected("',' or ']'");
      }
    }
  }

  private parseLiteral<T extends JsonValue>(word: string, value: T): T {
    if (this.s.startsWith(word, this.i)) {
      this.i += word.length;
      return value;
    }
    throw new ParseFailure(this.i, `unexpected character ${describeChar(this.s, this.i)}: expected a value`);
  }

  private parseNumber(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    let integer = true;
    if (s.charCodeAt(i) === 45) i++;
    let c = s.charCodeAt(i);
    if (c === 48) {
      i++;
    } else if (c >= 49 && c <= 57) {
      do i++;
      while ((c = s.charCodeAt(i)) >= 48 && c <= 57);
    } else {
      throw new ParseFailure(i, 'invalid number: expected a digit');
    }
    c = s.charCodeAt(i);
    if (c === 46) {
      integer = false;
      i++;
      c = s.charCodeAt(i);
      if (!(c >= 48 && c <= 57)) throw new ParseFailure(i, 'invalid number: expected a digit after the decimal point');
      do i++;
      while ((c = s.charCodeAt(i)) >= 48 && c <= 57);
    }
    if (c === 101 || c === 69) {
      integer = false;
      i++;
      c = s.charCodeAt(i);
      if (c === 43 || c === 45) c = s.charCodeAt(++i);
      if (!(c >= 48 && c <= 57)) throw new ParseFailure(i, 'invalid number: expected a digit in the exponent');
      do i++;
      while ((c = s.charCodeAt(i)) >= 48 && c <= 57);
    }
    const token = s.slice(start, i);
    const value = Number(token);
    if (!Number.isFinite(value)) throw new ParseFailure(start, `number ${token} is out of range`, 'number-out-of-range');
    // `-0` is an integer token, but not one plan.json or manifest.json may hold (FORMAT.md section 1).
    if (!integer || Math.abs(value) > MAX_SAFE || Object.is(value, -0)) this.nonInteger.push({ token, offset: start });
    this.i = i;
    // RFC 8785 has no negative zero; keep the value JSON.parse would give otherwise.
    return value;
  }

  /** A string (value or member name) at the cursor, within maxStringBytes. */
  private parseString(): string {
    const offset = this.i;
    const value = this.scanString();
    if (value.length > this.shortString) {
      const bytes = Buffer.byteLength(value, 'utf8');
      if (bytes > this.maxStringBytes) {
        throw new ParseFailure(offset, `a string of ${bytes} bytes, over the limit of ${this.maxStringBytes}`, 'string-over-limit', bytes);
      }
    }
    return value;
  }

  private scanString(): string {
    const s = this.s;
    const start = this.i + 1;
    // Fast path (native): up to the next quote there is no escape, control character, surrogate or
    // U+D800.. code unit at all, so the slice is the string and needs no per-character check.
    const quote = s.indexOf('"', start);
    if (quote !== -1) {
      const candidate = s.slice(start, quote);
      if (!NEEDS_CAREFUL_SCAN.test(candidate)) {
        this.i = quote + 1;
        return candidate;
      }
    }
    let i = start;
    // Careful path: character by character until the first escape.
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.i = i + 1;
        return s.slice(start, i);
      }
      if (c === 92) break;
      // c !== c is NaN: the text ended inside the string.
      if (c < 0x20 || c !== c) this.badStringChar(i, c);
      if (c >= 0xd800) i = this.checkWide(i, c);
      i++;
    }
    // Slow path: at least one escape.
    let out = s.slice(start, i);
    let chunk = i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.i = i + 1;
        return out + s.slice(chunk, i);
      }
      if (c === 92) {
        out += s.slice(chunk, i);
        const escapeStart = i;
        const e = s.charCodeAt(i + 1);
        i += 2;
        switch (e) {
          case 34:
            out += '"';
            break;
          case 92:
            out += '\\';
            break;
          case 47:
            out += '/';
            break;
          case 98:
            out += '\b';
            break;
          case 102:
            out += '\f';
            break;
          case 110:
            out += '\n';
            break;
          case 114:
            out += '\r';
            break;
          case 116:
            out += '\t';
            break;
          case 117: {
            let unit = this.readHex4(i, escapeStart);
            i += 4;
            let codePoint = unit;
            if (unit >= 0xd800 && unit <= 0xdbff) {
              const low = s.charCodeAt(i) === 92 && s.charCodeAt(i + 1) === 117 ? this.readHex4(i + 2, i) : -1;
              if (low < 0xdc00 || low > 0xdfff) {
                throw new ParseFailure(escapeStart, `lone surrogate escape \\u${hex4(unit)}`);
              }
              i += 6;
              codePoint = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
              out += String.fromCharCode(unit, low);
              unit = -1;
            } else if (unit >= 0xdc00 && unit <= 0xdfff) {
              throw new ParseFailure(escapeStart, `lone surrogate escape \\u${hex4(unit)}`);
            }
            if (isNoncharacter(codePoint)) {
              throw new ParseFailure(escapeStart, `noncharacter U+${codePoint.toString(16).toUpperCase()}`);
            }
            if (unit >= 0) out += String.fromCharCode(unit);
            break;
          }
          default:
            if (Number.isNaN(e)) throw new ParseFailure(escapeStart, 'unterminated string');
            throw new ParseFailure(escapeStart, `invalid escape \\${describeChar(s, escapeStart + 1)}`);
        }
        chunk = i;
        continue;
      }
      // c !== c is NaN: the text ended inside the string.
      if (c < 0x20 || c !== c) this.badStringChar(i, c);
      if (c >= 0xd800) i = this.checkWide(i, c);
      i++;
    }
  }

  /** Checks a code unit >= U+D800 for noncharacters; returns the index of its last unit. */
  private checkWide(i: number, c: number): number {
    if (c <= 0xdbff) {
      // Text from a fatal UTF-8 decode always pairs surrogates.
      const low = this.s.charCodeAt(i + 1);
      const codePoint = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
      if (isNoncharacter(codePoint)) {
        throw new ParseFailure(i, `noncharacter U+${codePoint.toString(16).toUpperCase()}`);
      }
      return i + 1;
    }
    if (c <= 0xdfff) throw new ParseFailure(i, 'lone surrogate');
    if (isNoncharacter(c)) throw new ParseFailure(i, `noncharacter U+${c.toString(16).toUpperCase()}`);
    return i;
  }

  private badStringChar(i: number, c: number): never {
    if (Number.isNaN(c)) throw new ParseFailure(i, 'unterminated string');
    throw new ParseFailure(i, `unescaped control character U+${hex4(c)} in a string`);
  }

  private readHex4(i: number, escapeStart: number): number {
    const s = this.s;
    const a = hexValue(s.charCodeAt(i));
    const b = hexValue(s.charCodeAt(i + 1));
    const c = hexValue(s.charCodeAt(i + 2));
    const d = hexValue(s.charCodeAt(i + 3));
    if (a < 0 || b < 0 || c < 0 || d < 0) throw new ParseFailure(escapeStart, 'invalid \\u escape: expected 4 hex digits');
    return (a << 12) | (b << 8) | (c << 4) | d;
  }

  private expected(what: string): ParseFailure {
    if (this.i >= this.s.length) return new ParseFailure(this.i, `unexpected end of input: expected ${what}`);
    return new ParseFailure(this.i, `unexpected character ${describeChar(this.s, this.i)}: expected ${what}`);
  }
}

function hex4(n: number): string {
  return n.toString(16).toUpperCase().padStart(4, '0');
}

/** Describes the character at an offset safely for a message (quoted JSON string, or U+XXXX). */
function describeChar(s: string, i: number): string {
  const cp = s.codePointAt(i);
  if (cp === undefined) return 'end of input';
  if (cp < 0x20 || cp === 0x7f || cp > 0x7e) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return JSON.stringify(String.fromCodePoint(cp));
}

/*
 * The fast path. JSON.parse implements exactly the JSON grammar this parser
 * accepts (RFC 8259: same literals, numbers, strings, whitespace) and gives
 * the same values (Number() of the same token, own data members, a
 * "__proto__" member included, in the same order); what it does not do is
 * the I-JSON rules. So it is used only on text where those rules can be
 * checked cheaply around it, and any text where they cannot goes to the
 * careful parser above:
 * - no backslash and no code unit from U+D800 up (so no escape, surrogate or
 *   noncharacter; a string runs to the next quote);
 * - container nesting well inside the depth limit (checked before parsing);
 * - no duplicate member name: the members in the text (colons outside
 *   strings) must all be in the parsed objects;
 * - every number finite (an out-of-range number is the careful parser's to
 *   report);
 * - with `maxStringBytes`, no string of more code units than a third of it
 *   (such a string may be over the limit, which the careful parser decides
 *   and reports with the string's place);
 * - JSON.parse accepts the text (a syntax error is reported by the careful
 *   parser, with its own message and position).
 * Non-integer number tokens (and `-0`) are found by the same scan, in document order.
 */

/**
 * The fast path alone: the result the careful parser would give, or
 * undefined when the text is not one the fast path takes (for tests and
 * measurements; {@link parseStrictText} uses it).
 */
export function parseStrictTextFast(text: string, options: StrictJsonOptions = {}): StrictParseResult | undefined {
  return parseWithJsonParse(text, options.maxDepth ?? DEFAULT_MAX_DEPTH, true);
}

/** Code units the fast path leaves to the careful parser: any backslash, and U+D800 and above. */
const NOT_FAST = /[\\\ud800-\uffff]/;

/** Deepest container nesting the fast path takes, whatever the limit (its checks recurse). */
const FAST_MAX_NESTING = 32;

function parseWithJsonParse(text: string, maxDepth: number, collectNumbers: boolean, maxStringBytes = Infinity): StrictParseResult | undefined {
  if (NOT_FAST.test(text)) return undefined;
  // A string of more code units than this may be over maxStringBytes (a code unit here is 1 to 3 UTF-8 bytes): the careful parser decides.
  const shortString = Math.floor(maxStringBytes / 3);
  let depth = 0;
  let deepest = 0;
  let members = 0;
  let nonInteger: NonIntegerToken[] | null = null;
  // Lines as the careful parser counts them (a valid text has no raw line feed inside a string).
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = text.indexOf('"', i + 1);
      if (end === -1 || end - i - 1 > shortString) return undefined;
      i = end;
    } else if (c === 58) {
      members++;
    } else if (c === 123 || c === 91) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 125 || c === 93) {
      depth--;
    } else if (c === 10) {
      line++;
      lineStart = i + 1;
    } else if (collectNumbers && (c === 45 || (c >= 48 && c <= 57))) {
      // A number token (in text JSON.parse accepts): it runs over digits, '.', 'e', 'E', '+', '-'.
      let end = i + 1;
      let integer = true;
      for (; end < n; end++) {
        const d = text.charCodeAt(end);
        if (d >= 48 && d <= 57) continue;
        if (d === 46 || d === 101 || d === 69) integer = false;
        else if (d !== 43 && d !== 45) break;
      }
      // Up to 15 digits an integer token is always within 2^53 - 1; `-0` is the one short integer token not allowed.
      const negativeZero = c === 45 && end - i === 2 && text.charCodeAt(i + 1) === 48;
      if (!integer || end - i > 15 || negativeZero) {
        const token = text.slice(i, end);
        if (!integer || negativeZero || Math.abs(Number(token)) > MAX_SAFE) (nonInteger ??= []).push({ token, line, column: i - lineStart + 1 });
      }
      i = end - 1;
    }
  }
  // The careful parser counts a scalar inside the deepest container one deeper than it; stay clear of the limit.
  if (deepest > FAST_MAX_NESTING || deepest + 1 > maxDepth) return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
  if (countMembers(value) !== members) return undefined;
  return { ok: true, value, nonIntegerTokens: nonInteger ?? [] };
}

/** Members of every object in a parsed value, or -1 when it holds a number that is not finite. */
function countMembers(value: JsonValue): number {
  if (typeof value === 'number') return Number.isFinite(value) ? 0 : -1;
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const inner = countMembers(value[i]!);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  for (const key in value) {
    if (!hasOwn.call(value, key)) continue;
    const inner = countMembers(value[key]!);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}

/**
 * Where the string starting at `offset` sits: the member names and array
 * indices down to it, and whether it is a member name. Only called after the
 * careful parser failed at that string, so the text before it is valid JSON
 * (no need to check anything here).
 */
function pathAt(text: string, offset: number): { path: (string | number)[]; memberName: boolean } {
  // One frame per open container: its key or index so far, and whether a member name comes next.
  const frames: { key: string | number; expectName: boolean; isArray: boolean }[] = [];
  for (let i = 0; i < offset; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === 34) {
      const end = stringEnd(text, i);
      if (top && !top.isArray && top.expectName) {
        top.key = JSON.parse(text.slice(i, end + 1)) as string;
        top.expectName = false;
      }
      i = end;
    } else if (c === 123) frames.push({ key: '', expectName: true, isArray: false });
    else if (c === 91) frames.push({ key: 0, expectName: false, isArray: true });
    else if (c === 125 || c === 93) frames.pop();
    else if (c === 44 && top) {
      if (top.isArray) top.key = (top.key as number) + 1;
      else top.expectName = true;
    }
  }
  const top = frames[frames.length - 1];
  const memberName = top !== undefined && !top.isArray && top.expectName;
  const path = (memberName ? frames.slice(0, -1) : frames).map((f) => f.key);
  return { path, memberName };
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34 || Number.isNaN(c)) return i;
  }
}
