/**
 * What a retained report withheld (issue 16): `ledgerboard retain` keeps,
 * beside a report it retains for the first time, the files whose bytes the
 * site withheld then (config `withhold`), as
 * `<retained_reports_dir>/withheld/<report-hex>.json`:
 * `{"report_id", "files": [{"bundle", "path", "sha256", "bytes", "reason", "until"}]}`,
 * RFC 8785 plus a newline (the same entries as /withheld.json, for the
 * report's bundles), create-only. `"files": []` says nothing was withheld.
 *
 * It is a record beside the report, never part of it: the report and its id
 * are the same with or without it. A report retained before this record
 * existed (or already retained when retain runs again) has none, and its
 * page says "not recorded" instead of guessing. A later build compares the
 * record with what it publishes: a file withheld then whose bytes are now
 * published has been revealed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdirDurable, writeCreateOnlyOrSame } from '../author/create-only.ts';
import { AlreadyExistsError } from '../author/problems.ts';
import { canonicalJson } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';

/** The sub-directory of the retained reports directory that holds the records. */
export const WITHHELD_DIR = 'withheld';

/** One file withheld when the report was retained. */
export interface RetainedWithheldFile {
  /** The bundle's directory hex on the site (its bundle_id's hex when verified). */
  bundle: string;
  path: string;
  sha256: string;
  bytes: number;
  reason: string;
  until: string | null;
}

/** A report's record: the files withheld when it was retained. */
export interface RetainedWithheld {
  report_id: string;
  files: RetainedWithheldFile[];
}

const HEX64 = /^[0-9a-f]{64}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The record's bytes: RFC 8785 plus a newline. */
export function retainedWithheldBytes(record: RetainedWithheld): Buffer {
  return Buffer.from(`${canonicalJson(record)}\n`, 'utf8');
}

/**
 * Writes a report's record, create-only. Returns 'created', 'exists' (the
 * same bytes), or 'kept' when a record with other bytes is already there
 * (an earlier, interrupted retain under other rules): the first record is
 * history and is never overwritten.
 */
export async function writeRetainedWithheld(dir: string, record: RetainedWithheld): Promise<'created' | 'exists' | 'kept'> {
  const root = join(dir, WITHHELD_DIR);
  await mkdirDurable(root);
  try {
    return await writeCreateOnlyOrSame(join(root, `${record.report_id.slice('sha256:'.length)}.json`), retainedWithheldBytes(record));
  } catch (error) {
    if (error instanceof AlreadyExistsError) return 'kept';
    throw error;
  }
}

/**
 * A report's record, or null when there is none (not recorded); a record
 * that does not parse or is not about this report is a problem, named.
 */
export async function readRetainedWithheld(dir: string, hex: string): Promise<{ record: RetainedWithheld | null; problem: string | null }> {
  if (!HEX64.test(hex)) return { record: null, problem: null };
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, WITHHELD_DIR, `${hex}.json`));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { record: null, problem: null };
    throw error;
  }
  const bad = (why: string) => ({ record: null, problem: `${WITHHELD_DIR}/${hex}.json ${why}` });
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return bad('is not strict JSON');
  const value = parsed.value as { report_id?: unknown; files?: unknown };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return bad('is not a JSON object');
  if (value.report_id !== `sha256:${hex}`) return bad('is about another report');
  if (!Array.isArray(value.files)) return bad('has no files list');
  const files: RetainedWithheldFile[] = [];
  for (const f of value.files as unknown[]) {
    const x = f as Record<string, unknown>;
    if (
      x === null || typeof x !== 'object' ||
      typeof x.bundle !== 'string' || !HEX64.test(x.bundle) ||
      typeof x.path !== 'string' || typeof x.sha256 !== 'string' || !DIGEST.test(x.sha256) ||
      typeof x.bytes !== 'number' || !Number.isSafeInteger(x.bytes) || x.bytes < 0 ||
      typeof x.reason !== 'string' || (x.until !== null && typeof x.until !== 'string')
    ) {
      return bad('lists a file that is not {bundle, path, sha256, bytes, reason, until}');
    }
    files.push({ bundle: x.bundle, path: x.path, sha256: x.sha256, bytes: x.bytes, reason: x.reason, until: (x.until as string | null) ?? null });
  }
  return { record: { report_id: `sha256:${hex}`, files }, problem: null };
}
