/**
 * `ledgerboard import auto`: which importer takes each input, judged from
 * content (each importer's `detect`), never from a file name alone. A
 * directory no importer claims as a whole is opened and each entry judged on
 * its own, so a directory of mixed logs imports in one call.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { compareUtf8 } from '../evidence/paths.ts';
import { ImportError } from './errors.ts';
import type { Importer } from './importer.ts';
import { readImportInput, type ImportInput } from './input.ts';
import type { ImportLimits } from './limits.ts';

/** One input as `import auto` resolved it. */
export type AutoInput =
  | { path: string; input: ImportInput; importer: Importer }
  /** Not importable: unreadable, no format, or several. `found` is true for an entry met while opening a directory (not named on the command line). */
  | { path: string; refused: string; found: boolean };

/** How deep `import auto` opens directories no importer claims. */
export const AUTO_MAX_DEPTH = 8;

/** The importers whose `detect` accepts the input, in registry order. */
export async function formatsOf(input: ImportInput, importers: readonly Importer[], limits: ImportLimits): Promise<Importer[]> {
  const matches: Importer[] = [];
  for (const importer of importers) {
    if (importer.input !== input.kind) continue;
    let yes = false;
    try {
      yes = await importer.detect(input, limits);
    } catch {
      yes = false;
    }
    if (yes) matches.push(importer);
  }
  return matches;
}

/**
 * Resolves the paths given to `import auto`, in order, each directory's
 * entries in byte order: one AutoInput per input found.
 */
export async function resolveAuto(paths: readonly string[], importers: readonly Importer[], limits: ImportLimits): Promise<AutoInput[]> {
  const out: AutoInput[] = [];
  const names = importers.map((i) => i.name).join(', ');
  const visit = async (path: string, depth: number, found: boolean): Promise<void> => {
    let input: ImportInput | null = null;
    let readError: string | null = null;
    try {
      input = await readImportInput(path, limits);
    } catch (error) {
      if (!(error instanceof ImportError)) throw error;
      readError = error.message;
    }
    if (input !== null) {
      const matches = await formatsOf(input, importers, limits);
      if (matches.length === 1) {
        out.push({ path, input, importer: matches[0]! });
        return;
      }
      if (matches.length > 1) {
        out.push({ path, refused: `matches several formats (${matches.map((m) => m.name).join(', ')}): name one, ledgerboard import <format>`, found });
        return;
      }
      if (input.kind === 'file') {
        out.push({ path, refused: `not a format ledgerboard imports (checked its content against: ${names})`, found });
        return;
      }
    }
    // A directory no importer claims (or one too large to read whole): each entry on its own.
    let entries;
    try {
      entries = (await readdir(path, { withFileTypes: true })).filter((e) => !e.name.startsWith('.')).sort((a, b) => compareUtf8(a.name, b.name));
    } catch {
      out.push({ path, refused: readError ?? 'cannot read the input', found });
      return;
    }
    if (depth >= AUTO_MAX_DEPTH) {
      out.push({ path, refused: `no format recognised within ${AUTO_MAX_DEPTH} directory levels`, found });
      return;
    }
    const before = out.length;
    for (const entry of entries) await visit(join(path, entry.name), depth + 1, true);
    if (out.length === before) out.push({ path, refused: `an empty directory: nothing to import (checked against: ${names})`, found });
  };
  for (const path of paths) await visit(path, 0, false);
  return out;
}
