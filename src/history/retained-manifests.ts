/**
 * Retained manifests: what lets a later build say how a plan's files changed.
 * `ledgerboard retain` keeps, beside each retained report, the manifest of
 * every bundle that report counted, as
 * `<retained_reports_dir>/manifests/<bundle-hex>.json` (RFC 8785 plus a
 * newline; the name is the bundle_id, which re-derives from the content).
 * Create-only, like the reports: a manifest is never overwritten.
 *
 * `retain` writes them BEFORE its report, each durably (create-only.ts), and
 * the report last: the report is the commit point, so a report is never on
 * disk without the manifests of the bundles it counted (compare.ts treats a
 * report whose counted manifest is missing as an incomplete retention).
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { mkdirDurable, TEMP_NAME, writeCreateOnly } from '../author/create-only.ts';
import { AlreadyExistsError } from '../author/problems.ts';
import { join } from 'node:path';
import { canonicalJson, selfId } from '../json/canonical.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { Manifest } from '../schema/manifest.ts';
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';

/** The sub-directory of the retained reports directory that holds the manifests. */
export const MANIFESTS_DIR = 'manifests';

const NAME = /^([0-9a-f]{64})\.json$/;

/** The retained manifests as read: the good ones by bundle_id, and every file that is not one, with why. */
export interface RetainedManifests {
  byBundle: Map<string, Manifest>;
  problems: { name: string; problem: string }[];
}

/** Reads `<dir>/manifests/` (missing: none). Symbolic links and other non-files are problems, never followed. */
export async function readRetainedManifests(dir: string): Promise<RetainedManifests> {
  const root = join(dir, MANIFESTS_DIR);
  const result: RetainedManifests = { byBundle: new Map(), problems: [] };
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result;
    throw error;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    // A temporary file an interrupted retain left (create-only.ts) is not a manifest and not a problem.
    if (entry.isFile() && TEMP_NAME.test(entry.name)) continue;
    const match = NAME.exec(entry.name);
    if (!entry.isFile()) result.problems.push({ name: entry.name, problem: 'not a regular file (never followed)' });
    else if (!match) result.problems.push({ name: entry.name, problem: 'not named <bundle-hex>.json' });
    else {
      const checked = checkRetainedManifest(match[1]!, await readFile(join(root, entry.name)));
      if (checked.manifest) result.byBundle.set(checked.manifest.bundle_id, checked.manifest);
      else result.problems.push({ name: entry.name, problem: checked.problem });
    }
  }
  return result;
}

/** Parses one retained manifest strictly and re-derives its bundle_id, which must be its name. */
export function checkRetainedManifest(hex: string, bytes: Uint8Array): { manifest: Manifest; problem?: undefined } | { manifest: null; problem: string } {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) return { manifest: null, problem: `not strict JSON (line ${parsed.error.line}, column ${parsed.error.column}: ${parsed.error.message})` };
  const schema = Manifest.safeParse(parsed.value);
  if (!schema.success) return { manifest: null, problem: 'not a ledgerboard.manifest.v1 manifest' };
  const derived = selfId(schema.data, 'bundle_id');
  if (derived !== schema.data.bundle_id) return { manifest: null, problem: `bundle_id ${schema.data.bundle_id} does not re-derive (the content hashes to ${derived}): the file was edited` };
  if (derived !== `sha256:${hex}`) return { manifest: null, problem: `the file name says sha256:${hex} but the manifest is ${derived}` };
  return { manifest: schema.data };
}

/**
 * Writes manifests create-only and durably (each fsynced, with its
 * directory, before the next), in the order given. A file already there is
 * fine when it is this manifest: the same bytes, or any strict JSON of it
 * whose bundle_id re-derives (such as the bundle's own manifest.json copied
 * back to finish an interrupted retention). Anything else is an error.
 */
export async function retainManifests(dir: string, manifests: readonly Manifest[]): Promise<{ created: number; existing: number }> {
  const root = join(dir, MANIFESTS_DIR);
  await mkdirDurable(root);
  let created = 0;
  let existing = 0;
  for (const manifest of manifests) {
    const hex = manifest.bundle_id.slice(7);
    const path = join(root, `${hex}.json`);
    try {
      await writeCreateOnly(path, Buffer.from(`${canonicalJson(manifest)}\n`, 'utf8'));
      created++;
      continue;
    } catch (error) {
      if (!(error instanceof AlreadyExistsError)) throw error;
    }
    // Something is there: it counts only if the reader would use it (a regular file, never followed, that checks, with this id).
    const there = (await lstat(path)).isFile() ? checkRetainedManifest(hex, await readFile(path)) : null;
    if (there?.manifest?.bundle_id !== manifest.bundle_id) {
      throw new RetainedManifestError(`${path} already exists and is not this manifest; retained manifests are never overwritten`);
    }
    existing++;
  }
  return { created, existing };
}

/** A retained manifest that cannot be written without rewriting history. */
export class RetainedManifestError extends LedgerboardError {
  static override readonly code: string = 'RETAINED_MANIFEST_REWRITE';
  static override readonly exitStatus = EXIT_STATUS.notVerified;
}
