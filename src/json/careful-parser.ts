/**
 * The careful parser: a recursive-descent scan of decoded text, character by
 * character, that applies every I-JSON rule (duplicate member names, lone
 * surrogates, noncharacters, depth, string size, out-of-range numbers) and
 * reports the first failure with its position. It is the reference: every
 * text the fast path (fast-path.ts) declines comes here, and the tests hold
 * the fast path to its results.
 */

import { DEFAULT_MAX_DEPTH, type JsonObject, type JsonSyntaxError, type JsonValue, type StrictJsonOptions, type StrictParseResult } from './strict-types.ts';
import { pathAt, position, positions } from './text-position.ts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** The first error of a parse, at a character offset; thrown by the parser, caught by {@link parseStrictTextCarefully}. */
class ParseFailure {
  constructor(
    readonly offset: number,
    readonly message: string,
    readonly kind?: 'number-out-of-range' | 'string-over-limit',
    /** With kind `string-over-limit`: the string's UTF-8 bytes. */
    readonly bytes?: number,
  ) {}
}

/**
 * `parseStrictText` (strict-json.ts) without the JSON.parse fast path: the reference
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

/** A recursive-descent parser over one text: `parseDocument` returns the value and collects the non-integer number tokens, or throws a ParseFailure. */
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
