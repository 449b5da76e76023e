/**
 * Task pages (/boards/<board-hex>/tasks/<task-key>/, docs/site.md): for every
 * headline, watch-list and public task of a board, its ledger record and, per
 * cohort, one summary row (resolved / graded, terminal classes, cost, tokens,
 * median wall time), an outcome strip of every attempt, its first
 * DETAIL_ROWS attempts in full (terminal class, grade, cost, tokens, wall
 * time, artifacts, attempts.jsonl line) and where the others are: their
 * lines in their bundles' published attempts.jsonl.
 *
 * Per-attempt facts are not in the report: they are the attempt index
 * (src/facts/attempt-index.ts), computed once below the site from the
 * verified evidence as the analysis pooled it. The site only renders it: it
 * maps bundles to their published files (URLs), reads the artifact texts a
 * page shows (published.blob, re-hashed) and the transcripts of imported
 * bundles. A page's rows are materialised only when it is written
 * ({@link TaskDetails.detail}), so the site model holds only the small index
 * (tasks, ledger records, resolved / graded per cohort).
 */
import { DETAIL_ROWS, type AttemptIndex, type IndexAttempt, type IndexCell, type IndexOutcomes } from '../../facts/attempt-index.ts';
import type { LedgerRecord } from '../../schema/index.ts';
import type { Report } from '../../report/schema.ts';
import { hexOf } from '../views/format.ts';
import type { Published, SiteFile } from './published.ts';
import { taskKey } from '../views/task-key.ts';
import { transcriptKey } from '../../import/transcript.ts';
import { reportImportLimits } from './originals.ts';
import { bundleTranscripts, transcriptIndex, type SiteTranscript, type TranscriptDetails, type TranscriptSource } from './transcripts.ts';
import { noTranscriptNote, type BundleOutcomes, type NoTranscriptWhy } from './imported-facts.ts';

/** Which lists of the board's ledger a task is on. */
export type TaskSplit = 'headline' | 'watch_list' | 'public';

/** A task of a board as the board page and its task page show it (site model: plain data). */
export interface SiteTask {
  /** taskKey(task_id): the page is /boards/<board-hex>/tasks/<key>/. */
  key: string;
  /** The number of its page among the build's task pages (TaskDetails.pages, the rows' file). */
  page: number;
  task_id: string;
  splits: TaskSplit[];
  /** The ledger record (ledger.jsonl of a counted bundle on this ledger), or null when none holds the task. */
  record: LedgerRecord | null;
  /** Per cohort of the board (board.cohorts order): [resolved, graded] attempts on this task. */
  cells: [number, number][];
}

/** A board's tasks: headline first, then watch list, then public, each in ledger-list order, each task once. */
export interface SiteBoardTasks {
  tasks: SiteTask[];
}

/** An artifact of an attempt: its digest, where its bytes are published and, for small UTF-8 text, the text. */
export interface TaskArtifact {
  role: 'patch' | 'grader input' | 'grader output' | 'grader receipt';
  sha256: string;
  /** The bundle path listing these bytes (display text only), or null. */
  path: string | null;
  /** /blobs/<hex>, or null when the bytes are not published (withheld). */
  url: string | null;
  bytes: number | null;
  /** The bytes as text when UTF-8 and within the budgets; else null and `textNote` says why. */
  text: string | null;
  textNote: string | null;
}

/** One attempt on a task page. */
export interface TaskAttemptRow extends Pick<IndexAttempt, 'attempt_id' | 'index' | 'outcome' | 'terminal' | 'reason' | 'verdict' | 'generation' | 'cost' | 'tokens' | 'wall_seconds' | 'retries'> {
  plan_hex: string;
  /** The published attempts.jsonl (its blob) and the 1-based line of this attempt. */
  line: { url: string | null; number: number };
  artifacts: TaskArtifact[];
  /** The attempt's transcript page (imported attempts whose format records one), or null. */
  transcript: string | null;
  /**
   * For an imported attempt without a transcript page, why (imported-facts.ts
   * noTranscriptNote): "no transcript: <format> records none", "the original
   * log has no transcript for this attempt", or the originals unread; null
   * otherwise.
   */
  transcriptNote: string | null;
}

/** A cohort's figures on one task (the attempt index's cell): its summary row. */
export type TaskSummary = Pick<IndexCell, 'classes' | 'reasons' | 'cost' | 'tokens' | 'wall_median'>;

/** The attempts of a cohort on a task that its page does not show in full: where each is. */
export interface TaskRest {
  /** How many (the cohort's attempts on the task after its first DETAIL_ROWS). */
  count: number;
  /** Per bundle (attempt order of first appearance): its attempts.jsonl as published (null: withheld), its plan, and the lines, ascending. */
  files: { url: string | null; plan_hex: string; lines: number[] }[];
  /** Their transcript pages (imported attempts whose format records one), in attempt order. */
  transcripts: { index: number; attempt_id: string; url: string }[];
}

/** One task page's data: per cohort of the board (board.cohorts order), its summary, strip, first attempts in full and the rest's lines. */
export interface TaskDetail {
  board_id: string;
  key: string;
  cohorts: {
    cohort_id: string;
    /** Its attempts on the task. */
    total: number;
    summary: TaskSummary;
    /** One character per attempt in attempt order: the index of its terminal class in TERMINAL_CLASSES. */
    strip: string;
    /** The first DETAIL_ROWS (bundle id order, then line order), in full. */
    attempts: TaskAttemptRow[];
    rest: TaskRest;
  }[];
}

/** A text view is shown for an artifact of at most this many bytes ... */
export const TEXT_VIEW_BYTES = 16 * 1024;
const OVER_TEXT_VIEW = `no text view: over ${TEXT_VIEW_BYTES / 1024} KiB`;
/** The artifact texts a build keeps once read, in bytes (each at most TEXT_VIEW_BYTES). */
const TEXT_CACHE_BYTES = 32 * 1024 * 1024;
/** ... while a page's text views total at most this many bytes (the rest are links only). */
export const PAGE_TEXT_BYTES = 64 * 1024;

/** The task pages of a build: every page's board and key, and each page's data on demand. */
export interface TaskDetails {
  pages: { board_id: string; key: string }[];
  detail(n: number): Promise<TaskDetail>;
}

/** A counted bundle of the index as the site publishes it. */
interface PublishedOf {
  bundle_id: string;
  plan_hex: string;
  bySha: Map<string, SiteFile>;
  attemptsUrl: string | null;
}

/**
 * The board index (site model), the task pages' data, the transcript pages
 * and each counted bundle's outcomes, from the report, what the build
 * publishes and the attempt index (src/facts/attempt-index.ts). Computes no
 * figure: it renders the index, adding URLs, artifact texts and transcripts.
 */
export async function siteTasks(
  report: Report,
  published: Published,
  index: AttemptIndex,
  /** The artifact text a page shows at most (tests set it lower). */
  limits: { pageTextBytes?: number } = {},
): Promise<{ boards: Record<string, SiteBoardTasks>; details: TaskDetails; transcripts: TranscriptDetails; outcomes: Record<string, BundleOutcomes> }> {
  const reportIndex = new Map(report.bundles.map((b, i) => [b.bundle_id, i]));
  const bundles: PublishedOf[] = [];
  // Imported bundles whose format records transcripts: where they are read from, and which (task, index) have one.
  const transcriptSources = new Map<string, TranscriptSource>();
  const transcriptKeys = new Map<string, ReadonlySet<string>>();
  // Imported bundles without transcripts, or with some: the task page's note for an attempt without one (by bundle id).
  const noTranscript = new Map<string, { label: string; why: NoTranscriptWhy }>();
  // Originals are read within the import limits the report was verified under (originals.ts).
  const importLimits = reportImportLimits(report);
  for (const b of index.bundles) {
    const i = reportIndex.get(b.bundle_id);
    if (i === undefined) throw new Error(`internal: the attempt index names bundle ${b.bundle_id}, which is not the report's`);
    const files = published.bundles[i]!.files;
    bundles.push({
      bundle_id: b.bundle_id,
      plan_hex: hexOf(b.plan_id),
      bySha: new Map(files.map((f) => [f.sha256, f])),
      attemptsUrl: files.find((f) => f.path === 'attempts.jsonl')?.url ?? null,
    });
    if (b.origin?.kind !== 'imported') continue;
    // The importers' read side (src/import/sources.ts): the keys of the attempts with a transcript, or why they have none.
    const read = await bundleTranscripts({ origin: b.origin }, published.bundles[i]!, published, importLimits);
    if (read === null) continue;
    if (read.source !== null) {
      transcriptSources.set(b.bundle_id, read.source);
      transcriptKeys.set(b.bundle_id, read.keys);
    }
    if (read.label !== null) noTranscript.set(b.bundle_id, { label: read.label, why: read.why });
  }

  const boards: Record<string, SiteBoardTasks> = {};
  const pages: { board_id: string; key: string }[] = [];
  const cellsOf: IndexCell[][] = [];
  // Transcript pages: every attempt of an imported bundle whose log has its transcript, first met in board, cohort,
  // bundle then line order (as the pooled rows are met), then grouped by bundle (transcripts.ts).
  const met: { bundle: number; board: number; position: number; line: number; page: Omit<SiteTranscript, 'key'> }[] = [];
  report.boards.forEach((board, b) => {
    const tasks = index.boards[board.board_id]?.tasks ?? [];
    const order: SiteTask[] = [];
    for (const task of tasks) {
      const key = taskKey(task.task_id);
      order.push({ key, page: pages.length, task_id: task.task_id, splits: task.splits, record: task.record, cells: task.cells.map((c) => [c.classes[0]!, sum(c.classes)]) });
      pages.push({ board_id: board.board_id, key });
      cellsOf.push(task.cells);
      if (transcriptKeys.size === 0) continue;
      task.cells.forEach((cell, position) => {
        const meet = (bundle: number, line: number, attempt_id: string, attemptIndex: number): void => {
          const bundleId = bundles[bundle]!.bundle_id;
          const keys = transcriptKeys.get(bundleId);
          if (keys === undefined || !keys.has(transcriptKey(task.task_id, attemptIndex))) return;
          const source = transcriptSources.get(bundleId)!.files[0]!;
          met.push({
            bundle,
            board: b,
            position,
            line,
            page: {
              bundle_hex: hexOf(bundleId),
              attempt_id,
              task_id: task.task_id,
              index: attemptIndex,
              board_id: board.board_id,
              task_key: key,
              cohort_id: board.cohorts[position]!,
              plan_hex: bundles[bundle]!.plan_hex,
              source: { path: source.path, url: source.url },
            },
          });
        };
        for (const a of cell.first) meet(a.bundle, a.line, a.attempt_id, a.index);
        for (let r = 0; r < cell.rest.line.length; r++) meet(cell.rest.bundle[r]!, cell.rest.line[r]!, cell.rest.attempt_id[r]!, cell.rest.index[r]!);
      });
    }
    boards[board.board_id] = { tasks: order };
  });
  met.sort((x, y) => x.board - y.board || x.position - y.position || x.bundle - y.bundle || x.line - y.line);
  const transcripts = transcriptIndex();
  /** Transcript page URL by bundle id and attempt id. */
  const transcriptUrls = new Map<string, string>();
  for (const m of met) {
    const id = `${bundles[m.bundle]!.bundle_id}\u0000${m.page.attempt_id}`;
    if (!transcriptUrls.has(id)) transcriptUrls.set(id, transcripts.add(m.page, bundles[m.bundle]!.bundle_id));
  }
  const transcriptOf = (bundle: number, attempt_id: string): string | null => transcriptUrls.get(`${bundles[bundle]!.bundle_id}\u0000${attempt_id}`) ?? null;

  // Artifact texts already read (a blob is read and re-hashed once per build, not once per page that shows it: the same
  // grader input or receipt is on many pages); at most TEXT_CACHE_BYTES of them, the rest read again when shown.
  const texts = new Map<string, string | null>();
  let cached = 0;
  const detail = async (n: number): Promise<TaskDetail> => {
    const page = pages[n]!;
    const board = report.boards.find((b) => b.board_id === page.board_id)!;
    let budget = limits.pageTextBytes ?? PAGE_TEXT_BYTES;
    // Synchronous but for the few texts a page reads (its text budget).
    const artifact = (back: PublishedOf, role: TaskArtifact['role'], sha256: string): TaskArtifact | Promise<TaskArtifact> => {
      const file = back.bySha.get(sha256);
      if (file === undefined) return { role, sha256, path: null, url: null, bytes: null, text: null, textNote: 'not published' };
      const { path, url, bytes } = file;
      if (bytes > TEXT_VIEW_BYTES) return { role, sha256, path, url, bytes, text: null, textNote: OVER_TEXT_VIEW };
      // Every text shown counts, a repeated one too (attempts graded from one input show it once each).
      if (budget < bytes) return { role, sha256, path, url, bytes, text: null, textNote: 'no text view: this page shows its limit of text already' };
      budget -= bytes;
      const withText = (text: string | null): TaskArtifact => ({ role, sha256, path, url, bytes, text, textNote: text === null ? 'no text view: not UTF-8 text' : null });
      if (texts.has(sha256)) return withText(texts.get(sha256)!);
      return published.blob(sha256).then((read) => {
        const text = utf8Text(read);
        if (cached + bytes <= TEXT_CACHE_BYTES) {
          texts.set(sha256, text);
          cached += bytes;
        }
        return withText(text);
      });
    };
    const row = async (a: IndexAttempt): Promise<TaskAttemptRow> => {
      const back = bundles[a.bundle]!;
      // One after the other (the text budget is spent in this order); awaited only when a text is read.
      const artifacts: TaskArtifact[] = [];
      for (const { role, sha256 } of a.artifacts) {
        const made = artifact(back, role, sha256);
        artifacts.push(made instanceof Promise ? await made : made);
      }
      const transcript = transcriptOf(a.bundle, a.attempt_id);
      return {
        attempt_id: a.attempt_id,
        index: a.index,
        outcome: a.outcome,
        terminal: a.terminal,
        reason: a.reason,
        verdict: a.verdict,
        generation: a.generation,
        cost: a.cost,
        tokens: a.tokens,
        wall_seconds: a.wall_seconds,
        retries: a.retries,
        plan_hex: back.plan_hex,
        line: { url: back.attemptsUrl, number: a.line },
        artifacts,
        transcript,
        transcriptNote: transcriptNoteOf(noTranscript.get(back.bundle_id), transcript !== null),
      };
    };
    const cohorts: TaskDetail['cohorts'] = [];
    for (let position = 0; position < board.cohorts.length; position++) {
      const cell = cellsOf[n]![position]!;
      const attempts: TaskAttemptRow[] = [];
      for (const a of cell.first) attempts.push(await row(a));
      const files = new Map<number, TaskRest['files'][number]>();
      const restTranscripts: TaskRest['transcripts'] = [];
      for (let r = 0; r < cell.rest.line.length; r++) {
        const bundle = cell.rest.bundle[r]!;
        let file = files.get(bundle);
        if (file === undefined) files.set(bundle, (file = { url: bundles[bundle]!.attemptsUrl, plan_hex: bundles[bundle]!.plan_hex, lines: [] }));
        file.lines.push(cell.rest.line[r]!);
        const url = transcriptOf(bundle, cell.rest.attempt_id[r]!);
        if (url !== null) restTranscripts.push({ index: cell.rest.index[r]!, attempt_id: cell.rest.attempt_id[r]!, url });
      }
      for (const file of files.values()) file.lines.sort((x, y) => x - y);
      const { classes, reasons, cost, tokens, wall_median } = cell;
      cohorts.push({
        cohort_id: board.cohorts[position]!,
        total: cell.strip.length,
        summary: { classes, reasons, cost, tokens, wall_median },
        strip: cell.strip,
        attempts,
        rest: { count: cell.rest.line.length, files: [...files.values()], transcripts: restTranscripts },
      });
    }
    return { board_id: page.board_id, key: page.key, cohorts };
  };
  // Each counted bundle's attempts by terminal class and grader reason (the one line of an imported bundle, imported-facts.ts).
  const outcomes: Record<string, BundleOutcomes> = index.outcomes satisfies Record<string, IndexOutcomes>;
  return { boards, details: { pages, detail }, transcripts: transcripts.details(transcriptSources), outcomes };
}

/** The most attempts of a cohort a task page shows in full. */
export const TASK_DETAIL_ROWS = DETAIL_ROWS;

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/** The task page's note for an imported attempt without a transcript page; null for one with a page, or not imported. */
function transcriptNoteOf(bundle: { label: string; why: NoTranscriptWhy } | undefined, hasPage: boolean): string | null {
  if (bundle === undefined || hasPage) return null;
  return noTranscriptNote(bundle.label, bundle.why);
}

/** Bytes as text when they are valid UTF-8, else null. */
function utf8Text(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
