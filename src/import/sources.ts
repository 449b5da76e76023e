/**
 * The read side of the importers, as the site asks for it (stage 4): for an
 * imported bundle (its plan's `origin.format`) and a way to read its
 * published originals (its `source/` files), the source's own figure, its
 * transcripts, the flags that re-run its import, its pass rule and how its
 * run configuration differs from another's. The format's reader
 * (src/import/<format>/source-reader.ts, found in source-registry.ts) does the
 * reading; this module decides what a failure is:
 *
 * - **cannot be read** (`{ ok: false, unreadable }`, a sentence the page
 *   shows): the format is not one this version reads, the bundle keeps no
 *   originals, some are withheld from the site, they pass the report's
 *   import limits (judged from their sizes before a byte is read:
 *   original-limits.ts), the blob reader says one cannot be read
 *   (OriginalUnreadableError), or the bytes do not read as the format (the
 *   reader's ImportError, ImportLimitError included);
 * - **a bug** (anything else: a TypeError, a broken invariant, evidence
 *   that changed during the build): thrown, so the build fails instead of
 *   hiding it. Nothing here catches more than those two error classes.
 *
 * Untrusted bytes enter here too: the originals are the bundle's, and the
 * readers parse them strictly, within the import limits.
 */
import { EXIT_STATUS, LedgerboardError } from '../errors.ts';
import { ImportError } from './errors.ts';
import type { SourceFormat, SourceMetric } from './importer.ts';
import type { ImportLimits } from './limits.ts';
import { originalsOverLimit, type OriginalsOverLimit } from './original-limits.ts';
import { sourceReaderOfOrigin } from './source-registry.ts';
import type { Transcript } from './transcript.ts';

/** Why a source cannot be read, by kind (the sentence is in `unreadable`). */
export type UnreadableCause = 'format' | 'absent' | 'withheld' | 'limit' | 'blob' | 'bytes';

/** What the read side gives: the value, or why the source cannot be read. */
export type SourceRead<T> = { ok: true; value: T } | { ok: false; unreadable: string; cause: UnreadableCause };

/**
 * The error a blob reader throws for an original it cannot give (e.g. one a
 * copy of the site does not hold): the source is then "cannot be read" with
 * this message. Any other error from the blob reader is a failure.
 */
export class OriginalUnreadableError extends LedgerboardError {
  static override readonly code: string = 'SOURCE_ORIGINAL_UNREADABLE';
  static override readonly exitStatus = EXIT_STATUS.internal;
  override readonly name = 'OriginalUnreadableError';
}

/** A kept original as published: its bundle path (under `source/`), digest and size. */
export interface OriginalFile {
  path: string;
  sha256: string;
  bytes: number;
}

/** How the read side reaches one bundle's originals. */
export interface SourceAccess {
  /** The bundle's published files (only those under `source/` are read; withheld ones are absent). */
  files: readonly OriginalFile[];
  /** The bundle paths of its withheld files (those under `source/` make the source unreadable). */
  withheld: readonly string[];
  /** The bundle paths of files whose bytes are not published (not a regular file, unreadable): under `source/`, the source is unreadable. */
  unpublished?: readonly string[];
  /** A published file's bytes by digest (checked against it); OriginalUnreadableError for one it cannot give. */
  blob(sha256: string): Promise<Uint8Array>;
  /** The import limits the originals are read within (the report's `import_limits`). */
  limits: ImportLimits;
  /** The sentence for originals past a limit (the site's wording); without it, a plain one. */
  overLimitText?(over: OriginalsOverLimit, originals: readonly OriginalFile[]): string;
}

/** The longest reason a page shows (a reader's message may quote untrusted names: bounded here, escaped by the page). */
export const REASON_CHARS = 400;
/** The longest format name a reason quotes. */
const FORMAT_CHARS = 60;

/** One imported bundle's source, as the site reads it. */
export interface ImportedSource {
  /** The plan's origin.format. */
  readonly format: string;
  /** The format's label ("Inspect AI eval log"), or null for a format this version does not read. */
  readonly label: string | null;
  /** The importer's command name ("inspect"), or null for a format this version does not read. */
  readonly name: string | null;
  /** Whether its input is one file or a directory; null for a format this version does not read. */
  readonly input: 'file' | 'directory' | null;
  /** Whether the format reports a figure of its own / records transcripts / names configuration differences. */
  readonly reportsFigure: boolean;
  readonly recordsTranscripts: boolean;
  readonly comparesConfigurations: boolean;
  /** The bundle's published originals (under `source/`), in listing order. */
  readonly originals: readonly OriginalFile[];
  /** Why the originals cannot be read at all (no format reader, none kept, withheld, past a limit), or null: judged without reading a byte. */
  available(): SourceRead<null>;
  /** The source's own figures for the graded score; `value` null when it reports none (or there is no scorer). */
  ownFigure(graderId: string): Promise<SourceRead<SourceMetric[] | null>>;
  /** Every attempt's transcript, keyed by transcriptKey(task id, attempt index); an empty map for a format that records none. */
  transcripts(): Promise<SourceRead<ReadonlyMap<string, Transcript>>>;
  /** The components of the run configuration that differ from another source of the same format's (empty for a format that compares none). */
  configurationDifferences(other: ImportedSource): Promise<SourceRead<string[]>>;
  /** The format flags that re-run the import, read back from the plan (each an argument list); empty when the defaults do or the format is not read. */
  rerunFlags(plan: { grader: { id: string } }): string[][];
  /** The format's rule for "resolved", read back from the plan; null when the format states none here. */
  passRule(plan: { grader: { id: string } }): string | null;
}

/** A reason as the page shows it: one line, bounded. */
function bounded(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > REASON_CHARS ? `${line.slice(0, REASON_CHARS)}…` : line;
}

function unreadable<T>(cause: UnreadableCause, text: string): SourceRead<T> {
  return { ok: false, unreadable: bounded(text), cause };
}

/** The plain sentence for originals past a limit (the site passes its own wording). */
function plainOverLimit(over: OriginalsOverLimit): string {
  return `the originals pass import_limits.${over.member} (${over.value}; they have ${over.actual}): not read`;
}

/**
 * Runs one read, turning the errors that mean "this source cannot be read"
 * (the reader's ImportError, the blob reader's OriginalUnreadableError) into
 * `unreadable`; everything else propagates.
 */
async function guarded<T>(read: () => Promise<T> | T): Promise<SourceRead<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    if (error instanceof OriginalUnreadableError) return unreadable('blob', error.message);
    if (error instanceof ImportError) return unreadable('bytes', error.message);
    throw error;
  }
}

/** How one source reads another's bytes (configurationDifferences), without a public member. */
const BYTES = Symbol('originals');
type ImportedSourceInternal = ImportedSource & { [BYTES]: () => Promise<SourceRead<Map<string, Uint8Array>>> };

/** The source of an imported bundle: its format's reader over the bundle's published originals. */
export function importedSource(origin: { format: string }, access: SourceAccess): ImportedSource {
  const reader: SourceFormat | undefined = sourceReaderOfOrigin(origin.format);
  const originals = access.files.filter((f) => f.path.startsWith('source/'));
  const withheld = access.withheld.filter((p) => p.startsWith('source/'));
  const unpublished = (access.unpublished ?? []).filter((p) => p.startsWith('source/'));

  const available = (): SourceRead<null> => {
    if (reader === undefined) {
      const format = origin.format.length > FORMAT_CHARS ? `${origin.format.slice(0, FORMAT_CHARS)}…` : origin.format;
      return unreadable('format', `this version of ledgerboard does not read the format ${JSON.stringify(format)}`);
    }
    if (withheld.length > 0) {
      const first = withheld[0]!;
      return unreadable('withheld', withheld.length === 1 ? `the original ${first} is withheld from this site` : `${withheld.length} originals (${first} and others) are withheld from this site`);
    }
    if (unpublished.length > 0) return unreadable('absent', `the original ${unpublished[0]!} is not published (not a regular file, or unreadable when the build read it)`);
    if (originals.length === 0) return unreadable('absent', 'the bundle keeps no originals (no source/ files)');
    const over = originalsOverLimit(originals, reader.input, access.limits);
    if (over !== null) return unreadable('limit', (access.overLimitText ?? plainOverLimit)(over, originals));
    return { ok: true, value: null };
  };

  /** The originals' bytes by bundle path (each re-hashed by the blob reader), read afresh for each use: nothing is kept. */
  const bytes = async (): Promise<SourceRead<Map<string, Uint8Array>>> => {
    const gate = available();
    if (!gate.ok) return gate;
    return guarded(async () => {
      const out = new Map<string, Uint8Array>();
      for (const f of originals) out.set(f.path, await access.blob(f.sha256));
      return out;
    });
  };

  const source: ImportedSource = {
    format: origin.format,
    label: reader?.label ?? null,
    name: reader?.name ?? null,
    input: reader?.input ?? null,
    reportsFigure: reader?.sourceMetrics !== undefined,
    recordsTranscripts: reader?.transcripts !== undefined,
    comparesConfigurations: reader?.configurationDifferences !== undefined,
    originals,
    available,
    async ownFigure(graderId) {
      if (reader !== undefined && (reader.sourceMetrics === undefined || graderId === 'none')) {
        // Nothing to read, but a source past a limit (or withheld) is still said to be unread.
        const gate = available();
        return gate.ok ? { ok: true, value: null } : gate;
      }
      const read = await bytes();
      if (!read.ok) return read;
      return guarded(() => reader!.sourceMetrics!(read.value, graderId, access.limits));
    },
    async transcripts() {
      if (reader !== undefined && reader.transcripts === undefined) return { ok: true, value: new Map() };
      const read = await bytes();
      if (!read.ok) return read;
      return guarded(() => reader!.transcripts!(read.value, access.limits));
    },
    async configurationDifferences(other) {
      if (reader !== undefined && reader.configurationDifferences === undefined) return { ok: true, value: [] };
      if (other.format !== origin.format) throw new Error(`configuration differences asked across formats (${origin.format}, ${other.format})`);
      const mine = await bytes();
      if (!mine.ok) return mine;
      const theirs = await (other as ImportedSourceInternal)[BYTES]();
      if (!theirs.ok) return theirs;
      return guarded(() => reader!.configurationDifferences!(mine.value, theirs.value, access.limits));
    },
    rerunFlags(plan) {
      return reader?.rerunFlags?.(plan) ?? [];
    },
    passRule(plan) {
      const rule = reader?.passRule?.(plan) ?? null;
      return rule === '' ? null : rule;
    },
  };
  (source as ImportedSourceInternal)[BYTES] = bytes;
  return source;
}
