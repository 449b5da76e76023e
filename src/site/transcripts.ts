/**
 * Transcript pages (/transcripts/<bundle-hex>/<attempt-key>/, docs/site.md):
 * one per attempt of a counted imported bundle whose format records a
 * transcript (Inspect samples' messages). The text comes from the original
 * log as published (the bundle's `source/` files, re-hashed by
 * published.blob), read by the format's importer (src/import/registry.ts
 * `transcripts`): plain data, rendered escaped. The site model holds only
 * the index; a page's transcript is read when the page is written, one
 * bundle's log at a time (pages are in bundle order).
 */
import { importerOfOrigin } from '../import/registry.ts';
import type { Importer } from '../import/importer.ts';
import { transcriptKey, type Transcript } from '../import/transcript.ts';
import type { Plan } from '../schema/index.ts';
import type { Published, SiteFile } from './publish.ts';
import { taskKey } from './task-key.ts';
import type { ImportLimits } from '../import/limits.ts';
import { originalsUnread, readOriginals } from './originals.ts';

/** A transcript page as the site model indexes it. */
export interface SiteTranscript {
  bundle_hex: string;
  /** taskKey(attempt_id): the page is /transcripts/<bundle-hex>/<key>/ (the attempt id's digest, never its text). */
  key: string;
  attempt_id: string;
  task_id: string;
  index: number;
  board_id: string;
  /** The task's page key on that board. */
  task_key: string;
  cohort_id: string;
  plan_hex: string;
  /** The original log the transcript is read from, as published. */
  source: { path: string; url: string };
}

/** The URL path of a transcript page. */
export function transcriptPath(bundleHex: string, key: string): string {
  return `/transcripts/${bundleHex}/${key}/`;
}

/** A counted imported bundle whose format has transcripts: where they are read from. */
export interface TranscriptSource {
  importer: Importer;
  /** The bundle's `source/` files as published (withheld ones are absent). */
  files: SiteFile[];
  /** The report's import limits, which the originals are read within (originals.ts). */
  limits: ImportLimits;
}

/**
 * The transcript source of a counted bundle, or null (not imported, no
 * transcripts in its format, originals withheld, or originals past the
 * import limits: never read, as the plan page says).
 */
export function transcriptSourceOf(plan: Plan, files: readonly SiteFile[], limits: ImportLimits): TranscriptSource | null {
  if (plan.origin?.kind !== 'imported') return null;
  const importer = importerOfOrigin(plan.origin.format);
  if (importer?.transcripts === undefined) return null;
  const sources = files.filter((f) => f.path.startsWith('source/'));
  if (sources.length === 0 || originalsUnread(sources, importer, limits) !== null) return null;
  return { importer, files: sources, limits };
}

/** Reads a bundle's transcripts from its published originals (within the limits); a log that cannot be read has none (its pages say nothing). */
export async function readTranscripts(source: TranscriptSource, published: Published): Promise<ReadonlyMap<string, Transcript>> {
  const read = await readOriginals(source.files, source.importer, source.limits, published);
  if (read.bytes === null) return new Map();
  try {
    return await source.importer.transcripts!(read.bytes, source.limits);
  } catch {
    return new Map();
  }
}

/** The transcript pages of a build: the index (site model) and each page's transcript on demand. */
export interface TranscriptDetails {
  pages: SiteTranscript[];
  detail(n: number): Promise<Transcript>;
}

/**
 * Builds the page index as the caller meets each attempt (`add`), then reads
 * a page's transcript on demand, keeping one bundle's transcripts at a time.
 */
export function transcriptIndex(published: Published): {
  add(page: Omit<SiteTranscript, 'key'>, bundleId: string): string;
  details(sources: ReadonlyMap<string, TranscriptSource>): TranscriptDetails;
} {
  const pages: SiteTranscript[] = [];
  const bundleOf: string[] = [];
  return {
    add(page, bundleId) {
      const full = { ...page, key: taskKey(page.attempt_id) };
      pages.push(full);
      bundleOf.push(bundleId);
      return transcriptPath(full.bundle_hex, full.key);
    },
    details(sources) {
      // Pages of one bundle together (then in the order met), so each log is read once while the pages are written.
      const order = pages.map((_, i) => i).sort((a, b) => (bundleOf[a]! < bundleOf[b]! ? -1 : bundleOf[a]! > bundleOf[b]! ? 1 : a - b));
      const sorted = order.map((i) => pages[i]!);
      const sortedBundles = order.map((i) => bundleOf[i]!);
      pages.splice(0, pages.length, ...sorted);
      bundleOf.splice(0, bundleOf.length, ...sortedBundles);
      let cached: { bundle: string; transcripts: ReadonlyMap<string, Transcript> } | null = null;
      return {
        pages,
        async detail(n) {
          const page = pages[n]!;
          const bundle = bundleOf[n]!;
          if (cached?.bundle !== bundle) cached = { bundle, transcripts: await readTranscripts(sources.get(bundle)!, published) };
          const transcript = cached.transcripts.get(transcriptKey(page.task_id, page.index));
          if (transcript === undefined) throw new Error(`transcript page ${n} has no transcript`);
          return transcript;
        },
      };
    },
  };
}
