/** Steps over attempts.jsonl: identities, the matrix, times, costs and artifacts (FORMAT.md sections 3.1, 3.2, 5.1). */
import { countJsonlLines } from '../json/jsonl.ts';
import { Attempt } from '../schema/index.ts';
import { subjectKey } from '../bundle/subject.ts';
import { contentOf, isImported, addFinding, type VerifyContext } from './context.ts';
import { finding, type Finding, type FindingCode } from './findings.ts';
import { forEachJsonlRecord } from './parse-evidence.ts';
import { AttemptTable } from '../bundle/tables.ts';
import { compareTimes } from '../bundle/times.ts';

const FILE = 'attempts.jsonl';

/**
 * Parses attempts.jsonl and checks each attempt on its own and against the
 * plan's matrix. Each attempt is checked as soon as its line is parsed and
 * then kept only as a row of an {@link AttemptTable}: a million attempts are
 * never a million live objects. The findings keep the order of a check after
 * the parse: every parse and schema finding (in line order), then the
 * per-attempt findings (in line order), then the matrix, then the ceiling.
 */
export function checkAttempts(ctx: VerifyContext): void {
  const bytes = contentOf(ctx, FILE);
  if (bytes === undefined) return;
  const table = new AttemptTable(countJsonlLines(bytes));

  const plan = ctx.plan;
  const subjects = new Set(plan?.subjects.map((s) => subjectKey(s.model, s.agent)));
  const tasks = ctx.ledger ? new Set(ctx.ledger.map((t) => t.task_id)) : undefined;
  const checkFreeze = plan !== undefined && !isImported(plan);
  const imported = isImported(plan);
  const ids = new Map<string, number>();
  const slots: Slots = { lines: new Map(), perTask: new Map() };
  const perAttempt: Finding[] = [];
  const ceiling = new Ceiling(ctx);

  const { complete } = forEachJsonlRecord(ctx, FILE, bytes, Attempt, (line, a) => {
    const row = table.add(line, a);
    // The label of a finding is built only for a finding: most attempts have none, and there may be millions.
    const firstRow = ids.get(a.attempt_id);
    if (firstRow !== undefined) {
      table.duplicateIds = true;
      note(perAttempt, 'DUPLICATE_ID', `${labelOf(line, a.attempt_id)} already appears on line ${table.line[firstRow]}`, line);
    } else {
      ids.set(a.attempt_id, row);
    }

    if (a.observed_model !== a.model) {
      note(perAttempt, 'IDENTITY_MISMATCH', `${labelOf(line, a.attempt_id)} was planned for ${JSON.stringify(a.model)} but observed ${JSON.stringify(a.observed_model)}`, line);
    }

    if (plan) {
      const outside: string[] = [];
      // With a malformed ledger line the task may be on it: not guessed.
      if (tasks && ctx.ledgerComplete && !tasks.has(a.task_id)) outside.push(`task ${JSON.stringify(a.task_id)} is not in the ledger`);
      if (!subjects.has(subjectKey(a.model, a.agent))) {
        outside.push(`subject ${JSON.stringify(a.model)} with agent ${JSON.stringify(`${a.agent.name}@${a.agent.version}`)} is not in the plan`);
      }
      if (a.index < 1 || a.index > plan.attempts) outside.push(`index ${a.index} is outside 1..${plan.attempts}`);
      if (outside.length > 0) note(perAttempt, 'UNPLANNED_ATTEMPT', `${labelOf(line, a.attempt_id)}: ${outside.join('; ')}`, line);
      else fillSlot(perAttempt, slots, a, line);
      if (checkFreeze && compareTimes(a.started_at, plan.created_at) < 0) {
        note(perAttempt, 'ATTEMPT_BEFORE_FREEZE', `${labelOf(line, a.attempt_id)} started at ${a.started_at}, before the plan was frozen at ${plan.created_at}`, line);
      }
    } else {
      fillSlot(perAttempt, slots, a, line);
    }
    // For imported evidence ATTEMPT_BEFORE_FREEZE is not evaluated at all (FORMAT.md 9).
    if (!imported && compareTimes(a.ended_at, a.started_at) < 0) {
      note(perAttempt, 'ATTEMPT_BEFORE_FREEZE', `${labelOf(line, a.attempt_id)} ended at ${a.ended_at}, before it started at ${a.started_at}`, line);
    }

    const inconsistent = costInconsistency(a.cost.state, a.cost.micros);
    if (inconsistent) note(perAttempt, 'COST_STATE_INCONSISTENT', `${labelOf(line, a.attempt_id)}: ${inconsistent}`, line);

    if (a.patch !== null && ctx.manifest && !ctx.presentDigests.has(a.patch)) {
      note(perAttempt, 'MISSING_ARTIFACT', `${labelOf(line, a.attempt_id)}: patch ${a.patch} has no file: no listed file of the bundle with these bytes is present`, line);
    }
    ceiling.add(line, a);
  });
  ctx.attempts = table;
  ctx.attemptRows = ids;
  ctx.attemptsComplete = complete;
  for (const f of perAttempt) ctx.findings.push(f);
  // With a malformed attempts line its slot is unknown: empty slots are not guessed.
  if (plan && tasks && complete) checkSlots(ctx, slots);
  ceiling.finish();
}

function note(out: Finding[], code: FindingCode, message: string, line: number): void {
  out.push(finding(code, FILE, message, line));
}

/** Records the attempt's slot; a second attempt for one slot is DUPLICATE_SLOT (a redispatch). */
function fillSlot(out: Finding[], slots: Slots, a: Attempt, line: number): void {
  let bySubject = slots.lines.get(a.task_id);
  if (bySubject === undefined) {
    bySubject = new Map();
    slots.lines.set(a.task_id, bySubject);
  }
  const subject = subjectKey(a.model, a.agent);
  let byIndex = bySubject.get(subject);
  if (byIndex === undefined) {
    byIndex = new Map();
    bySubject.set(subject, byIndex);
  }
  const taken = byIndex.get(a.index);
  if (taken === undefined) {
    byIndex.set(a.index, line);
    slots.perTask.set(a.task_id, (slots.perTask.get(a.task_id) ?? 0) + 1);
    return;
  }
  note(
    out,
    'DUPLICATE_SLOT',
    `${labelOf(line, a.attempt_id)} fills the slot (task ${JSON.stringify(a.task_id)}, model ${JSON.stringify(a.model)}, index ${a.index}) already filled on line ${taken}: a redispatch`,
    line,
  );
}

/**
 * Filled slots: the line that filled each, by task id, subject key and index
 * (nested maps: no key string is built per attempt, and no two slots can
 * share a key); and how many slots of each task are filled.
 */
interface Slots {
  lines: Map<string, Map<string, Map<number, number>>>;
  perTask: Map<string, number>;
}

/** `line 12: attempt "a-000017"`, the start of a finding's message about one attempt. */
function labelOf(line: number, attemptId: string): string {
  return `line ${line}: attempt ${JSON.stringify(attemptId)}`;
}

/** Why a cost's micros contradict its state, or null. */
function costInconsistency(state: Attempt['cost']['state'], micros: number | null): string | null {
  switch (state) {
    case 'complete':
    case 'partial':
      return micros === null ? `cost state ${state} needs micros, found null` : null;
    case 'unavailable':
    case 'not_applicable':
      return micros !== null ? `cost state ${state} must have micros null, found ${micros}` : null;
    case 'zero':
      return micros !== 0 ? `cost state zero must have micros 0, found ${micros === null ? 'null' : micros}` : null;
  }
}

/** At most this many empty slots are listed one by one; the rest are counted in one more finding. */
export const UNACCOUNTED_SLOTS_LISTED = 1000;

/**
 * UNACCOUNTED_SLOT (warning) for every slot of tasks x subjects x indices
 * without an attempt. A plan may declare a huge matrix with few attempts, so
 * the first {@link UNACCOUNTED_SLOTS_LISTED} empty slots are listed and the
 * rest counted (by arithmetic, without visiting them) in one more finding.
 */
function checkSlots(ctx: VerifyContext, slots: Slots): void {
  const plan = ctx.plan!;
  const tasks = [...new Set(ctx.ledger!.map((t) => t.task_id))];
  // A duplicated subject (DUPLICATE_SUBJECT) names the same slots twice: count each slot once.
  const subjects = [...new Map(plan.subjects.map((s) => [subjectKey(s.model, s.agent), s])).values()];
  let filled = 0;
  for (const taskId of tasks) filled += slots.perTask.get(taskId) ?? 0;
  const empty = BigInt(tasks.length) * BigInt(subjects.length) * BigInt(plan.attempts) - BigInt(filled);
  // Every filled slot counted is a slot of this matrix, so none empty means nothing to list.
  if (empty === 0n) return;
  let listed = 0;
  outer: for (const taskId of tasks) {
    const bySubject = slots.lines.get(taskId);
    for (const subject of subjects) {
      const byIndex = bySubject?.get(subjectKey(subject.model, subject.agent));
      for (let index = 1; index <= plan.attempts; index++) {
        if (byIndex?.has(index)) continue;
        if (listed === UNACCOUNTED_SLOTS_LISTED) break outer;
        listed++;
        addFinding(ctx, 'UNACCOUNTED_SLOT', FILE, `no attempt for task ${JSON.stringify(taskId)}, subject ${JSON.stringify(subject.selector)}, index ${index}`);
      }
    }
  }
  if (empty > BigInt(listed)) {
    addFinding(ctx, 'UNACCOUNTED_SLOT', FILE, `and ${empty - BigInt(listed)} more slots of the matrix have no attempt (only the first ${listed} are listed)`);
  }
}

/**
 * OVER_CEILING (warning): a complete or partial cost above the per-attempt
 * ceiling, or their sum above the aggregate. Fed attempt by attempt; its
 * findings are added at {@link Ceiling.finish}, after the other checks'.
 */
class Ceiling {
  private readonly budget;
  // Summed as a number while that is exact (every micros is a safe integer), as a bigint past 2^53 - 1.
  private sum = 0;
  private big = 0n;
  private readonly findings: Finding[] = [];

  constructor(private readonly ctx: VerifyContext) {
    this.budget = ctx.plan?.budget ?? null;
  }

  add(line: number, a: Attempt): void {
    const budget = this.budget;
    if (!budget) return;
    if ((a.cost.state !== 'complete' && a.cost.state !== 'partial') || a.cost.micros === null) return;
    if (this.sum + a.cost.micros <= Number.MAX_SAFE_INTEGER) this.sum += a.cost.micros;
    else this.big += BigInt(a.cost.micros);
    // Never against a broken per-attempt ceiling (ZERO_SHARE / CEILING_ARITHMETIC); the aggregate still holds.
    if (!this.ctx.ceilingBroken && a.cost.micros > budget.per_attempt_micros) {
      note(
        this.findings,
        'OVER_CEILING',
        `line ${line}: attempt ${JSON.stringify(a.attempt_id)} cost ${a.cost.micros} micros (${a.cost.state}), above the per-attempt ceiling of ${budget.per_attempt_micros}`,
        line,
      );
    }
  }

  finish(): void {
    const budget = this.budget;
    if (!budget) return;
    for (const f of this.findings) this.ctx.findings.push(f);
    const total = BigInt(this.sum) + this.big;
    if (total > BigInt(budget.aggregate_micros)) {
      this.ctx.findings.push(finding('OVER_CEILING', FILE, `complete and partial costs sum to ${total} micros, above the aggregate ceiling of ${budget.aggregate_micros}`));
    }
  }
}
