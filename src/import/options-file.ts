/**
 * The options file of `ledgerboard import auto --options FILE`: each format's
 * flags, for a directory that mixes formats, e.g.
 *
 *     {"helm": {"metric": "harm_bench_score", "pass-threshold": "1"},
 *      "lm-eval": {"pass-threshold": "0.5"}}
 *
 * Strict JSON, not YAML: one reading only (no implicit types, where YAML
 * reads `1.0` as a number and `no` as false; no anchors or aliases), read
 * with the project's strict I-JSON parser (src/json/strict-json.ts): a member
 * twice, invalid UTF-8, a lone surrogate or nesting past a flag's value is an
 * error. The file is untrusted input like any other: at most
 * OPTIONS_MAX_BYTES, each string at most OPTIONS_MAX_STRING_BYTES. Every
 * problem is an OptionsFileError naming the member (`helm.pass-threshold`)
 * and, for a syntax error, its line and column; never another error.
 *
 * Member names are checked against the registry (src/import/registry.ts):
 * a format name, then that format's declared `flags` (without "--"); a
 * string flag takes a JSON string (as typed on the command line: "0.5", not
 * 0.5), a switch takes true or false.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { parseStrictTextCarefully } from '../json/strict-json.ts';
import { firstInvalidUtf8 } from '../json/utf8.ts';
import type { Importer } from './importer.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** Largest options file read, in bytes. */
export const OPTIONS_MAX_BYTES = 65_536;
/** Longest string (a member name or a value) in an options file, in UTF-8 bytes. */
export const OPTIONS_MAX_STRING_BYTES = 4096;
/** Nesting of an options file: the object (1), a format's object (2), a flag's value (3). */
const OPTIONS_MAX_DEPTH = 3;

/** A problem with an options file: a usage error on the command line (the caller adds the file's name). */
export class OptionsFileError extends LedgerboardError {
  static override readonly code: string = 'IMPORT_OPTIONS_FILE';
  static override readonly exitStatus = EXIT_STATUS.usage;
  static override readonly showsUsage = true;
}

/** Each format's flags from an options file: format name -> flag name (no "--") -> value. */
export type FormatOptions = Map<string, Record<string, string | boolean>>;

/** How a member path is written in messages: `helm.pass-threshold`, `["odd name"]`, `[0]`; the top level as such. */
export function memberName(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'the top level';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${JSON.stringify(part.length > 40 ? `${part.slice(0, 40)}...` : part)}]`;
  }
  return out;
}

/** A JSON string's text between its quotes, decoded when it can be; else the raw text. */
function stringText(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * The members enclosing `offset` of a JSON text that is valid up to there
 * (the parser stops at the first problem): the names and indices of the open
 * containers, without the innermost object's name when a member name comes
 * next there, but with a member name that is still open at the offset.
 * Lenient by design: never throws, whatever the text.
 */
export function pathBefore(text: string, offset: number): (string | number)[] {
  const frames: { key: string | number; expectName: boolean; isArray: boolean }[] = [];
  let open: string | null = null;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    const top = frames[frames.length - 1];
    if (c === 34) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 ? 2 : 1;
      if (end >= offset) {
        if (top && !top.isArray && top.expectName) open = stringText(text.slice(i + 1, Math.min(end, offset)));
        break;
      }
      if (top && !top.isArray && top.expectName) {
        top.key = stringText(text.slice(i + 1, end));
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
  const naming = top !== undefined && !top.isArray && top.expectName;
  const path = (naming ? frames.slice(0, -1) : frames).map((f) => f.key);
  return open !== null ? [...path, open] : path;
}

/** The character offset of a 1-based line and column (UTF-16 code units) of a text. */
function offsetOf(text: string, line: number, column: number): number {
  let start = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', start);
    if (next < 0) break;
    start = next + 1;
  }
  return Math.min(text.length, start + column - 1);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  return typeof value === 'boolean' ? (value ? 'true' : 'false') : typeof value;
}

/**
 * Parses an options file's bytes against the importers (their names and
 * declared flags). Throws OptionsFileError naming the member; never another
 * error, whatever the bytes.
 */
export function parseOptionsFile(bytes: Uint8Array, importers: readonly Importer[]): FormatOptions {
  if (bytes.length > OPTIONS_MAX_BYTES) throw new OptionsFileError(`the file is over ${OPTIONS_MAX_BYTES} bytes, the limit of an options file`);
  // RFC 8259 8.1: a parser may ignore a byte-order mark (some editors write one).
  const body = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    const at = firstInvalidUtf8(body);
    const before = new TextDecoder('utf-8').decode(body.subarray(0, at));
    const line = before.split('\n').length;
    throw new OptionsFileError(`not UTF-8 text: invalid UTF-8 at byte ${at + 1} (line ${line}), in ${memberName(pathBefore(before, before.length))}`);
  }
  const parsed = parseStrictTextCarefully(text, { maxDepth: OPTIONS_MAX_DEPTH, maxStringBytes: OPTIONS_MAX_STRING_BYTES });
  if (!parsed.ok) {
    const e = parsed.error;
    const path = e.string !== undefined ? [...e.string.path] : pathBefore(text, offsetOf(text, e.line, e.column));
    const message = /^nesting deeper than/.test(e.message) ? 'a flag\'s value is a string (or true/false for a switch), never an object or array' : e.message;
    throw new OptionsFileError(`${memberName(path)}: ${message} (line ${e.line}, column ${e.column})`);
  }
  const top = parsed.value;
  const formats = importers.map((i) => i.name).join(', ');
  if (top === null || typeof top !== 'object' || Array.isArray(top)) {
    throw new OptionsFileError(`the top level must be an object mapping format names (${formats}) to their flags, not ${kindOf(top)}`);
  }
  const out: FormatOptions = new Map();
  for (const format of Object.keys(top)) {
    const importer = importers.find((i) => i.name === format);
    if (importer === undefined) throw new OptionsFileError(`${memberName([format])}: not a format (the formats: ${formats}; "auto" takes no options of its own)`);
    const flags = top[format];
    if (flags === null || typeof flags !== 'object' || Array.isArray(flags)) {
      throw new OptionsFileError(`${memberName([format])}: must be an object of ${format}'s flags (e.g. {"${Object.keys(importer.flags)[0] ?? 'flag'}": "VALUE"}), not ${kindOf(flags)}`);
    }
    const declared = Object.keys(importer.flags);
    const values: Record<string, string | boolean> = {};
    for (const name of Object.keys(flags)) {
      const flag = Object.hasOwn(importer.flags, name) ? importer.flags[name] : undefined;
      if (flag === undefined) {
        const hint = name.startsWith('-') && Object.hasOwn(importer.flags, name.replace(/^-+/, '')) ? ` (write it without the leading "--": "${name.replace(/^-+/, '')}")` : '';
        throw new OptionsFileError(`${memberName([format, name])}: ${format} takes no flag of that name${hint} (${declared.length === 0 ? `${format} takes no flags` : `its flags: ${declared.join(', ')}`})`);
      }
      const value = flags[name];
      if (flag.type === 'string' && typeof value !== 'string') {
        throw new OptionsFileError(`${memberName([format, name])}: must be a string, as typed on the command line (e.g. "0.5"), not ${kindOf(value)}`);
      }
      if (flag.type === 'boolean' && typeof value !== 'boolean') throw new OptionsFileError(`${memberName([format, name])}: must be true or false, not ${kindOf(value)}`);
      values[name] = value as string | boolean;
    }
    out.set(format, values);
  }
  return out;
}

/** Reads an options file (at most OPTIONS_MAX_BYTES are read) and parses it; throws OptionsFileError for any problem. */
export async function readOptionsFile(path: string, importers: readonly Importer[]): Promise<FormatOptions> {
  let bytes: Uint8Array;
  try {
    // O_NONBLOCK: a FIFO named as the file is refused below, never waited on.
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) throw new OptionsFileError('not a regular file');
      // One byte more than the limit tells "over the limit" without reading a huge (or endless) file.
      const buffer = Buffer.alloc(OPTIONS_MAX_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length === buffer.length) break;
      }
      bytes = buffer.subarray(0, length);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof OptionsFileError) throw error;
    throw new OptionsFileError(`cannot read it: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseOptionsFile(bytes, importers);
}
