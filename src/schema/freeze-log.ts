/**
 * The freeze log (issue 30): one line per plan `freeze` froze (and one more
 * each time `freeze --anchor-only` anchored one later), append-only, kept
 * with the history (the config's `freeze_log`). Each line is the RFC 8785
 * form of a FreezeLogLine followed by "\n":
 *
 *   {"anchor_digest":null,"created_at":"...","ledger_digest":"sha256:...","plan_id":"sha256:...","schema":"ledgerboard.freeze-log.v1","title":"..."}
 *
 * Parsed strictly here, every line (a bad line never hides the others): a
 * line that is not valid UTF-8, not strict JSON, not exactly its own RFC
 * 8785 form, not of this schema, or over FREEZE_LOG_MAX_LINE_BYTES is a
 * problem with its line number, and so is a last line without its "\n" (a
 * line cut short). Pure: the bytes in, the lines and problems out.
 */
import { z } from 'zod';
import { canonicalJson } from '../json/canonical.ts';
import { parseStrictTextValue } from '../json/strict-json.ts';
import { Digest, Timestamp } from './common.ts';

/** The file name a freeze log's findings carry (the site's /freeze-log.jsonl; never the config's path, which the report does not hold), and the name init gives the log. */
export const FREEZE_LOG_FILE = 'freeze-log.jsonl';

/** The directory of the copies retain keeps, under the retained reports directory (and on the site, under its root). */
export const FREEZE_LOGS_DIR = 'freeze-logs';

/** The schema every line names. */
export const FREEZE_LOG_SCHEMA = 'ledgerboard.freeze-log.v1';

/** The most bytes of a freeze log read (64 MiB: some 200,000 plans). */
export const FREEZE_LOG_MAX_BYTES = 64 * 1024 ** 2;

/** The most bytes of one line, its "\n" left out (1 MiB, the reader's default line_bytes). */
export const FREEZE_LOG_MAX_LINE_BYTES = 1024 ** 2;

/** The most problems reported one by one; one more problem counts the rest. */
export const FREEZE_LOG_MAX_PROBLEMS = 100;

/** One line of the freeze log: a plan frozen (or anchored later), as `freeze` wrote it. */
export const FreezeLogLine = z.strictObject({
  /** "sha256:" + the hex of the .tsr file's bytes of the token got for this plan (freeze --anchor, --anchor-only); null: none. */
  anchor_digest: Digest.nullable(),
  /** The plan's created_at. */
  created_at: Timestamp,
  /** The plan's ledger.digest. */
  ledger_digest: Digest,
  plan_id: Digest,
  schema: z.literal(FREEZE_LOG_SCHEMA),
  /** The plan's title. */
  title: z.string(),
});
export type FreezeLogLine = z.infer<typeof FreezeLogLine>;

/** A line of the log as written: its RFC 8785 form and "\n". */
export function freezeLogLineText(line: FreezeLogLine): string {
  return `${canonicalJson(FreezeLogLine.parse(line))}\n`;
}

/** A line that does not parse, or the count of those past FREEZE_LOG_MAX_PROBLEMS (line absent). */
export interface FreezeLogProblem {
  line?: number;
  message: string;
}

/** A freeze log read: how many lines, the lines that parse (with their line numbers, in order), and the problems. */
export interface ParsedFreezeLog {
  lines: number;
  entries: (FreezeLogLine & { line: number })[];
  problems: FreezeLogProblem[];
}

const fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses a freeze log's bytes (untrusted: the log is a file anyone with the
 * repository can edit, and a site's /freeze-log.jsonl is a stranger's),
 * every line. The bytes must be at most FREEZE_LOG_MAX_BYTES: the caller
 * reads them bounded (a larger log is refused before this).
 */
export function parseFreezeLog(bytes: Uint8Array): ParsedFreezeLog {
  if (bytes.length > FREEZE_LOG_MAX_BYTES) throw new Error(`internal: a freeze log of ${bytes.length} bytes reached the parser (at most ${FREEZE_LOG_MAX_BYTES})`);
  const entries: ParsedFreezeLog['entries'] = [];
  const problems: FreezeLogProblem[] = [];
  let extra = 0;
  const problem = (line: number, message: string) => {
    if (problems.length < FREEZE_LOG_MAX_PROBLEMS) problems.push({ line, message });
    else extra++;
  };
  let line = 0;
  for (let start = 0; start < bytes.length; ) {
    let end = bytes.indexOf(0x0a, start);
    const cut = end === -1;
    if (cut) end = bytes.length;
    line++;
    // A last line without its "\n" is cut short (or being written): never read, whatever it holds; one problem per line.
    const why = cut ? 'does not end with "\\n": a line cut short (every line of the log ends with a newline)' : lineProblem(bytes.subarray(start, end));
    if (typeof why === 'string') problem(line, why);
    else entries.push({ ...why, line });
    start = end + 1;
  }
  if (extra > 0) problems.push({ message: `and ${extra} more lines that do not parse` });
  return { lines: line, entries, problems };
}

/** One line's bytes (without "\n") as a FreezeLogLine, or why not. */
function lineProblem(bytes: Uint8Array): FreezeLogLine | string {
  if (bytes.length === 0) return 'is blank';
  if (bytes.length > FREEZE_LOG_MAX_LINE_BYTES) return `is ${bytes.length} bytes, over ${FREEZE_LOG_MAX_LINE_BYTES}: not read`;
  let text: string;
  try {
    text = fatal.decode(bytes);
  } catch {
    return 'is not valid UTF-8';
  }
  const parsed = parseStrictTextValue(text, { maxDepth: 4 });
  if (!parsed.ok) return `is not strict JSON (column ${parsed.error.column}: ${parsed.error.message})`;
  const checked = FreezeLogLine.safeParse(parsed.value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    return `is not a ${FREEZE_LOG_SCHEMA} line (${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message})`;
  }
  if (canonicalJson(parsed.value) !== text) return 'is not in its RFC 8785 form (sorted members, no spaces), as freeze writes it';
  return checked.data;
}
