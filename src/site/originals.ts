/**
 * Reading an imported bundle's originals (its published `source/` files) for
 * the pages that show what only they hold: the plan page's "the source's own
 * figure" (model.ts) and the transcript pages (transcripts.ts). They are
 * read under the same import limits as verification's re-derivation
 * (src/import/original-limits.ts, the report's `import_limits`): judged by the
 * sizes verification saw before a byte is read, and past a limit never read
 * (published.blob then reads no more than that size, on a regular file, no
 * link followed). The page says which limit kept them unread.
 */
import { originalsOverLimit } from '../import/original-limits.ts';
import type { Importer } from '../import/importer.ts';
import type { ImportLimits } from '../import/limits.ts';
import { importLimitsOf } from '../config/schema.ts';
import type { Report } from '../report/schema.ts';
import type { Published, SiteFile } from './publish.ts';
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
 * MiB): not read for this page"), or null when they are within the limits.
 */
export function originalsUnread(originals: readonly SiteFile[], importer: Pick<Importer, 'input'>, limits: ImportLimits): string | null {
  const over = originalsOverLimit(originals, importer.input, limits);
  if (over === null) return null;
  const path = over.file.length > PATH_CHARS ? `${over.file.slice(0, PATH_CHARS)}…` : over.file;
  const what =
    over.member === 'file_bytes'
      ? `the original ${path} is ${sizeText(over.actual)}, past import_limits.file_bytes (${sizeText(over.value)})`
      : over.member === 'files'
        ? `the bundle keeps ${over.actual} originals, past import_limits.files (${over.value})`
        : `the originals are ${sizeText(originals.reduce((n, f) => n + f.bytes, 0))} together, past import_limits.input_bytes (${sizeText(over.value)})`;
  return `${what}: not read for this page`;
}

/** The originals' bytes by bundle path, read within the limits; `unread` (the sentence) when a limit keeps them unread. */
export async function readOriginals(
  originals: readonly SiteFile[],
  importer: Pick<Importer, 'input'>,
  limits: ImportLimits,
  published: Pick<Published, 'blob'>,
): Promise<{ bytes: Map<string, Uint8Array>; unread: null } | { bytes: null; unread: string }> {
  const unread = originalsUnread(originals, importer, limits);
  if (unread !== null) return { bytes: null, unread };
  const bytes = new Map<string, Uint8Array>();
  for (const f of originals) bytes.set(f.path, await published.blob(f.sha256));
  return { bytes, unread: null };
}
