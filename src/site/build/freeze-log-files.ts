/**
 * The freeze log on the site (issue 30): its bytes as `/freeze-log.jsonl`,
 * byte for byte, each copy `retain` kept as `/freeze-logs/<hex>.jsonl`, and
 * their list as `/freeze-logs.json`
 * (`{"copies": ["<hex>", ...], "schema": "ledgerboard.freeze-logs.v1"}`, RFC
 * 8785 plus a newline), so a stranger re-derives the report's freeze_log,
 * its append-only check included (src/rederive/freeze-log.ts). Nothing is
 * written when the config names no log (the report's freeze_log is null).
 */
import { canonicalJson, digestBytes } from '../../json/canonical.ts';
import type { LoadedFreezeLog } from '../../history/freeze-log-files.ts';
import type { Report } from '../../report/schema.ts';
import type { OutputWriter } from './effects.ts';

/** The site's path of the log, of the copies' list and of a copy. */
export const FREEZE_LOG_PATH = '/freeze-log.jsonl';
export const FREEZE_LOGS_LIST_PATH = '/freeze-logs.json';
export const FREEZE_LOGS_LIST_SCHEMA = 'ledgerboard.freeze-logs.v1';
export const freezeLogCopyPath = (hex: string): string => `/freeze-logs/${hex}.jsonl`;

/** The list of the retained copies the site publishes. */
export function freezeLogsListText(log: LoadedFreezeLog): string {
  return `${canonicalJson({ copies: log.copies.map((c) => c.hex).sort(), schema: FREEZE_LOGS_LIST_SCHEMA })}\n`;
}

/** Writes the log, its copies and their list; returns how many files. Throws (a bug) when the log is not the one the report was made from. */
export async function writeFreezeLogFiles(report: Report, log: LoadedFreezeLog | null, out: OutputWriter): Promise<number> {
  const made = report.freeze_log ?? null;
  if ((made === null) !== (log === null) || (log !== null && made!.digest !== digestBytes(log.bytes))) {
    throw new Error("internal: the freeze log to publish is not the one the report's freeze_log was made from");
  }
  if (log === null) return 0;
  await out.writeFile(FREEZE_LOG_PATH, log.bytes);
  for (const copy of log.copies) {
    if (!/^[0-9a-f]{64}$/.test(copy.hex)) throw new Error(`internal: a retained freeze log named ${JSON.stringify(copy.hex)}`);
    await out.writeFile(freezeLogCopyPath(copy.hex), copy.bytes);
  }
  await out.writeFile(FREEZE_LOGS_LIST_PATH, freezeLogsListText(log));
  return log.copies.length + 2;
}
