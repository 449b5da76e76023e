/**
 * An imported bundle's source as the pages read it: the read side
 * (src/import/sources.ts) over the bundle's published originals (its
 * `source/` files, through published.blob, re-hashed against the digest
 * verification saw), within the same import limits as verification's
 * re-derivation (src/import/original-limits.ts, the report's
 * `import_limits`): judged by the sizes verification saw before a byte is
 * read, and past a limit never read. The plan page's "the source's own
 * figure" (model.ts), the transcript pages (transcripts.ts) and the board
 * pages' splits (import-splits.ts) all read through here; none catches an
 * error itself.
 */
import { importedSource, type ImportedSource } from '../../import/sources.ts';
import type { OriginalsOverLimit } from '../../import/original-limits.ts';
import type { ImportLimits } from '../../import/limits.ts';
import { importLimitsOf } from '../../config/schema.ts';
import type { Report } from '../../report/schema.ts';
import type { Published, PublishedBundle } from './published.ts';
import { sizeText } from './rederive-limit.ts';

/** The import limits of a report: its config's `import_limits` (as the run verified under), else the defaults. */
export function reportImportLimits(report: Pick<Report, 'config'>): ImportLimits {
  return importLimitsOf(report.config);
}

/** The longest original path a sentence quotes (a path is untrusted text: escaped by the page, bounded here). */
const PATH_CHARS = 120;

/**
 * Why the originals are not read for the pages, as the page says it ("the
 * original source/log.json is 2.1 GiB, past import_limits.file_bytes (128
 * MiB): not read for this page").
 */
export function overLimitText(over: OriginalsOverLimit, originals: readonly { bytes: number }[]): string {
  const path = over.file.length > PATH_CHARS ? `${over.file.slice(0, PATH_CHARS)}…` : over.file;
  const what =
    over.member === 'file_bytes'
      ? `the original ${path} is ${sizeText(over.actual)}, past import_limits.file_bytes (${sizeText(over.value)})`
      : over.member === 'files'
        ? `the bundle keeps ${over.actual} originals, past import_limits.files (${over.value})`
        : `the originals are ${sizeText(originals.reduce((n, f) => n + f.bytes, 0))} together, past import_limits.input_bytes (${sizeText(over.value)})`;
  return `${what}: not read for this page`;
}

/** The source of an imported bundle as published (its plan's origin; withheld and unpublished originals make it unreadable). */
export function siteSource(
  origin: { format: string },
  bundle: Pick<PublishedBundle, 'files' | 'withheld' | 'unpublished'>,
  published: Pick<Published, 'blob'>,
  limits: ImportLimits,
): ImportedSource {
  return importedSource(origin, {
    files: bundle.files,
    withheld: bundle.withheld.map((w) => w.path),
    unpublished: bundle.unpublished,
    blob: (sha256) => published.blob(sha256),
    limits,
    overLimitText,
  });
}
