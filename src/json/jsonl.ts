/**
 * Strict JSONL (FORMAT.md section 2): one JSON object per `\n`-separated line;
 * a final newline is allowed; a blank line, a line holding a CR, or a line
 * whose value is not an object is an error. Every line is parsed (a bad line
 * never hides the findings of the others).
 */
import { isAscii, isUtf8 } from 'node:buffer';
import {
  decodeUtf8,
  parseStrictTextValue,
  type JsonObject,
  type JsonSyntaxError,
  type StrictJsonOptions,
} from './strict-json.ts';

/** One line of a JSONL file: its object, or why it is not one. Lines are 1-based. */
export type JsonlLine =
  | { line: number; ok: true; value: JsonObject }
  | { line: number; ok: false; error: JsonSyntaxError };

/** Splits and strictly parses JSONL bytes; returns one entry per line. */
export function parseStrictJsonl(bytes: Uint8Array, options: StrictJsonOptions = {}): JsonlLine[] {
  const result: JsonlLine[] = [];
  forEachStrictJsonlLine(bytes, (entry) => result.push(entry), options);
  return result;
}

/**
 * {@link parseStrictJsonl} one line at a time, in order: each entry is handed
 * to `visit` as soon as its line is parsed, so a caller that keeps only what
 * it needs never holds every line's text and value at once. Returns the
 * number of lines.
 */
export function forEachStrictJsonlLine(bytes: Uint8Array, visit: (entry: JsonlLine) => void, options: StrictJsonOptions = {}): number {
  let line = 0;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Fast path: the whole file is valid UTF-8 without a BOM, so each line decodes on its own to the same
  // text as its part of the whole file ('\n' is never inside a multi-byte sequence), one short string at a time.
  const decode = startsWithBom(buffer) ? null : isAscii(buffer) ? latin1Slice : isUtf8(buffer) ? utf8Slice : null;
  if (decode !== null) {
    for (let start = 0; start < buffer.length; ) {
      let end = buffer.indexOf(0x0a, start);
      if (end === -1) end = buffer.length;
      visit(parseLine(++line, decode.call(buffer, start, end), options));
      start = end + 1;
    }
    return line;
  }
  for (const text of decodeLines(bytes)) visit(parseLine(++line, text, options));
  return line;
}

function parseLine(line: number, text: string | JsonSyntaxError, options: StrictJsonOptions): JsonlLine {
  if (typeof text !== 'string') return { line, ok: false, error: { ...text, line } };
  if (text.length === 0) return { line, ok: false, error: { message: 'blank line', line, column: 1 } };
  const cr = text.indexOf('\r');
  if (cr !== -1) return { line, ok: false, error: { message: 'line holds a carriage return (CR)', line, column: cr + 1 } };
  const parsed = parseStrictTextValue(text, options);
  if (!parsed.ok) return { line, ok: false, error: { ...parsed.error, line } };
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    return { line, ok: false, error: { message: 'line is not a JSON object', line, column: 1 } };
  }
  return { line, ok: true, value: parsed.value };
}

/**
 * Buffer's own decoders, called directly: `toString(encoding, start, end)`
 * checks and dispatches on every call, once per line. (Node has had them on
 * Buffer.prototype all along; toString is the fallback.)
 */
type Slice = (this: Buffer, start: number, end: number) => string;
const prototype = Buffer.prototype as unknown as { latin1Slice?: Slice; utf8Slice?: Slice };
const latin1Slice: Slice = prototype.latin1Slice ?? function (this: Buffer, start, end) { return this.toString('latin1', start, end); };
const utf8Slice: Slice = prototype.utf8Slice ?? function (this: Buffer, start, end) { return this.toString('utf8', start, end); };

function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Counts the lines of a JSONL file as parseStrictJsonl does (a final newline ends the last line). */
export function countJsonlLines(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let lines = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) lines++;
  return bytes[bytes.length - 1] === 0x0a ? lines : lines + 1;
}

/** Decodes each line; a line that is not valid UTF-8 (or starts the file with a BOM) becomes its error. */
function decodeLines(bytes: Uint8Array): (string | JsonSyntaxError)[] {
  const whole = decodeUtf8(bytes);
  if (whole.ok) return splitLines(whole.text);
  // Slow path: decode line by line so that only the bad lines are lost.
  const out: (string | JsonSyntaxError)[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const decoded = decodeUtf8(bytes.subarray(start, end));
    if (decoded.ok) out.push(decoded.text);
    else out.push(start === 0 ? decoded.error : decodeErrorAfterStart(bytes.subarray(start, end), decoded.error));
    start = end + 1;
  }
  return out;
}

/** A BOM is only special at the start of the file; elsewhere U+FEFF bytes are ordinary (and invalid JSON). */
function decodeErrorAfterStart(line: Uint8Array, error: JsonSyntaxError): string | JsonSyntaxError {
  if (error.message.includes('byte-order mark')) {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(line);
  }
  return error;
}

function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
