/**
 * Transcript pages (/transcripts/<bundle-hex>/<attempt-key>/, docs/site.md):
 * one per attempt of a counted imported bundle whose format records a
 * transcript. The text comes from the original log as published (the
 * bundle's `source/` files, re-hashed by published.blob), read by the
 * importers' read side (src/import/sources.ts, through originals.ts): plain
 * data, rendered escaped. A source that cannot be read (withheld, past the
 * import limits, bytes that do not read as the format) has no pages, and its
 * attempts' rows on the task pages say why; any other error fails the build.
 * The site model holds only the index; a page's transcript is read when the
 * page is written, one bundle's log at a time (pages are in bundle order).
 */
import type { ImportedSource } from '../../import/sources.ts';
import { transcriptKey, type Transcript } from '../../import/transcript.ts';
import type { Plan } from '../../schema/index.ts';
import type { Published, PublishedBundle, SiteFile } from './published.ts';
import { taskKey } from '../views/task-key.ts';
import type { ImportLimits } from '../../import/limits.ts';
import { siteSource } from './originals.ts';
import type { NoTranscriptWhy } from './imported-facts.ts';

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

/** A counted imported bundle with transcripts: its source (the importers' read side) and its originals as published. */
export interface TranscriptSource {
  source: ImportedSource;
  /** The bundle's `source/` files as published (the transcript page links the first). */
  files: readonly SiteFile[];
}

/** What a counted bundle's transcripts are: the keys it has (and its source), or why its attempts have none. */
export interface BundleTranscripts {
  /** The source the pages read, when it has transcripts (null otherwise). */
  source: TranscriptSource | null;
  /** transcriptKey(task id, index) of each attempt with a transcript. */
  keys: ReadonlySet<string>;
  /** The format's label, for the note of an attempt without one; null for a format this version does not read. */
  label: string | null;
  /** Why an attempt has no transcript page: the format records none, the originals are past a limit, the source cannot be read, or this attempt has none. */
  why: NoTranscriptWhy;
}

/**
 * The transcripts of a counted bundle (null when it is not imported): read
 * once here for their keys (the pages read them again, one bundle at a
 * time, when they are written). A source that cannot be read gives no keys
 * and the reason; a bug throws.
 */
export async function bundleTranscripts(plan: Pick<Plan, 'origin'>, bundle: Pick<PublishedBundle, 'files' | 'withheld' | 'unpublished'>, published: Pick<Published, 'blob'>, limits: ImportLimits): Promise<BundleTranscripts | null> {
  if (plan.origin?.kind !== 'imported') return null;
  const source = siteSource(plan.origin, bundle, published, limits);
  const none = new Set<string>();
  if (source.label === null) return { source: null, keys: none, label: null, why: 'attempt' };
  if (!source.recordsTranscripts) return { source: null, keys: none, label: source.label, why: 'format' };
  const read = await source.transcripts();
  if (!read.ok) return { source: null, keys: none, label: source.label, why: read.cause === 'limit' ? 'unread' : { unreadable: read.unreadable } };
  const keys = new Set(read.value.keys());
  const files = bundle.files.filter((f) => f.path.startsWith('source/'));
  return { source: keys.size > 0 ? { source, files } : null, keys, label: source.label, why: 'attempt' };
}

/** Reads a bundle's transcripts again for its pages: it read once already (bundleTranscripts), so a failure now is an error (the evidence changed, or a reader is not deterministic). */
export async function readTranscripts(source: TranscriptSource): Promise<ReadonlyMap<string, Transcript>> {
  const read = await source.source.transcripts();
  if (!read.ok) throw new Error(`the originals read once for their transcripts no longer read: ${read.unreadable}`);
  return read.value;
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
export function transcriptIndex(): {
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
          if (cached?.bundle !== bundle) cached = { bundle, transcripts: await readTranscripts(sources.get(bundle)!) };
          const transcript = cached.transcripts.get(transcriptKey(page.task_id, page.index));
          if (transcript === undefined) throw new Error(`transcript page ${n} has no transcript`);
          return transcript;
        },
      };
    },
  };
}
