/**
 * `ledgerboard import auto`: which importer takes each input, judged from
 * content (each importer's `detect`), never from a file name alone. A
 * directory no importer claims as a whole is opened and each entry judged on
 * its own, so a directory of mixed logs imports in one call.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { compareUtf8 } from '../json/compare.ts';
import { ImportError } from './errors.ts';
import type { Importer } from './importer.ts';
import { readImportInput, type ImportInput } from './input.ts';
import type { ImportLimits } from './limits.ts';
import type { FormatOptions } from './options-file.ts';

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

/** A format's own flag for `import auto`: `--<format>-<flag>`. */
export interface PrefixedFlag {
  importer: Importer;
  /** The importer's flag name (without "--"). */
  flag: string;
  type: 'string' | 'boolean';
}

/**
 * Every format-prefixed flag of the importers, by option name (without
 * "--"): `helm-metric`, `lm-eval-pass-threshold`. Throws (a programming
 * error) if one would be another option's name.
 */
export function prefixedFlags(importers: readonly Importer[], taken: readonly string[]): Map<string, PrefixedFlag> {
  const out = new Map<string, PrefixedFlag>();
  for (const importer of importers) {
    for (const [flag, declared] of Object.entries(importer.flags)) {
      const name = `${importer.name}-${flag}`;
      if (out.has(name) || taken.includes(name)) throw new Error(`import flag --${name} has two meanings`);
      out.set(name, { importer, flag, type: declared.type });
    }
  }
  return out;
}

/** The flags `import auto` hands each format, and where its own ones came from (for the warning when no input is that format). */
export interface AutoFlags {
  /** Format name -> the flags its importer gets. */
  flags: Map<string, Record<string, string | boolean>>;
  /** Format name -> flag -> how that format's own value was given ("--helm-metric", "helm.metric in FILE"), for formats given any. */
  own: Map<string, Map<string, string>>;
}

/**
 * Merges the three ways `import auto` takes format flags: an unprefixed flag
 * (every format that declares it), the options file's member of a format,
 * and `--<format>-<flag>`. A format's own value (file or prefixed) wins over
 * the unprefixed one; the same flag of one format both in the file and on
 * the command line is an ImportError (which would be meant?).
 */
export function autoFlags(
  importers: readonly Importer[],
  values: Readonly<Record<string, string | boolean | undefined>>,
  prefixed: ReadonlyMap<string, PrefixedFlag>,
  file: { name: string; options: FormatOptions } | null,
): AutoFlags {
  const flags = new Map<string, Record<string, string | boolean>>();
  const own = new Map<string, Map<string, string>>();
  for (const importer of importers) {
    const merged: Record<string, string | boolean> = {};
    for (const flag of Object.keys(importer.flags)) {
      const value = values[flag];
      if (value !== undefined) merged[flag] = value;
    }
    const said = new Map<string, string>();
    const fromFile = file?.options.get(importer.name);
    for (const [flag, value] of Object.entries(fromFile ?? {})) {
      merged[flag] = value;
      said.set(flag, `${importer.name}.${flag} in ${file!.name}`);
    }
    for (const [name, p] of prefixed) {
      if (p.importer !== importer || values[name] === undefined) continue;
      if (fromFile !== undefined && Object.hasOwn(fromFile, p.flag)) {
        throw new ImportError(`${importer.name}'s ${p.flag} is given twice: --${name} and ${importer.name}.${p.flag} in ${file!.name}; give it once`);
      }
      merged[p.flag] = values[name]!;
      said.set(p.flag, `--${name}`);
    }
    flags.set(importer.name, merged);
    if (said.size > 0) own.set(importer.name, said);
  }
  return { flags, own };
}

/**
 * What `import auto` says of flags no input used: a format's own flags when
 * no input was that format, an unprefixed flag when no input's format takes
 * it. One sentence each.
 */
export function unusedFlagWarnings(importers: readonly Importer[], used: ReadonlySet<string>, own: ReadonlyMap<string, ReadonlyMap<string, string>>, values: Readonly<Record<string, string | boolean | undefined>>): string[] {
  const warnings: string[] = [];
  for (const importer of importers) {
    const said = own.get(importer.name);
    if (said !== undefined && !used.has(importer.name)) warnings.push(`${[...said.values()].join(', ')} given, but no input was recognised as ${importer.name} (${importer.label}): not used`);
  }
  const generic = [...new Set(importers.flatMap((i) => Object.keys(i.flags)))];
  for (const flag of generic) {
    if (values[flag] === undefined) continue;
    const takers = importers.filter((i) => used.has(i.name) && Object.hasOwn(i.flags, flag));
    if (takers.length === 0) warnings.push(`--${flag} given, but no input's format takes it: not used`);
  }
  return warnings;
}
