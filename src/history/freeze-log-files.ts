/**
 * The freeze log on disk (issue 30): the config's `freeze_log` read bounded
 * (a missing file is an empty log: the config says there is a log, and
 * nothing has been frozen into it yet, docs/format-decisions.md), the copies
 * `retain` kept of it (`<retained_reports_dir>/freeze-logs/<hex>.jsonl`,
 * hex the SHA-256 of the copy's bytes), and retain's new copy, create-only.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readRegularFile } from '../files/read.ts';
import { digestHex, digestBytes } from '../json/canonical.ts';
import { mkdirDurable, writeCreateOnlyOrSame } from '../author/create-only.ts';
import { FreezeLogFileError } from '../author/freeze-log.ts';

export { FreezeLogFileError };
import { FREEZE_LOG_MAX_BYTES } from '../schema/freeze-log.ts';
import { checkFreezeLog, FREEZE_LOGS_DIR, type RetainedFreezeLog } from './freeze-log.ts';
import type { FreezeLogInput } from '../report/freeze-log.ts';

/** The freeze log as the pipeline read it: its bytes, the retained copies, and what the report is made from. */
export interface LoadedFreezeLog {
  bytes: Uint8Array;
  copies: RetainedFreezeLog[];
  input: FreezeLogInput;
}

const COPY_NAME = /^([0-9a-f]{64})\.jsonl$/;

/** The log's bytes: empty when the file does not exist; a FreezeLogFileError when it cannot be read whole within FREEZE_LOG_MAX_BYTES. */
export async function readFreezeLogFile(path: string): Promise<Uint8Array> {
  try {
    await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Uint8Array(0);
    throw new FreezeLogFileError(`the freeze log ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const bytes = await readRegularFile(path, FREEZE_LOG_MAX_BYTES);
  if (bytes === null) throw new FreezeLogFileError(`the freeze log ${path} is not a regular file of at most ${FREEZE_LOG_MAX_BYTES} bytes that can be read (a link is not followed)`);
  return bytes;
}

/** The copies retain kept, sorted by name; other names in the directory are not copies and are left alone. */
export async function readRetainedFreezeLogs(retainedDir: string): Promise<RetainedFreezeLog[]> {
  const dir = join(retainedDir, FREEZE_LOGS_DIR);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new FreezeLogFileError(`the retained freeze logs ${dir} cannot be listed (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const copies: RetainedFreezeLog[] = [];
  for (const name of names.sort()) {
    const hex = COPY_NAME.exec(name)?.[1];
    if (hex === undefined) continue;
    const bytes = await readRegularFile(join(dir, name), FREEZE_LOG_MAX_BYTES);
    if (bytes === null) throw new FreezeLogFileError(`the retained freeze log ${join(dir, name)} is not a regular file of at most ${FREEZE_LOG_MAX_BYTES} bytes that can be read (a link is not followed)`);
    copies.push({ hex, bytes });
  }
  return copies;
}

/** The config's freeze log and its retained copies (none without a retained reports directory), checked; null when the config names no log. */
export async function loadFreezeLog(path: string | null, retainedDir: string | null): Promise<LoadedFreezeLog | null> {
  if (path === null) return null;
  const bytes = await readFreezeLogFile(path);
  const copies = retainedDir === null ? [] : await readRetainedFreezeLogs(retainedDir);
  return { bytes, copies, input: checkFreezeLog(bytes, copies) };
}

/**
 * Keeps a copy of the log as retain saw it, create-only:
 * `<retainedDir>/freeze-logs/<hex>.jsonl`. An empty log needs no copy
 * ('empty'); the same copy already there is 'exists'.
 */
export async function retainFreezeLog(retainedDir: string, bytes: Uint8Array): Promise<{ path: string | null; outcome: 'created' | 'exists' | 'empty' }> {
  if (bytes.length === 0) return { path: null, outcome: 'empty' };
  const dir = join(retainedDir, FREEZE_LOGS_DIR);
  await mkdirDurable(dir);
  const path = join(dir, `${digestHex(digestBytes(bytes))}.jsonl`);
  return { path, outcome: await writeCreateOnlyOrSame(path, bytes, `the retained freeze log ${path}`) };
}
