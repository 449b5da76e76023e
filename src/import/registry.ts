/**
 * Every importer, in the order `import auto` tries them and `--help` lists
 * them. Adding a format: one module under src/import/<format>/ exporting an
 * Importer (its write side in importer.ts, its read side in
 * source-reader.ts, which carries the format's name, origin, label and
 * input), one line here and one in source-registry.ts (the read side alone,
 * what the site loads), one section in docs/importing.md. The site never
 * calls a format's read side directly: it asks sources.ts.
 */
import type { Importer } from './importer.ts';
import { inspectImporter } from './inspect/importer.ts';
import { lmEvalImporter } from './lmeval/importer.ts';
import { helmImporter } from './helm/importer.ts';
import { sweBenchImporter } from './swebench/importer.ts';
import { tbenchImporter } from './tbench/importer.ts';
import { eeeImporter } from './eee/importer.ts';

export const IMPORTERS: readonly Importer[] = [inspectImporter, lmEvalImporter, helmImporter, sweBenchImporter, tbenchImporter, eeeImporter];

/** The importer of a command's format argument, or undefined. */
export function importerNamed(name: string): Importer | undefined {
  return IMPORTERS.find((i) => i.name === name);
}

/** The importer whose bundles carry this `origin.format`, or undefined. */
export function importerOfOrigin(origin: string): Importer | undefined {
  return IMPORTERS.find((i) => i.origin === origin);
}
