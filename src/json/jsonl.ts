/**
 * Strict JSONL (FORMAT.md section 2): one JSON object per `\n`-separated line;
 * a final newline is allowed; a blank line, a line holding a CR, or a line
 * whose value is not an object is an error. Every line is parsed (a bad line
 * never hides the findings of the others).
 */
import {
  decodeUtf8,
  parseStrictText,
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
  const texts = decodeLines(bytes);
  const result: JsonlLine[] = [];
  for (let index = 0; index < texts.length; index++) {
    const line = index + 1;
    const text = texts[index]!;
    if (typeof text !== 'string') {
      result.push({ line, ok: false, error: { ...text, line } });
      continue;
    }
    if (text.length === 0) {
      result.push({ line, ok: false, error: { message: 'blank line', line, column: 1 } });
      continue;
    }
    const cr = text.indexOf('\r');
    if (cr !== -1) {
      result.push({ line, ok: false, error: { message: 'line holds a carriage return (CR)', line, column: cr + 1 } });
      continue;
    }
    const parsed = parseStrictText(text, options);
    if (!parsed.ok) {
      result.push({ line, ok: false, error: { ...parsed.error, line } });
    } else if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      result.push({ line, ok: false, error: { message: 'line is not a JSON object', line, column: 1 } });
    } else {
      result.push({ line, ok: true, value: parsed.value });
    }
  }
  return result;
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
