/**
 * Task pages (/boards/<board-hex>/tasks/<task-key>/, docs/site.md): for every
 * headline, watch-list and public task of a board, its ledger record and, per
 * cohort, its attempts with their terminal class, grade, cost, tokens, wall
 * time, artifacts and attempts.jsonl line.
 *
 * Per-attempt facts are not in the report. The site reads them from the bytes
 * it publishes (docs/architecture.md, "Task pages"): for each counted bundle,
 * its plan.json, ledger.jsonl, attempts.jsonl and grades/*.json blobs
 * (published.blob: re-hashed against the digest verification saw), parsed
 * strictly (src/json) against the evidence schemas (src/schema) into the
 * column tables (src/bundle), and pooled by the analysis itself
 * (src/analysis/pool.ts bundleSegments, with the report's grading pin), so each
 * attempt's cohort and terminal class are the ones the report counted, never
 * a second implementation. One pass over the attempts, grouped by board, task
 * and cohort; a page's rows are materialised only when it is written
 * ({@link TaskDetails.detail}), so the site model holds only the small index
 * (tasks, ledger records, resolved / graded per cohort).
 */
import { forEachStrictJsonlLine } from '../json/jsonl.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { Attempt, Grades, LedgerRecord, Plan } from '../schema/index.ts';
import { evidenceFromObjects, type BundleEvidence } from '../bundle/evidence.ts';
import type { AttemptLine, GradesFile } from '../bundle/lines.ts';
import type { GradesTable } from '../bundle/tables.ts';
import { bundleSegments, splitConflicts, type AnalysisInput, type Segment } from '../analysis/pool.ts';
import { layerColumns, REASON_CODES, TERMINAL_CLASSES, type GraderReason, type TerminalClass } from '../analysis/grading.ts';
import { bundleColumns } from '../analysis/columns.ts';
import type { Report } from '../report/schema.ts';
import { hexOf } from './format.ts';
import type { Published, SiteFile } from './publish.ts';
import { taskKey } from './task-key.ts';
import { TASK_ROWS } from './rows.ts';
import { transcriptKey } from '../import/transcript.ts';
import { reportImportLimits } from './originals.ts';
import { readTranscripts, transcriptIndex, transcriptSourceOf, type TranscriptDetails, type TranscriptSource } from './transcripts.ts';
import { importerOfOrigin } from '../import/registry.ts';
import { emptyOutcomes, noTranscriptNote, type BundleOutcomes } from './imported-facts.ts';

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
export interface TaskAttemptRow {
  attempt_id: string;
  index: number;
  outcome: string;
  terminal: TerminalClass;
  reason: GraderReason | null;
  /** The grade in use (FORMAT.md 7.1): the latest generation (under the pin) holding a result for it, else null (missing). */
  verdict: 'pass' | 'fail' | 'error' | null;
  generation: number | null;
  cost: { state: string; micros: number | null };
  tokens: { input: number; output: number } | null;
  wall_seconds: number;
  retries: number;
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

/** One task page's rows: per cohort of the board (board.cohorts order), its attempts in bundle id then line order. */
export interface TaskDetail {
  board_id: string;
  key: string;
  /** Per cohort of the board: its first {@link TASK_ROWS} attempts on the task (row order, bundle id order), and how many it has. */
  cohorts: { cohort_id: string; attempts: TaskAttemptRow[]; total: number }[];
}


/** A text view is shown for an artifact of at most this many bytes ... */
export const TEXT_VIEW_BYTES = 16 * 1024;
const OVER_TEXT_VIEW = `no text view: over ${TEXT_VIEW_BYTES / 1024} KiB`;
/** The artifact texts a build keeps once read, in bytes (each at most TEXT_VIEW_BYTES). */
const TEXT_CACHE_BYTES = 32 * 1024 * 1024;
/** ... while a page's text views total at most this many bytes (the rest are links only). */
export const PAGE_TEXT_BYTES = 64 * 1024;

/** The task pages of a build: every page's board and key, and each page's rows on demand. */
export interface TaskDetails {
  pages: { board_id: string; key: string }[];
  detail(n: number): Promise<TaskDetail>;
}

/** A counted bundle as read back from its published bytes. */
interface ReadBack {
  report: number;
  bundle_id: string;
  plan_hex: string;
  files: SiteFile[];
  bySha: Map<string, SiteFile>;
  attemptsUrl: string | null;
  grades: readonly GradesTable[];
  /** For each row, the generation table and result index in use (-1: none), as layerColumns picks it. */
  gradeTable: Int32Array;
  gradeIndex: Int32Array;
}

/**
 * The board index (site model) and the task pages' rows, from the report and
 * what the build publishes. Reads each counted bundle's evidence once: the
 * verified evidence the build already holds for that content digest
 * (`verified`, the pipeline's tables: no second parse), else its published
 * bytes, parsed strictly.
 */
export async function siteTasks(
  report: Report,
  published: Published,
  verified?: ReadonlyMap<string, BundleEvidence>,
  /** The artifact text a page shows at most, and the attempts per cohort it lists (tests set them lower). */
  limits: { pageTextBytes?: number; taskRows?: number } = {},
): Promise<{ boards: Record<string, SiteBoardTasks>; details: TaskDetails; transcripts: TranscriptDetails; outcomes: Record<string, BundleOutcomes> }> {
  const inputs: AnalysisInput[] = [];
  const read = new Map<string, ReadBack>();
  const ledgers = new Map<string, Map<string, LedgerRecord>>();
  // Imported bundles whose format records transcripts: where they are read from, and which (task, index) have one.
  const transcriptSources = new Map<string, TranscriptSource>();
  const transcriptKeys = new Map<string, ReadonlySet<string>>();
  // Imported bundles without transcripts, or with some: the task page's note for an attempt without one (by bundle id).
  const noTranscript = new Map<string, { label: string; why: 'format' | 'attempt' | 'unread' }>();
  // Originals are read within the import limits the report was verified under (originals.ts).
  const importLimits = reportImportLimits(report);
  for (let i = 0; i < report.bundles.length; i++) {
    const entry = report.bundles[i]!;
    if (!entry.counted || entry.status !== 'verified' || entry.bundle_id === null || entry.plan_id === null) continue;
    const files = published.bundles[i]!.files;
    const byPath = new Map(files.map((f) => [f.path, f]));
    const attemptsFile = byPath.get('attempts.jsonl');
    const evidence = verified?.get(entry.content_digest) ?? (await evidenceFromBlobs(entry.bundle_id, byPath, published));
    const plan = evidence.plan as Plan;
    if (!ledgers.has(plan.ledger.digest)) ledgers.set(plan.ledger.digest, new Map(evidence.ledger.map((r) => [r.task_id, r])));
    inputs.push({ bundle_id: entry.bundle_id, plan_id: entry.plan_id, evidence });
    const transcriptSource = transcriptSourceOf(plan, files, importLimits);
    if (transcriptSource !== null) {
      const keys = new Set((await readTranscripts(transcriptSource, published)).keys());
      if (keys.size > 0) {
        transcriptSources.set(entry.bundle_id, transcriptSource);
        transcriptKeys.set(entry.bundle_id, keys);
      }
    }
    if (plan.origin?.kind === 'imported') {
      const importer = importerOfOrigin(plan.origin.format);
      if (importer !== undefined) {
        const why = importer.transcripts === undefined ? 'format' : transcriptSource === null ? 'unread' : 'attempt';
        noTranscript.set(entry.bundle_id, { label: importer.label, why });
      }
    }
    // The result each row is graded by, as the analysis picks it (grading.ts layerColumns: the latest generation, under the pin).
    const layer = layerColumns(plan, bundleColumns(evidence), report.config.grading_pin);
    const gradeTable = Int32Array.from(layer.grader, (k) => (k === -1 ? -1 : (layer.generations[k]?.table ?? -1)));
    const gradeIndex = layer.result;
    read.set(entry.bundle_id, {
      report: i,
      bundle_id: entry.bundle_id,
      plan_hex: hexOf(entry.plan_id),
      files,
      bySha: new Map(files.map((f) => [f.sha256, f])),
      attemptsUrl: attemptsFile?.url ?? null,
      grades: evidence.grades,
      gradeTable,
      gradeIndex,
    });
  }
  // Each cohort's rows, bundle by bundle in bundle id order (as the report pooled them).
  const byCohort = new Map<string, Segment[]>();
  for (const input of splitConflicts(inputs).counted) {
    for (const segment of bundleSegments(input, report.config.grading_pin)) {
      const list = byCohort.get(segment.cohort_id) ?? [];
      list.push(segment);
      byCohort.set(segment.cohort_id, list);
    }
  }
  const RESOLVED = TERMINAL_CLASSES.indexOf('resolved');
  // Each counted bundle's attempts by terminal class and grader reason (the one line of an imported bundle, imported-facts.ts).
  const outcomes: Record<string, BundleOutcomes> = {};
  for (const list of byCohort.values()) {
    for (const segment of list) {
      const counts = (outcomes[segment.bundle_id] ??= emptyOutcomes());
      for (let p = 0; p < segment.rows.length; p++) {
        counts.terminal[TERMINAL_CLASSES[segment.terminal[p]!]!]++;
        const reason = REASON_CODES[segment.reason[p]!];
        if (reason !== undefined && reason !== null) counts.reasons[reason]++;
      }
    }
  }

  const boards: Record<string, SiteBoardTasks> = {};
  const pages: { board_id: string; key: string }[] = [];
  /** Per page, per cohort position: flat pairs (segment number, position in segment). */
  const refs: number[][][] = [];
  const segments: Segment[] = [];
  const transcripts = transcriptIndex(published);
  /** Transcript page URL by bundle id and attempt id. */
  const transcriptUrls = new Map<string, string>();
  for (const board of report.boards) {
    const records = ledgers.get(board.ledger.digest);
    const byId = new Map<string, SiteTask>();
    const order: SiteTask[] = [];
    const lists: [TaskSplit, readonly string[]][] = [['headline', board.ledger.headline_tasks], ['watch_list', board.ledger.watch_list_tasks], ['public', board.ledger.public_tasks]];
    for (const [split, ids] of lists) {
      for (const id of ids) {
        let task = byId.get(id);
        if (!task) {
          task = { key: taskKey(id), page: -1, task_id: id, splits: [], record: records?.get(id) ?? null, cells: board.cohorts.map(() => [0, 0]) };
          byId.set(id, task);
          order.push(task);
        }
        if (!task.splits.includes(split)) task.splits.push(split);
      }
    }
    const pageOf = new Map<SiteTask, number>();
    for (const task of order) {
      task.page = pages.length;
      pageOf.set(task, pages.length);
      pages.push({ board_id: board.board_id, key: task.key });
      refs.push(board.cohorts.map(() => []));
    }
    // One pass over each cohort's attempts, grouped by task.
    board.cohorts.forEach((cohortId, position) => {
      for (const segment of byCohort.get(cohortId) ?? []) {
        const s = segments.length;
        segments.push(segment);
        const table = segment.columns.attempts;
        const taskOfIndex = table.tasks.values.map((id) => byId.get(id));
        for (let p = 0; p < segment.rows.length; p++) {
          const task = taskOfIndex[table.task[segment.rows[p]!]!];
          if (!task) continue;
          const cell = task.cells[position]!;
          cell[1]++;
          if (segment.terminal[p] === RESOLVED) cell[0]++;
          refs[pageOf.get(task)!]![position]!.push(s, p);
          const keys = transcriptKeys.get(segment.bundle_id);
          if (keys !== undefined) {
            const a = table.attempt(segment.rows[p]!);
            const back = read.get(segment.bundle_id)!;
            const source = transcriptSources.get(segment.bundle_id)!.files[0]!;
            if (keys.has(transcriptKey(a.task_id, a.index)) && !transcriptUrls.has(`${segment.bundle_id}\u0000${a.attempt_id}`)) {
              const url = transcripts.add(
                {
                  bundle_hex: hexOf(segment.bundle_id),
                  attempt_id: a.attempt_id,
                  task_id: a.task_id,
                  index: a.index,
                  board_id: board.board_id,
                  task_key: task.key,
                  cohort_id: cohortId,
                  plan_hex: back.plan_hex,
                  source: { path: source.path, url: source.url },
                },
                segment.bundle_id,
              );
              transcriptUrls.set(`${segment.bundle_id}\u0000${a.attempt_id}`, url);
            }
          }
        }
      }
    });
    boards[board.board_id] = { tasks: order };
  }

  // Artifact texts already read (a blob is read and re-hashed once per build, not once per page that shows it: the same
  // grader input or receipt is on many pages); at most TEXT_CACHE_BYTES of them, the rest read again when shown.
  const texts = new Map<string, string | null>();
  let cached = 0;
  const detail = async (n: number): Promise<TaskDetail> => {
    const page = pages[n]!;
    const board = report.boards.find((b) => b.board_id === page.board_id)!;
    let budget = limits.pageTextBytes ?? PAGE_TEXT_BYTES;
    // Synchronous but for the few texts a page reads (its text budget): 10^6 awaited artifacts were seconds of a large build.
    const artifact = (back: ReadBack, role: TaskArtifact['role'], sha256: string): TaskArtifact | Promise<TaskArtifact> => {
      const file = back.bySha.get(sha256);
      // Object literals, not spreads: 4 x 10^6 artifacts at 10^6 attempts.
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
    const cohorts = [];
    for (let position = 0; position < board.cohorts.length; position++) {
      const flat = refs[n]![position]!;
      const rows: TaskAttemptRow[] = [];
      for (let i = 0; i < Math.min(flat.length, 2 * (limits.taskRows ?? TASK_ROWS)); i += 2) {
        const segment = segments[flat[i]!]!;
        const p = flat[i + 1]!;
        const row = segment.rows[p]!;
        const back = read.get(segment.bundle_id)!;
        const table = segment.columns.attempts;
        const a = table.attempt(row);
        const g = back.gradeTable[row]!;
        const result = g === -1 ? null : back.grades[g]!.result(back.gradeIndex[row]!);
        const wanted: [TaskArtifact['role'], string][] = [];
        if (a.patch !== null) wanted.push(['patch', a.patch]);
        if (result !== null) wanted.push(['grader input', result.input], ['grader output', result.output], ['grader receipt', result.receipt]);
        // One after the other (the text budget is spent in this order); awaited only when a text is read.
        const artifacts: TaskArtifact[] = [];
        for (const [role, sha256] of wanted) {
          const made = artifact(back, role, sha256);
          artifacts.push(made instanceof Promise ? await made : made);
        }
        rows.push({
          attempt_id: a.attempt_id,
          index: a.index,
          outcome: a.outcome,
          terminal: TERMINAL_CLASSES[segment.terminal[p]!]!,
          reason: REASON_CODES[segment.reason[p]!] ?? null,
          verdict: result?.verdict ?? null,
          generation: g === -1 ? null : back.grades[g]!.generation,
          cost: { state: a.cost.state, micros: a.cost.micros },
          tokens: a.tokens,
          wall_seconds: a.wall_seconds,
          retries: a.retries,
          plan_hex: back.plan_hex,
          line: { url: back.attemptsUrl, number: table.line[row]! },
          artifacts,
          transcript: transcriptUrls.get(`${segment.bundle_id}\u0000${a.attempt_id}`) ?? null,
          transcriptNote: transcriptNoteOf(noTranscript.get(segment.bundle_id), transcriptUrls.has(`${segment.bundle_id}\u0000${a.attempt_id}`)),
        });
      }
      cohorts.push({ cohort_id: board.cohorts[position]!, attempts: rows, total: flat.length / 2 });
    }
    return { board_id: page.board_id, key: page.key, cohorts };
  };
  return { boards, details: { pages, detail }, transcripts: transcripts.details(transcriptSources), outcomes };
}

/** The task page's note for an imported attempt without a transcript page; null for one with a page, or not imported. */
function transcriptNoteOf(bundle: { label: string; why: 'format' | 'attempt' | 'unread' } | undefined, hasPage: boolean): string | null {
  if (bundle === undefined || hasPage) return null;
  return noTranscriptNote(bundle.label, bundle.why);
}

/**
 * For each attempt row, the generation and result in use, as the grading
 * layer picks it (src/analysis/grading.ts layerColumns): generations in
 * number order, a later result wins, a pin keeps only its grader's; every row
 * of a repeated attempt id takes its id's result.
 */
/** A counted bundle's evidence from its published bytes (plan, ledger, attempts, grades), parsed strictly. */
async function evidenceFromBlobs(bundle_id: string, byPath: ReadonlyMap<string, SiteFile>, published: Published): Promise<BundleEvidence> {
  const planFile = byPath.get('plan.json');
  if (!planFile) throw new Error(`counted bundle ${bundle_id} has no published plan.json`);
  const plan = Plan.parse(jsonOf(await published.blob(planFile.sha256)));
  const ledgerFile = byPath.get('ledger.jsonl');
  const ledger: LedgerRecord[] = [];
  if (ledgerFile) forEachStrictJsonlLine(await published.blob(ledgerFile.sha256), (l) => ledger.push(LedgerRecord.parse(lineValue(l))));
  const attemptsFile = byPath.get('attempts.jsonl');
  const attempts: AttemptLine[] = [];
  if (attemptsFile) forEachStrictJsonlLine(await published.blob(attemptsFile.sha256), (l) => attempts.push({ line: l.line, attempt: Attempt.parse(lineValue(l)) }));
  const gradesFiles: GradesFile[] = [];
  const gradePaths = [...byPath.keys()].filter((p) => /^grades\/[^/]+\.json$/.test(p)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of gradePaths) gradesFiles.push({ path, grades: Grades.parse(jsonOf(await published.blob(byPath.get(path)!.sha256))) });
  return evidenceFromObjects({ plan, ledger, attempts, grades: gradesFiles });
}

/** Bytes as text when they are valid UTF-8, else null. */
function utf8Text(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

function jsonOf(bytes: Uint8Array): unknown {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) throw new Error(`a counted bundle's file is not JSON: ${parsed.error.message}`);
  return parsed.value;
}

function lineValue(line: { ok: true; value: unknown } | { ok: false; error: { message: string; line: number } }): unknown {
  if (!line.ok) throw new Error(`a counted bundle's JSONL line ${line.error.line} does not parse: ${line.error.message}`);
  return line.value;
}
