/**
 * The strict parser's fast path: JSON.parse, on text it provably reads as
 * the careful parser (careful-parser.ts) would. JSON.parse implements
 * exactly the JSON grammar the careful parser accepts (RFC 8259: same literals, numbers, strings, whitespace) and gives
 * the same values (Number() of the same token, own data members, a
 * "__proto__" member included, in the same order); what it does not do is
 * the I-JSON rules. So it is used only on text where those rules can be
 * checked cheaply around it, and any text where they cannot is declined
 * (undefined) and goes to the careful parser:
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

import { DEFAULT_MAX_DEPTH, type JsonValue, type NonIntegerToken, type StrictJsonOptions, type StrictParseResult } from './strict-types.ts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const hasOwn = Object.prototype.hasOwnProperty;

/**
 * The fast path alone: the result the careful parser would give, or
 * undefined when the text is not one the fast path takes (for tests and
 * measurements; parseStrictText in strict-json.ts uses {@link parseWithJsonParse}).
 */
export function parseStrictTextFast(text: string, options: StrictJsonOptions = {}): StrictParseResult | undefined {
  return parseWithJsonParse(text, options.maxDepth ?? DEFAULT_MAX_DEPTH, true);
}

/** Code units the fast path leaves to the careful parser: any backslash, and U+D800 and above. */
const NOT_FAST = /[\\\ud800-\uffff]/;

/** Deepest container nesting the fast path takes, whatever the limit (its checks recurse). */
const FAST_MAX_NESTING = 32;

/**
 * The fast path's result for text, or undefined when it declines the text.
 * `collectNumbers` false leaves `nonIntegerTokens` empty (for a caller that
 * never reads them).
 */
export function parseWithJsonParse(text: string, maxDepth: number, collectNumbers: boolean, maxStringBytes = Infinity): StrictParseResult | undefined {
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
