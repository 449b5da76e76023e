/**
 * The freeze log checked (issue 30): its lines parsed strictly
 * (FREEZE_LOG_UNREADABLE for each line that does not parse, with its line
 * number), and every copy `retain` kept of it
 * (`<retained_reports_dir>/freeze-logs/<sha256-hex>.jsonl`) a byte prefix of
 * it (FREEZE_LOG_REWRITTEN otherwise: a line removed or rewritten since that
 * copy, named with the first line that differs or is missing). Pure: the
 * build, report, retain and a stranger's re-derivation (from the site's
 * /freeze-log.jsonl and /freeze-logs/<hex>.jsonl) call it on bytes.
 */
import { digestBytes } from '../json/canonical.ts';
import { FREEZE_LOG_FILE, FREEZE_LOGS_DIR, parseFreezeLog } from '../schema/freeze-log.ts';
import { finding, type Finding } from '../verify/findings.ts';
import type { FreezeLogInput } from '../report/freeze-log.ts';

export { FREEZE_LOG_FILE, FREEZE_LOGS_DIR };

/** A retained copy of the log: the hex of its name and its bytes. */
export interface RetainedFreezeLog {
  hex: string;
  bytes: Uint8Array;
}

/** The log's bytes checked against the retained copies: what the report's freeze_log is made from. */
export function checkFreezeLog(bytes: Uint8Array, retained: readonly RetainedFreezeLog[]): FreezeLogInput {
  const parsed = parseFreezeLog(bytes);
  const findings: Finding[] = parsed.problems.map((p) => finding('FREEZE_LOG_UNREADABLE', FREEZE_LOG_FILE, p.line === undefined ? p.message : `line ${p.line} ${p.message}`, p.line));
  for (const copy of [...retained].sort((a, b) => (a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0))) {
    const rewritten = rewrittenSince(copy, bytes);
    if (rewritten !== null) findings.push(rewritten);
  }
  return { digest: digestBytes(bytes), lines: parsed.lines, entries: parsed.entries.map(({ line: _line, ...entry }) => entry), findings };
}

/** The retained copies that are not a prefix of `bytes` (by hex), for retain's refusal. */
export function rewrittenCopies(input: FreezeLogInput): Finding[] {
  return input.findings.filter((f) => f.code === 'FREEZE_LOG_REWRITTEN');
}

/** FREEZE_LOG_REWRITTEN when the retained copy is not a byte prefix of the log (or not the bytes its name says), else null. */
function rewrittenSince(copy: RetainedFreezeLog, log: Uint8Array): Finding | null {
  const name = `${FREEZE_LOGS_DIR}/${copy.hex}.jsonl`;
  const actual = digestBytes(copy.bytes);
  if (actual !== `sha256:${copy.hex}`) {
    return finding('FREEZE_LOG_REWRITTEN', FREEZE_LOG_FILE, `the retained copy ${name} does not hash to its name (its bytes are ${actual}): the history it kept was edited, so the log cannot be shown to be only appended to`);
  }
  if (isPrefix(copy.bytes, log)) return null;
  const kept = lineStarts(copy.bytes);
  const now = lineStarts(log);
  for (let i = 0; i < kept.length; i++) {
    const keptLine = copy.bytes.subarray(kept[i]!, kept[i + 1] ?? copy.bytes.length);
    const line = i + 1;
    if (i >= now.length) {
      return finding('FREEZE_LOG_REWRITTEN', FREEZE_LOG_FILE, `line ${line} is missing: the retained copy ${name} (${kept.length} lines) has it, and the log now has ${now.length} lines (a line removed: the log is only ever appended to)`, line);
    }
    const nowLine = log.subarray(now[i]!, now[i + 1] ?? log.length);
    if (!sameBytes(keptLine, nowLine)) {
      return finding('FREEZE_LOG_REWRITTEN', FREEZE_LOG_FILE, `line ${line} differs from line ${line} of the retained copy ${name} (${kept.length} lines; the log now has ${now.length}): a line removed or rewritten since that copy was kept (the log is only ever appended to)`, line);
    }
  }
  // Unreachable for a copy that is not a prefix (its lines all equal means its bytes are a prefix), kept for safety.
  return finding('FREEZE_LOG_REWRITTEN', FREEZE_LOG_FILE, `the retained copy ${name} is not a byte prefix of the log`);
}

/** The offsets at which each line of `bytes` starts. */
function lineStarts(bytes: Uint8Array): number[] {
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; ) {
    starts.push(at);
    const end = bytes.indexOf(0x0a, at);
    if (end === -1) break;
    at = end + 1;
  }
  return starts;
}

function isPrefix(prefix: Uint8Array, whole: Uint8Array): boolean {
  return prefix.length <= whole.length && sameBytes(prefix, whole.subarray(0, prefix.length));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
