/**
 * The pure part of an import: an input mapped by its importer, and what
 * every importer promises checked. No disk access (import-input.ts writes the
 * bundle; rederive.ts runs this on a bundle's kept originals, also in a
 * browser worker).
 */
import { Buffer } from 'node:buffer';
import type { Importer, ImportRequest, MappedBundle } from './importer.ts';
import type { ImportInput } from './input-shape.ts';

/**
 * Maps an input with its importer, without touching the disk (the pure part
 * of an import), and checks what every importer promises: a directory
 * importer keeps each original it lists under `source/` byte for byte.
 */
export async function mapImportInput(importer: Importer, input: ImportInput, request: ImportRequest): Promise<MappedBundle> {
  const mapped = await importer.map(input, request);
  const sources = [...mapped.files.keys()].filter((p) => p.startsWith('source/'));
  if (sources.length === 0) throw new Error(`importer ${importer.name} kept no original under source/`);
  if (importer.input === 'directory') {
    for (const path of sources) {
      const original = input.files.get(path.slice('source/'.length));
      if (original === undefined || !Buffer.from(original).equals(Buffer.from(mapped.files.get(path)!))) {
        throw new Error(`importer ${importer.name} wrote ${path}, which is not the input file of that relative path byte for byte`);
      }
    }
  }
  const renamed = input.renamed ?? [];
  if (renamed.length === 0) return mapped;
  // Said on stderr with the rest of what the bundle cannot say (its kept originals carry the plain names only).
  const shown = renamed.slice(0, RENAMES_SHOWN).map((r) => `${JSON.stringify(r.from)} as ${JSON.stringify(r.to)}`);
  const more = renamed.length > RENAMES_SHOWN ? ` and ${renamed.length - RENAMES_SHOWN} more` : '';
  const line = `${renamed.length} file${renamed.length === 1 ? '' : 's'} whose path is not plain read under the plain path: ${shown.join(', ')}${more}`;
  return { ...mapped, summary: { ...mapped.summary, unkept: [...(mapped.summary.unkept ?? []), line] } };
}

/** The renamed files the import command names one by one (the rest are counted). */
const RENAMES_SHOWN = 10;
