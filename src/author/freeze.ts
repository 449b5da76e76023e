/**
 * `ledgerboard freeze`: a human-written YAML plan + the task ledger (+ an
 * aliases file) -> plan.json, with everything computable computed:
 *
 * - each subject's exact `model`, resolved from its selector (aliases.ts);
 * - `ledger.digest` (SHA-256 of the ledger's exact bytes) and `ledger.tasks`
 *   (its line count), after the ledger passed the strict parser and schema;
 * - `budget.per_attempt_micros` = floor(aggregate / dispatches), refused when
 *   it would be 0 (FORMAT.md 3.2: ZERO_SHARE);
 * - `created_at`: the plan's own, else SOURCE_DATE_EPOCH, else the clock;
 * - `plan_id`, the RFC 8785 digest of the rest.
 *
 * freezePlan is pure (given its inputs, the clock only as a last resort);
 * writeFrozenPlan writes plan.json and a byte-for-byte copy of the ledger,
 * create-only, and leaves nothing behind when it fails.
 */
import { lstat, mkdir, readFile, rmdir, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { digestBytes } from '../json/canonical.ts';
import { forEachStrictJsonlLine } from '../json/jsonl.ts';
import { LedgerRecord, Plan } from '../schema/index.ts';
import { compareTimestamps } from '../schema/timestamp.ts';
import { prettyJson, withSelfId } from '../evidence/seal.ts';
import { readAliases, resolveSubjects, type Aliases } from './aliases.ts';
import { exists, writeCreateOnly } from './create-only.ts';
import { AlreadyExistsError, type InputProblem, refuse, refuseIfAny } from './problems.ts';
import { describePath, parseStrictYaml } from './strict-yaml.ts';
import { readYamlPlan } from './yaml-plan.ts';
import { parseSourceDateEpoch, SourceDateError } from '../config/source-date.ts';

/** An input file: its bytes and the name messages use. */
export interface InputFile {
  file: string;
  bytes: Uint8Array;
}

/** What freeze reads. */
export interface FreezeInput {
  plan: InputFile;
  ledger: InputFile;
  aliases?: InputFile;
  /** The SOURCE_DATE_EPOCH environment variable, when set. */
  sourceDateEpoch?: string;
  /** The clock, used only when neither the plan nor SOURCE_DATE_EPOCH gives created_at. */
  now?: () => Date;
}

/** Where created_at came from. */
export type CreatedAtSource = 'plan' | 'SOURCE_DATE_EPOCH' | 'clock';

/** A frozen plan, ready to write. */
export interface FrozenPlan {
  plan: Plan;
  /** plan.json as written: 2-space JSON with a final newline (its id covers the canonical form). */
  planBytes: Buffer;
  /** The ledger's exact bytes (copied into the bundle as they are). */
  ledgerBytes: Uint8Array;
  dispatches: bigint;
  createdAtSource: CreatedAtSource;
  /** Things the verifier will warn about, or that make the plan less useful; not refusals. */
  warnings: string[];
}

/** Freezes a plan; throws AuthorInputError with every problem found. */
export function freezePlan(input: FreezeInput): FrozenPlan {
  const yaml = parseStrictYaml(input.plan.bytes, input.plan.file);
  const spec = readYamlPlan(yaml);
  const aliases: Aliases | null = input.aliases ? readAliases(input.aliases.bytes, input.aliases.file) : null;
  const subjects = resolveSubjects(spec, yaml, aliases);

  const { createdAt, source } = createdAtOf(spec.created_at, input.sourceDateEpoch, input.now);
  const ledger = readLedger(input.ledger, createdAt, source);

  const dispatches = BigInt(ledger.tasks) * BigInt(subjects.length) * BigInt(spec.attempts);
  const perAttempt = BigInt(spec.budget.aggregate_micros) / dispatches;
  if (perAttempt < 1n) {
    refuse({
      file: yaml.file,
      ...yaml.positionOf(['budget', 'aggregate_micros']),
      message:
        `${describePath(['budget', 'aggregate_micros'])} ${spec.budget.aggregate_micros} gives each of the ${dispatches} dispatches ` +
        `(${ledger.tasks} tasks x ${subjects.length} subjects x ${spec.attempts} attempts) floor(${spec.budget.aggregate_micros} / ${dispatches}) = 0 micros, ` +
        `a zero ceiling (ZERO_SHARE); give at least ${dispatches} micros, or fewer dispatches`,
    });
  }

  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: spec.title,
      created_at: createdAt,
      ledger: { name: spec.ledger.name, digest: ledger.digest, tasks: ledger.tasks },
      environment: {
        tool_policy: spec.environment.tool_policy,
        wiki: (spec.environment.wiki ?? []).map((w) => ({ path: w.path, sha256: w.sha256 })),
        isolation: spec.environment.isolation,
        session_topology: spec.environment.session_topology,
      },
      harness: { name: spec.harness.name, version: spec.harness.version, commit: spec.harness.commit },
      grader: { profile: spec.grader.profile, id: spec.grader.id, version: spec.grader.version, executable: spec.grader.executable },
      subjects: subjects.map((s) => ({ selector: s.selector, model: s.model, agent: { name: s.agent.name, version: s.agent.version }, role: s.role })),
      attempts: spec.attempts,
      budget: {
        currency: spec.budget.currency,
        aggregate_micros: spec.budget.aggregate_micros,
        per_attempt_micros: Number(perAttempt),
        timeout_seconds: spec.budget.timeout_seconds,
      },
      access_tier: spec.access_tier,
      seed: spec.seed,
    } satisfies Plan,
    'plan_id',
  );
  // The written plan must satisfy the format's own schema; if it does not, freeze has a bug.
  const check = Plan.safeParse(plan);
  if (!check.success) throw new Error(`freeze built a plan the format refuses (bug): ${check.error.message}`);

  const warnings = [...ledger.warnings];
  const baselines = subjects.filter((s) => s.role === 'baseline').length;
  if (baselines === 0) warnings.push('no subject has role baseline: the board will have no baseline, so no verdicts (NO_VERDICT)');
  if (baselines > 1) warnings.push(`${baselines} subjects have role baseline: a board needs exactly one for verdicts`);
  if (source === 'clock') {
    warnings.push(`created_at ${createdAt} was taken from the clock: set created_at in the plan (or SOURCE_DATE_EPOCH) for a reproducible plan_id`);
  }
  return { plan, planBytes: prettyJson(plan), ledgerBytes: input.ledger.bytes, dispatches, createdAtSource: source, warnings };
}

/** created_at: the plan's, else SOURCE_DATE_EPOCH (seconds since 1970, UTC), else the clock (whole seconds). */
function createdAtOf(fromPlan: string | undefined, epoch: string | undefined, now: (() => Date) | undefined): { createdAt: string; source: CreatedAtSource } {
  if (fromPlan !== undefined) return { createdAt: fromPlan, source: 'plan' };
  let fromEpoch: string | null;
  try {
    fromEpoch = parseSourceDateEpoch(epoch);
  } catch (error) {
    if (!(error instanceof SourceDateError)) throw error;
    refuse({ file: 'SOURCE_DATE_EPOCH', message: error.message.replace(/^SOURCE_DATE_EPOCH /, '') });
  }
  if (fromEpoch !== null) return { createdAt: fromEpoch, source: 'SOURCE_DATE_EPOCH' };
  return { createdAt: isoSeconds((now ?? (() => new Date()))()), source: 'clock' };
}

function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** Most problems listed per ledger; the rest are counted. */
const MAX_LEDGER_PROBLEMS = 50;

/**
 * The ledger, strictly: every line parses (FORMAT.md 2) and fits the ledger
 * schema (section 4), task ids are unique, no task was labelled after the
 * freeze. Returns its digest and task count; throws with every problem.
 */
export function readLedger(ledger: InputFile, createdAt: string, createdAtSource: CreatedAtSource): { digest: string; tasks: number; warnings: string[] } {
  const problems: InputProblem[] = [];
  let extra = 0;
  const add = (problem: InputProblem) => {
    if (problems.length < MAX_LEDGER_PROBLEMS) problems.push(problem);
    else extra++;
  };
  const firstLine = new Map<string, number>();
  let unlicensed = 0;
  const file = ledger.file;
  const lines = forEachStrictJsonlLine(ledger.bytes, (entry) => {
    if (!entry.ok) {
      add({ file, line: entry.line, column: entry.error.column, message: `not valid JSONL: ${entry.error.message}` });
      return;
    }
    const parsed = LedgerRecord.safeParse(entry.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = describePath(issue.path.filter((k): k is string | number => typeof k === 'string' || typeof k === 'number'));
        const message = issue.code === 'unrecognized_keys' ? `unknown member${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}` : issue.message;
        add({ file, line: entry.line, message: `${where}: ${message}` });
      }
      return;
    }
    const task = parsed.data;
    const seen = firstLine.get(task.task_id);
    if (seen !== undefined) add({ file, line: entry.line, message: `task ${JSON.stringify(task.task_id)} is already on line ${seen} (DUPLICATE_TASK)` });
    else firstLine.set(task.task_id, entry.line);
    if (compareTimestamps(task.created_at, createdAt) > 0) {
      add({
        file,
        line: entry.line,
        message: `task ${JSON.stringify(task.task_id)} was created at ${task.created_at}, after the plan's created_at ${createdAt} (${createdAtSource === 'plan' ? 'from the plan' : `from ${createdAtSource}`}): tasks are labelled before the freeze (LABELLED_AFTER_FREEZE)`,
      });
    }
    if (task.license.trim() === '') unlicensed++;
  });
  if (lines === 0) add({ file, message: 'the ledger is empty: a plan needs at least one task' });
  if (extra > 0) problems.push({ file, message: `... and ${extra} more problems` });
  refuseIfAny(problems);
  const warnings = unlicensed > 0 ? [`${unlicensed} task${unlicensed === 1 ? ' has' : 's have'} no license (MISSING_LICENSE): the site marks the ranking as not publishable`] : [];
  return { digest: digestBytes(ledger.bytes), tasks: lines, warnings };
}

/** What writeFrozenPlan did. */
export interface WrittenPlan {
  planPath: string;
  ledgerPath: string;
  /** False when ledger.jsonl was already there with exactly these bytes. */
  ledgerWritten: boolean;
}

/**
 * Writes plan.json and ledger.jsonl into a directory (created if needed),
 * create-only: an existing plan.json is never overwritten (AlreadyExistsError);
 * an existing ledger.jsonl is kept only when it holds exactly the pinned
 * bytes. When plan.json cannot be written, a ledger.jsonl written by this
 * call is removed again.
 */
export async function writeFrozenPlan(dir: string, frozen: FrozenPlan): Promise<WrittenPlan> {
  const created = await mkdir(dir, { recursive: true });
  try {
    return await writeInto(dir, frozen);
  } catch (error) {
    // Nothing partially written: directories this call created are removed again (only while empty).
    if (created !== undefined) await removeEmptyDirs(resolve(dir), resolve(created));
    throw error;
  }
}

async function writeInto(dir: string, frozen: FrozenPlan): Promise<WrittenPlan> {
  const planPath = join(dir, 'plan.json');
  const ledgerPath = join(dir, 'ledger.jsonl');
  const refusal = () => new AlreadyExistsError(planPath, `${planPath} already exists: a frozen plan is never overwritten (freeze into a new directory)`);
  if (await exists(planPath)) throw refusal();
  let ledgerWritten = false;
  if (await exists(ledgerPath)) {
    const stats = await lstat(ledgerPath);
    const same = stats.isFile() && Buffer.from(await readFile(ledgerPath)).equals(Buffer.from(frozen.ledgerBytes));
    if (!same) throw new AlreadyExistsError(ledgerPath, `${ledgerPath} already exists with other bytes than the ledger being pinned; it is never overwritten`);
  } else {
    await writeCreateOnly(ledgerPath, frozen.ledgerBytes);
    ledgerWritten = true;
  }
  try {
    await writeCreateOnly(planPath, frozen.planBytes);
  } catch (error) {
    if (ledgerWritten) await unlink(ledgerPath).catch(() => undefined);
    throw error instanceof AlreadyExistsError ? refusal() : error;
  }
  return { planPath, ledgerPath, ledgerWritten };
}

/** Removes `dir` and its parents up to and including `top`, stopping at the first that is not empty. */
async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  for (let current = dir; ; current = dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    if (current === top || dirname(current) === current) return;
  }
}

