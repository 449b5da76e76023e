/** Steps over grades/<n>.json, the grading generations (FORMAT.md section 5.3). */
import { quotePath } from '../evidence/paths.ts';
import { GradeResult, Grades } from '../schema/index.ts';
import { parseWithArrayMember } from '../json/array-member.ts';
import { contentOf, addFinding, type VerifyContext } from './context.ts';
import { finding, type Finding } from './findings.ts';
import { compiled, parseJsonFile } from './parse-evidence.ts';
import { AttemptTable, GradesTable } from '../bundle/tables.ts';

const GRADE_FILE = /^grades\/([1-9][0-9]*)\.json$/;

/** Grade file names, numbering, generation 1's grader, results naming real attempts once, and their artifacts. */
export function checkGrades(ctx: VerifyContext): void {
  // Every name under grades/ on disk or in the manifest: a listed but absent file is MISSING_FILE, not a gap.
  const names = new Set<string>();
  for (const entry of ctx.snapshot.entries) if (entry.path.startsWith('grades/') && entry.kind !== 'directory') names.add(entry.path);
  for (const path of ctx.listed.keys()) if (path.startsWith('grades/')) names.add(path);

  const numbered = new Map<number, string>();
  for (const path of [...names].sort()) {
    const match = GRADE_FILE.exec(path);
    const n = match ? Number(match[1]) : NaN;
    if (!Number.isSafeInteger(n)) {
      addFinding(ctx, 'GENERATION_GAP', path, `${quotePath(path)} is not a grading generation file grades/<n>.json (n in plain decimal from 1)`);
      continue;
    }
    numbered.set(n, path);
  }
  const count = numbered.size;
  for (const n of [...numbered.keys()].sort((a, b) => a - b)) {
    if (n > count) {
      const missing = [];
      for (let k = 1; k <= count + 1 && missing.length < 5; k++) if (!numbered.has(k)) missing.push(k);
      addFinding(ctx, 'GENERATION_GAP', numbered.get(n)!, `generation ${n} exists but generation ${missing.join(', ')} does not: generations are numbered 1..n without gaps`);
      break;
    }
  }

  // Rows of the attempts by id; results naming an attempt not there are GRADE_UNKNOWN_ATTEMPT when attempts.jsonl is complete.
  const attemptRows = ctx.attemptRows;
  const checkKnown = ctx.attempts !== undefined && ctx.attemptsComplete;
  for (const [n, path] of [...numbered].sort((a, b) => a[0] - b[0])) {
    const bytes = contentOf(ctx, path);
    if (bytes === undefined) continue; // MISSING_FILE / NOT_REGULAR_FILE reported elsewhere.
    // Result by result into a table when it can be (see streamGenerationInto); else parsed whole, as follows.
    if (ctx.attempts !== undefined && attemptRows !== undefined && streamGenerationInto(ctx, path, n, bytes, ctx.attempts, attemptRows, checkKnown)) continue;
    const parsed = parseJsonFile(ctx, path, bytes, Grades, false);
    const grades = parsed?.data;
    if (!grades) continue;
    checkGeneration(ctx, path, n, grades);
    const graded = new Set<string>();
    // Kept as a table of rows, like a streamed generation: results naming no attempt of the table are kept as objects.
    const attempts = ctx.attempts ?? new AttemptTable(0);
    const rows = new Int32Array(grades.results.length);
    grades.results.forEach((result, i) => {
      const row = attemptRows?.get(result.attempt_id);
      rows[i] = row ?? -1;
      checkResult(ctx, ctx.findings, path, n, result, i, row, graded, checkKnown);
    });
    ctx.grades.push(GradesTable.of(path, grades, attempts, rows));
  }
}

/** A generation's own checks: its number against its name, and generation 1's grader against the plan's. */
function checkGeneration(ctx: VerifyContext, path: string, n: number, grades: Omit<Grades, 'results'>): void {
  if (grades.generation !== n) {
    addFinding(ctx, 'GENERATION_GAP', path, `${path} says generation ${grades.generation}; its name says ${n}`);
  }
  if (n === 1 && ctx.plan) {
    const pinned = ctx.plan.grader;
    const g = grades.grader;
    if (g.id !== pinned.id || g.version !== pinned.version || g.executable !== pinned.executable) {
      addFinding(
        ctx,
        'GRADER_NOT_PINNED',
        path,
        `generation 1 used grader ${JSON.stringify(`${g.id}@${g.version}`)} (${g.executable}); the plan pins ${JSON.stringify(`${pinned.id}@${pinned.version}`)} (${pinned.executable})`,
      );
    }
  }
}

/** One result's checks (graded twice, unknown attempt, missing artifacts), its findings added to `out`. */
function checkResult(
  ctx: VerifyContext,
  out: Finding[],
  path: string,
  n: number,
  result: GradeResult,
  i: number,
  row: number | undefined,
  graded: Set<string>,
  checkKnown: boolean,
): void {
  // The label of a finding is built only for a finding (there may be a million results).
  const before = graded.size;
  graded.add(result.attempt_id);
  if (graded.size === before) {
    out.push(finding('GRADE_UNKNOWN_ATTEMPT', path, `${resultLabel(i, result.attempt_id)}: the attempt is graded twice in generation ${n}`));
  }
  if (checkKnown && row === undefined) {
    out.push(finding('GRADE_UNKNOWN_ATTEMPT', path, `${resultLabel(i, result.attempt_id)}: no such attempt in attempts.jsonl`));
  }
  if (!ctx.manifest) return;
  for (const member of ['input', 'output', 'receipt'] as const) {
    const digest = result[member];
    if (!ctx.presentDigests.has(digest)) {
      out.push(finding('MISSING_ARTIFACT', path, `${resultLabel(i, result.attempt_id)}: ${member} ${digest} has no file: no listed file of the bundle with these bytes is present`));
    }
  }
}

/**
 * The streamed form of the whole-file path above: each result is parsed
 * strictly from its own bytes, validated, checked and added to a table, and
 * dropped (src/json/array-member.ts); then the rest of the file is parsed and
 * validated with `results` empty, which together is what validating the
 * whole file decides. The findings are the whole-file path's, in its order
 * (the generation's own checks, then each result's). Returns false, having
 * changed nothing, when the file is not one this path takes (not ASCII, an
 * escape, any parse or schema problem): then the
 * whole-file path runs and words the problems.
 */
function streamGenerationInto(
  ctx: VerifyContext,
  path: string,
  n: number,
  bytes: Uint8Array,
  attempts: AttemptTable,
  attemptRows: Map<string, number>,
  checkKnown: boolean,
): boolean {
  const resultSchema = compiled(GradeResult);
  const found: Finding[] = [];
  const graded = new Set<string>();
  const table = new GradesTable(path, { schema: 'ledgerboard.grades.v1', generation: n, created_at: '', grader: { id: '', version: '', executable: '' } }, attempts);
  const top = parseWithArrayMember(bytes, 'results', (element, i) => {
    if (!resultSchema.validate(element)) return false;
    const result = element as GradeResult;
    const row = attemptRows.get(result.attempt_id);
    checkResult(ctx, found, path, n, result, i, row, graded, checkKnown);
    table.add(result, row ?? -1);
    return true;
  }, { maxStringBytes: ctx.stringBytes });
  if (top === undefined || !compiled(Grades).validate(top)) return false;
  const grades = top as Grades;
  table.setTop(grades);
  checkGeneration(ctx, path, n, grades);
  for (const f of found) ctx.findings.push(f);
  ctx.grades.push(table);
  return true;
}

/** `results[3] for attempt "a-000017"`, the start of a finding's message about one grade result. */
function resultLabel(i: number, attemptId: string): string {
  return `results[${i}] for attempt ${JSON.stringify(attemptId)}`;
}
