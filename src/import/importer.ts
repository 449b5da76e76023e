/**
 * The shape every importer has (one per format, listed in registry.ts), in
 * two sides. The write side (ImportWriter: `ledgerboard import`): its names,
 * its format-specific flags, a content check for `import auto`, and the
 * mapping of a read input onto the files of one evidence bundle (FORMAT.md
 * section 9). The read side (SourceReader, in each format's
 * `source-reader.ts`): what the site reads back from a bundle's kept
 * originals and its plan (the source's own figure, transcripts, the re-run
 * flags, the pass rule, configuration differences); the site reaches it only
 * through src/import/sources.ts. docs/importing.md has one section per
 * format and one on the read side.
 */
import type { ImportInput } from './input-shape.ts';
import type { ImportLimits } from './limits.ts';
import type { Transcript } from './transcript.ts';

/** A format-specific option of `ledgerboard import <format>`. */
export interface ImportFlag {
  type: 'string' | 'boolean';
  /** One line for --help: "--name VALUE  what it does (default)". */
  help: string;
}

/** What an import was asked to do, beyond its input. */
export interface ImportRequest {
  /** License of every task (ledger `license`); empty when not given (MISSING_LICENSE warning). */
  license: string;
  /** The format-specific flags given (only those the importer declares), as parsed from the command line. */
  flags: Readonly<Record<string, string | boolean>>;
  limits: ImportLimits;
}

/** What an import produced and what the source did not have. */
export interface ImportSummary {
  /** The run's status as the source records it (e.g. Inspect's started, success, cancelled, error), or "not recorded". */
  status: string;
  tasks: number;
  attempts: number;
  /** Planned attempts per task (epochs, trials, replicates). */
  epochs: number;
  /** The graded score's name, or null when the source records no scorer. */
  scorer: string | null;
  /** One sentence per thing the source lacked or the import could not carry, fixed words and counts only. */
  missing: string[];
  /**
   * What the import did not read or keep of its input (other files, hidden
   * entries skipped): the import command says it on stderr; never written
   * into the bundle, which must follow from the files it keeps alone (a
   * re-import from the kept originals has no such files).
   */
  unkept?: string[];
}

/** A mapped bundle: its files (manifest excluded), plan id and summary. */
export interface MappedBundle {
  files: Map<string, Uint8Array>;
  planId: string;
  summary: ImportSummary;
}

/** One metric as the source itself reported it, for the plan page to show beside the imported rate. */
export interface SourceMetric {
  name: string;
  value: number | null;
}

/** The write side of a format: reading a harness's output and mapping it onto a bundle (`ledgerboard import`). */
export interface ImportWriter {
  /** The command's format argument: `ledgerboard import <name>`. Lower-case letters, digits and '-'. */
  readonly name: string;
  /** The plan's `origin.format` of its bundles. */
  readonly origin: string;
  /** What the site and messages call the source, e.g. "Inspect AI eval log". */
  readonly label: string;
  /** One line for `ledgerboard import --help`. */
  readonly summary: string;
  /**
   * What one input is: a file, or a directory (a run directory, a job).
   * `directory` importers keep every input file they read at bundle path
   * `source/<relative path>` byte for byte, and map the same bundle from only
   * those files (so a stranger who fetches them from the site re-imports it);
   * `file` importers keep the file at a fixed path under `source/`.
   */
  readonly input: 'file' | 'directory';
  /** Format-specific flags (without the leading "--"); a flag shared by several formats has one meaning and one type. */
  readonly flags: Readonly<Record<string, ImportFlag>>;
  /**
   * True when the input is this format, judged from its content (never from
   * file names alone): the check `import auto` uses. Must not throw and must
   * be cheap: it may parse a header, never map the whole input.
   */
  detect(input: ImportInput, limits: ImportLimits): Promise<boolean>;
  /** Checks the format flags before any input is read; throws ImportError (a usage error on the command line) for a bad value. */
  checkFlags?(flags: Readonly<Record<string, string | boolean>>): void;
  /** Maps an input to bundle files; throws ImportError (with a reason a user can act on) when it cannot be mapped honestly. */
  map(input: ImportInput, request: ImportRequest): Promise<MappedBundle>;
}

/**
 * The read side of a format: what is read back from a bundle's kept originals
 * (bundle path -> bytes, as published) and its plan. Each member throws
 * ImportError (ImportLimitError past a limit) when the bytes it needs do not
 * read as the format, with a sentence a reader can understand; any other
 * error is a bug. The site calls these only through src/import/sources.ts,
 * which turns an ImportError into "this source cannot be read: <why>" and
 * lets anything else fail the build.
 */
export interface SourceReader {
  /**
   * The source's own reported figures for the graded score, read from the
   * original files as published (bundle path -> bytes): the plan page shows
   * them beside the imported rate. Null when the source reports none; an
   * ImportError when the file that would hold them does not parse. The
   * caller has held the originals to `limits` by size already (the site:
   * src/site/model/originals.ts); an archive's entries are read within them.
   */
  sourceMetrics?(sources: ReadonlyMap<string, Uint8Array>, graderId: string, limits?: ImportLimits): Promise<SourceMetric[] | null>;
  /**
   * The readable transcripts of the attempts (messages, tool calls, scores:
   * text only), read from the originals as published, keyed by
   * transcriptKey(task id, attempt index). Absent for a format that records
   * none. As for sourceMetrics, an archive's entries are read within `limits`.
   */
  transcripts?(sources: ReadonlyMap<string, Uint8Array>, limits?: ImportLimits): Promise<ReadonlyMap<string, Transcript>>;
  /**
   * The format flags that re-run this import, read back from the plan (e.g.
   * `--scorer NAME` from the grader's id): each an argument list, quoted by
   * the caller. Empty when the defaults re-run it.
   */
  rerunFlags?(plan: { grader: { id: string } }): string[][];
  /**
   * The rule this import used to call an attempt resolved, read back from the
   * plan's grader (its id records the metric, threshold and direction): one
   * plain sentence for the plan page, which shows it where the imported rate
   * may differ from the source's own figure (e.g. Inspect: "C, or P at
   * --pass-threshold 0.5 or below, ..."; lm-eval: "the metric at or below the
   * threshold (lower is better)"). Fixed words, numbers and the source's own
   * metric names only; the page escapes it.
   */
  passRule?(plan: { grader: { id: string } }): string;
  /**
   * Why two imports of one benchmark landed on different boards or cohorts:
   * the names of the key components of the source's own run configuration
   * that differ between the two (e.g. HELM: "adapter_spec.instructions"),
   * read from each bundle's originals as published (held to `limits` by the
   * caller, as for sourceMetrics). Empty when none of the components it knows
   * differ; absent for a format that records no such configuration.
   */
  configurationDifferences?(a: ReadonlyMap<string, Uint8Array>, b: ReadonlyMap<string, Uint8Array>, limits?: ImportLimits): Promise<string[]>;
}

/**
 * A format's read side with the names that find it (its `origin.format`, its
 * command name, what it reads): what each src/import/<format>/source-reader.ts
 * exports and src/import/source-registry.ts lists, so the site finds a
 * reader without loading the format's writer.
 */
export type SourceFormat = Pick<ImportWriter, 'name' | 'origin' | 'label' | 'input'> & SourceReader;

/** A format: its write side and its read side. */
export type Importer = ImportWriter & SourceReader;
