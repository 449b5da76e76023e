/**
 * The read side of every format, found by the `origin.format` its bundles
 * carry: each src/import/<format>/source-reader.ts, and nothing of the
 * formats' write side (map.ts, the manifest writer), so the site, which asks
 * only src/import/sources.ts, never loads an importer's writer. The same
 * formats, in the same order, as registry.ts's IMPORTERS (each Importer
 * spreads its source reader: test/import/sources.test.ts holds them equal).
 */
import type { SourceFormat } from './importer.ts';
import { eeeSourceReader } from './eee/source-reader.ts';
import { helmSourceReader } from './helm/source-reader.ts';
import { inspectSourceReader } from './inspect/source-reader.ts';
import { lmEvalSourceReader } from './lmeval/source-reader.ts';
import { sweSourceReader } from './swebench/source-reader.ts';
import { tbenchSourceReader } from './tbench/source-reader.ts';

export const SOURCE_READERS: readonly SourceFormat[] = [inspectSourceReader, lmEvalSourceReader, helmSourceReader, sweSourceReader, tbenchSourceReader, eeeSourceReader];

/** The read side of the format whose bundles carry this `origin.format`, or undefined. */
export function sourceReaderOfOrigin(origin: string): SourceFormat | undefined {
  return SOURCE_READERS.find((r) => r.origin === origin);
}
