/**
 * The freeze log read back from a site (issue 30): /freeze-log.jsonl, and the
 * copies retain kept of it that /freeze-logs.json lists
 * (/freeze-logs/<hex>.jsonl), checked as the build checked them
 * (src/history/freeze-log.ts), so the report's freeze_log is re-derived,
 * its append-only check included. A site without /freeze-log.jsonl has no
 * log (the report's freeze_log must then be null). Everything read is
 * untrusted: bounded by FREEZE_LOG_MAX_BYTES, the list parsed strictly, a
 * copy's name only ever 64 hex digits.
 */
import { parseStrictJson } from '../json/strict-json.ts';
import { checkFreezeLog, type RetainedFreezeLog } from '../history/freeze-log.ts';
import type { FreezeLogInput } from '../report/freeze-log.ts';
import { FREEZE_LOG_MAX_BYTES } from '../schema/freeze-log.ts';
import type { RederiveLine, SiteGet } from './types.ts';

/** The site's paths (as src/site/build/freeze-log-files.ts writes them). */
const LOG_PATH = '/freeze-log.jsonl';
const LIST_PATH = '/freeze-logs.json';
const LIST_SCHEMA = 'ledgerboard.freeze-logs.v1';
const HEX = /^[0-9a-f]{64}$/;

/** The log as the site publishes it, checked: what the re-derived report's freeze_log is made from (null: the site publishes none), and what was found. */
export async function readSiteFreezeLog(get: SiteGet): Promise<{ input: FreezeLogInput | null; lines: RederiveLine[] }> {
  const bytes = await get(LOG_PATH);
  if (bytes === null) return { input: null, lines: [] };
  const mismatch = (subject: string, detail: string): RederiveLine => ({ status: 'MISMATCH', check: 'freeze log', subject, detail });
  if (bytes.length > FREEZE_LOG_MAX_BYTES) return { input: null, lines: [mismatch(LOG_PATH, `${bytes.length} bytes, over the ${FREEZE_LOG_MAX_BYTES} a freeze log may have: not re-derived`)] };
  const lines: RederiveLine[] = [];
  const copies: RetainedFreezeLog[] = [];
  const list = await get(LIST_PATH);
  if (list === null) lines.push({ status: 'info', check: 'freeze log', subject: LIST_PATH, detail: 'not published: no retained copy of the log is checked' });
  else {
    const hexes = copiesOf(list);
    if (hexes === null) lines.push(mismatch(LIST_PATH, `not {"copies": ["<hex>", ...], "schema": "${LIST_SCHEMA}"}: no retained copy of the log is checked`));
    else {
      for (const hex of hexes) {
        const copy = await get(`/freeze-logs/${hex}.jsonl`);
        if (copy === null) lines.push(mismatch(`/freeze-logs/${hex}.jsonl`, `listed in ${LIST_PATH} but not published`));
        else if (copy.length > FREEZE_LOG_MAX_BYTES) lines.push(mismatch(`/freeze-logs/${hex}.jsonl`, `${copy.length} bytes, over the ${FREEZE_LOG_MAX_BYTES} a freeze log may have`));
        else copies.push({ hex, bytes: copy });
      }
    }
  }
  const input = checkFreezeLog(bytes, copies);
  lines.push({
    status: 'info',
    check: 'freeze log',
    subject: LOG_PATH,
    detail: `read back: ${input.lines} lines, checked against ${copies.length} retained cop${copies.length === 1 ? 'y' : 'ies'} (${input.findings.length} finding${input.findings.length === 1 ? '' : 's'}); the report's freeze_log is re-derived from it`,
  });
  return { input, lines };
}

/** The hexes /freeze-logs.json lists (sorted, each once), or null when it is not that list. */
function copiesOf(bytes: Uint8Array): string[] | null {
  const parsed = parseStrictJson(bytes, { maxDepth: 3 });
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return null;
  const { copies, schema, ...rest } = parsed.value as Record<string, unknown>;
  if (schema !== LIST_SCHEMA || Object.keys(rest).length > 0 || !Array.isArray(copies) || !copies.every((h) => typeof h === 'string' && HEX.test(h))) return null;
  const hexes = copies as string[];
  return hexes.every((h, i) => i === 0 || hexes[i - 1]! < h) ? hexes : null;
}
