/**
 * The freeze log, appended to (issue 30): `freeze` adds one line per plan it
 * freezes, `freeze --anchor-only` one per plan it anchors later (the format:
 * src/schema/freeze-log.ts). The log is only ever appended to:
 *
 * - before anything is written, the log is read (a missing file is an empty
 *   log) and refused (FreezeLogFileError, exit 2) when a line does not parse
 *   or its last byte is not "\n": a line added to a broken log would be
 *   read with it, or glued to a line cut short;
 * - a line is appended with O_APPEND (never a rewrite, never a seek), one
 *   write(2) of the whole line, then fsync (and, for a log just created, its
 *   directory); the last byte is checked again through the open file, so a
 *   log cut short since the check is refused then too.
 */
import { constants, type FileHandle, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';
import { readRegularFile } from '../files/read.ts';
import { digestBytes, DIGEST_PATTERN } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { FREEZE_LOG_MAX_BYTES, FREEZE_LOG_SCHEMA, FreezeLogLine, freezeLogLineText, parseFreezeLog } from '../schema/freeze-log.ts';
import { exists, mkdirDurable, syncDirectory } from './create-only.ts';
import { refuse } from './problems.ts';

/** A freeze log (or a retained copy of it) that cannot be used: unreadable, a link, over the bound, or (to append to) a line that does not parse or a last line cut short (exit 2). */
export class FreezeLogFileError extends LedgerboardError {
  static override readonly code: string = 'FREEZE_LOG_UNUSABLE';
  static override readonly exitStatus = EXIT_STATUS.usage;
}

/** The most bytes of a plan.json --anchor-only reads for its line. */
const MAX_PLAN_BYTES = 16 * 1024 * 1024;

/**
 * Reads the log to append to and refuses it when it is not a log freeze may
 * append to (see the module comment). A missing log is fine: the first
 * append creates it.
 */
export async function checkFreezeLogForAppend(path: string): Promise<void> {
  if (!(await exists(path))) return;
  const bytes = await readRegularFile(path, FREEZE_LOG_MAX_BYTES);
  if (bytes === null) throw new FreezeLogFileError(`the freeze log ${path} is not a regular file of at most ${FREEZE_LOG_MAX_BYTES} bytes that can be read (a link is not followed); nothing was written`);
  const { problems } = parseFreezeLog(bytes);
  if (problems.length > 0) {
    const first = problems.slice(0, 3).map((p) => (p.line === undefined ? p.message : `line ${p.line} ${p.message}`));
    throw new FreezeLogFileError(
      `the freeze log ${path} does not parse (${problems.length === 1 ? 'one problem' : `${problems.length} problems`}: ${first.join('; ')}); nothing was written. It is only ever appended to: restore it (from a retained copy, <retained_reports_dir>/freeze-logs/, or the published /freeze-log.jsonl), then freeze again`,
    );
  }
}

/**
 * Appends one line to the log (created when missing, its directory too),
 * durably: see the module comment. Throws FreezeLogFileError when the log's
 * last byte is not "\n" now, and the file system's error when it cannot be
 * written.
 */
export async function appendFreezeLog(path: string, line: FreezeLogLine): Promise<void> {
  const bytes = Buffer.from(freezeLogLineText(line), 'utf8');
  await mkdirDurable(dirname(path));
  const created = !(await exists(path));
  let handle: FileHandle | undefined;
  try {
    // Read-write (the last byte is read through the same descriptor), append-only writes, never through a link, never blocking on a FIFO.
    handle = await open(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
    const stat = await handle.stat();
    if (!stat.isFile()) throw new FreezeLogFileError(`the freeze log ${path} is not a regular file; nothing was appended`);
    if (stat.size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, stat.size - 1);
      if (last[0] !== 0x0a) throw new FreezeLogFileError(`the freeze log ${path} does not end with "\\n" (its last line is cut short); nothing was appended`);
    }
    // One write(2) of the whole line: with O_APPEND the kernel puts it at the end, whatever else appends.
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
    if (bytesWritten !== bytes.length) throw new FreezeLogFileError(`the freeze log ${path} took ${bytesWritten} of the line's ${bytes.length} bytes: restore its last line by hand from the plan (every line ends with "\\n")`);
    await handle.sync();
  } finally {
    await handle?.close();
  }
  if (created) await syncDirectory(dirname(path));
}

/** The line of a frozen plan: its id, created_at, ledger digest and title, and a token's digest (the .tsr file's bytes) or null. */
export function freezeLogLineOf(plan: { plan_id: string; created_at: string; title: string; ledger: { digest: string } }, token: Uint8Array | null): FreezeLogLine {
  return {
    anchor_digest: token === null ? null : digestBytes(token),
    created_at: plan.created_at,
    ledger_digest: plan.ledger.digest,
    plan_id: plan.plan_id,
    schema: FREEZE_LOG_SCHEMA,
    title: plan.title,
  };
}

/** The members a freeze log line takes from DIR/plan.json (for --anchor-only, after frozenPlanId checked the plan id). */
export async function frozenPlanOf(dir: string): Promise<{ plan_id: string; created_at: string; title: string; ledger: { digest: string } }> {
  const file = join(dir, 'plan.json');
  const bytes = await readRegularFile(file, MAX_PLAN_BYTES);
  if (bytes === null) refuse({ file, message: `is not a regular file of at most ${MAX_PLAN_BYTES} bytes that can be read (a link is not followed)` });
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) refuse({ file, message: `is not valid JSON (${parsed.error.message})` });
  const plan = parsed.value as { plan_id?: unknown; created_at?: unknown; title?: unknown; ledger?: { digest?: unknown } };
  const { plan_id, created_at, title } = plan;
  const digest = typeof plan.ledger === 'object' && plan.ledger !== null ? plan.ledger.digest : undefined;
  if (typeof plan_id !== 'string' || !DIGEST_PATTERN.test(plan_id) || typeof created_at !== 'string' || typeof title !== 'string' || typeof digest !== 'string') {
    refuse({ file, message: 'has no plan_id, created_at, title or ledger.digest a freeze log line can take' });
  }
  const checked = FreezeLogLine.safeParse(freezeLogLineOf({ plan_id, created_at, title, ledger: { digest } }, null));
  if (!checked.success) refuse({ file, message: `cannot make a freeze log line (${checked.error.issues[0]!.path.join('.')}: ${checked.error.issues[0]!.message})` });
  return { plan_id, created_at, title, ledger: { digest } };
}
