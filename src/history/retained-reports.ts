/**
 * Retained reports: the published history. `ledgerboard retain` writes the
 * current report as <retained_reports_dir>/<report-hex>.json, create-only;
 * every build re-reads them all, re-derives each id, and publishes them at
 * their own URLs whatever later evidence says. An edited retained report is
 * shown as such on the archive page, never silently accepted.
 */
import { FREEZE_LOG_FILE } from '../schema/freeze-log.ts';
import { readdir, readFile } from 'node:fs/promises';
import { mkdirDurable, TEMP_NAME, writeCreateOnlyOrSame } from '../author/create-only.ts';
import { AlreadyExistsError } from '../author/problems.ts';
import { join } from 'node:path';
import { canonicalJson, selfId } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { Report } from '../report/schema.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** A retained report as the build found it. */
export interface RetainedReport {
  hex: string;
  /** Bytes exactly as stored (published verbatim at /reports/<hex>.json). */
  bytes: Uint8Array;
  /** The parsed report, when it parsed and fits the schema. */
  report: Report | null;
  /** Problems: an id that does not re-derive, a name that is not the id, bad JSON or schema. */
  problems: string[];
}

const NAME = /^([0-9a-f]{64})\.json$/;

/** Reads every retained report of a directory (missing directory: none), sorted by evidence date then id. */
export async function readRetained(dir: string): Promise<{ reports: RetainedReport[]; ignored: string[] }> {
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { reports: [], ignored: [] };
    throw error;
  }
  const reports: RetainedReport[] = [];
  const ignored: string[] = [];
  for (const name of names.sort()) {
    // A temporary file an interrupted retain left (create-only.ts): not part of the history, not worth a warning.
    if (TEMP_NAME.test(name)) continue;
    // The freeze log where init puts it (history/freeze-log.jsonl, beside the reports): history too, not a stray file.
    if (name === FREEZE_LOG_FILE) continue;
    const match = NAME.exec(name);
    if (!match) {
      ignored.push(name);
      continue;
    }
    const hex = match[1]!;
    const bytes = await readFile(join(dir, name));
    reports.push({ hex, bytes, ...checkRetained(hex, bytes) });
  }
  reports.sort((a, b) => {
    const da = a.report?.evidence_date ?? '';
    const db = b.report?.evidence_date ?? '';
    return da < db ? -1 : da > db ? 1 : a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0;
  });
  return { reports, ignored };
}

/** Re-derives a retained report's id and checks its name, JSON and schema. */
export function checkRetained(hex: string, bytes: Uint8Array): { report: Report | null; problems: string[] } {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return { report: null, problems: [`not strict JSON (line ${parsed.error.line}, column ${parsed.error.column}: ${parsed.error.message})`] };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { report: null, problems: ['not a JSON object'] };
  const problems: string[] = [];
  const claimed = typeof value.report_id === 'string' ? value.report_id : null;
  const derived = selfId(value, 'report_id');
  if (claimed !== derived) problems.push(`report_id ${claimed ?? '(none)'} does not re-derive: the content hashes to ${derived} (the file was edited)`);
  if (derived !== `sha256:${hex}`) problems.push(`the file name says sha256:${hex} but the content hashes to ${derived}`);
  const schema = Report.safeParse(value);
  if (!schema.success) problems.push(`not a ledgerboard.report.v1 report (${schema.error.issues.length} schema problems)`);
  return { report: schema.success ? schema.data : null, problems };
}

/** The bytes a report is retained as: RFC 8785 plus a final newline. */
export function retainedBytes(report: Report): string {
  return `${canonicalJson(report)}\n`;
}

/**
 * Writes a report into the retained directory, create-only and durably (the
 * commit point of `retain`: called only after the manifests of the bundles it
 * counted are on disk, src/cli/retain-command.ts). Returns 'created',
 * or 'exists' when a file with the same id and the same bytes is already there;
 * a file with that name and other bytes is an error (history is never rewritten).
 */
export async function retainReport(dir: string, report: Report): Promise<{ path: string; outcome: 'created' | 'exists' }> {
  await mkdirDurable(dir);
  const path = join(dir, `${report.report_id.slice(7)}.json`);
  try {
    return { path, outcome: await writeCreateOnlyOrSame(path, Buffer.from(retainedBytes(report), 'utf8')) };
  } catch (error) {
    if (error instanceof AlreadyExistsError) throw new RetainError(`${path} already exists with other content; retained reports are never overwritten`);
    throw error;
  }
}

/** A retained report that cannot be written without rewriting history. */
export class RetainError extends LedgerboardError {
  static override readonly code: string = 'RETAIN_REWRITE';
  static override readonly exitStatus = EXIT_STATUS.notVerified;
}
