/**
 * Strict parsing of a large JSON document of one shape, element by element:
 * a top-level object holding one large array member (grades/<n>.json and its
 * `results`). Parsing it whole makes every element at once (all alive until
 * the last is parsed, so the garbage collector copies them all) and one
 * string of the whole file. Here each element's text is cut from the bytes
 * and parsed strictly on its own, then handed to `visit`, and only the
 * remaining skeleton (the document with that array emptied) is parsed whole.
 *
 * The result is the strict parser's by composition: the skeleton and every
 * element parse strictly (with the depth limit lowered by the array's
 * depth), so the whole document is valid I-JSON with the same values. The
 * cut needs text where a string runs to the next quote: only ASCII without a
 * backslash takes this path. Anything else, any parse error, a cut that does
 * not match, or `visit` declining, returns undefined, and the caller parses
 * the document whole (for its value or its error). test/json/array-member.test.ts
 * holds this to parseStrictJson.
 */
import { Buffer, isAscii } from 'node:buffer';
import { DEFAULT_MAX_DEPTH, parseStrictText, parseStrictTextValue, type JsonObject, type JsonValue, type StrictJsonOptions } from './strict-json.ts';

type Slice = (this: Buffer, start: number, end: number) => string;
const latin1Slice: Slice = (Buffer.prototype as unknown as { latin1Slice?: Slice }).latin1Slice ?? function (this: Buffer, start, end) { return this.toString('latin1', start, end); };

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;

function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Parses `bytes` as a top-level object whose member `name` is an array,
 * calling `visit(element, index)` for each element in order (stop by
 * returning false); returns the object with that member as an empty array,
 * or undefined when this path does not apply (see the module comment).
 */
export function parseWithArrayMember(
  bytes: Uint8Array,
  name: string,
  visit: (element: JsonValue, index: number) => boolean,
  options: StrictJsonOptions = {},
): JsonObject | undefined {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = buf.length;
  // No BOM (ASCII has none), no escape: a string is everything up to the next quote.
  if (maxDepth < 3 || !isAscii(buf) || buf.indexOf(BACKSLASH) !== -1) return undefined;
  // Find the member at depth 1: a string `name` followed by ':' and '['.
  let depth = 0;
  let open = -1;
  for (let i = 0; i < n; i++) {
    const c = buf[i];
    if (c === QUOTE) {
      const end = buf.indexOf(QUOTE, i + 1);
      if (end === -1) return undefined;
      if (depth === 1 && end - i - 1 === name.length && latin1Slice.call(buf, i + 1, end) === name) {
        let j = end + 1;
        while (isSpace(buf[j])) j++;
        if (buf[j] === COLON) {
          j++;
          while (isSpace(buf[j])) j++;
          if (buf[j] === OPEN_ARRAY) {
            open = j;
            break;
          }
        }
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  if (open === -1) return undefined;
  // The elements: cut at ',' and the closing ']' outside strings and nested containers.
  const elementOptions: StrictJsonOptions = { ...options, maxDepth: maxDepth - 2 };
  let nested = 0;
  let start = open + 1;
  let index = 0;
  let close = -1;
  for (let i = open + 1; i < n; i++) {
    const c = buf[i];
    if (c === QUOTE) {
      const end = buf.indexOf(QUOTE, i + 1);
      if (end === -1) return undefined;
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) nested++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (nested > 0) {
        nested--;
        continue;
      }
      if (c !== CLOSE_ARRAY) return undefined;
      close = i;
      // "[]" or "[ ]": no element; otherwise the last element ends here.
      let k = start;
      while (k < i && isSpace(buf[k])) k++;
      if (!(index === 0 && k === i) && !element(start, i)) return undefined;
      break;
    } else if (c === COMMA && nested === 0) {
      if (!element(start, i)) return undefined;
      start = i + 1;
    }
  }
  if (close === -1) return undefined;
  const skeleton = parseStrictText(latin1Slice.call(buf, 0, open + 1) + latin1Slice.call(buf, close, n), options);
  if (!skeleton.ok || skeleton.value === null || typeof skeleton.value !== 'object' || Array.isArray(skeleton.value)) return undefined;
  const emptied = skeleton.value[name];
  // The member parsed is the array cut out (not a second member of that name: that is a duplicate, an error).
  if (!Array.isArray(emptied) || emptied.length !== 0) return undefined;
  return skeleton.value;

  function element(from: number, to: number): boolean {
    const parsed = parseStrictTextValue(latin1Slice.call(buf, from, to), elementOptions);
    return parsed.ok && visit(parsed.value, index++);
  }
}
