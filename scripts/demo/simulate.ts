/**
 * Runs a plan in simulation: dispatches every slot of the matrix once, on a
 * few parallel workers, and records for each attempt an outcome, times,
 * tokens, cost and (for completed attempts) a patch or answer. Whether an
 * attempt resolves follows from the subject's skill against the task's
 * hardness: reliably solved 4 points above, reliably failed 4 below, a coin
 * flip in between.
 */
import type { Attempt, Outcome } from '../../src/schema/index.ts';
import type { ArtifactStore } from './artifacts.ts';
import { answerText, patchText } from './ledger.ts';
import { Rng } from './random.ts';
import type { PlannedSubject, PlanSpec } from './spec.ts';
import type { SubjectDef } from './subjects.ts';
import { TASKS, type TaskSpec } from './tasks.ts';
import { isoTenths, MINUTE, SECOND, toDeci } from './time.ts';

/** An attempt with the facts grading needs. */
export interface SimAttempt {
  attempt: Attempt;
  task: TaskSpec;
  subject: PlannedSubject;
  /** Which subject of the plan (position in plan.subjects). */
  subjectIndex: number;
  /** True when the candidate output really fixes the task (what an honest grader reports). */
  resolved: boolean;
  /** Digest of what the grader reads: the patch, or the answer file; null when nothing was produced. */
  graderInput: string;
  /** Deciseconds since the epoch when the attempt started and ended. */
  startedDeci: number;
  endedDeci: number;
}

const WORKERS = 6;

/** The reliability margin: skill this far above (below) the hardness always (never) solves. */
const MARGIN = 4;

/** Probability that a subject resolves a task: 1, 0, or 0.5 near its level. */
export function solveProbability(subject: PlannedSubject, task: TaskSpec): number {
  const quirk = subject.def.quirks?.[task.id];
  if (quirk !== undefined) return quirk;
  const diff = subject.skill - task.hardness;
  if (diff >= MARGIN) return 1;
  if (diff <= -MARGIN) return 0;
  return 0.5;
}

/** How an attempt that did not resolve ended. */
const FAILURE_OUTCOMES: readonly (readonly [Outcome, number])[] = [
  ['completed', 52],
  ['model_failure', 14],
  ['timeout', 12],
  ['environment_failure', 6],
  ['harness_failure', 5],
  ['safety_failure', 5],
  ['cancelled', 6],
];

/** Simulates every attempt of a plan, storing patches and answers in the store; returns them in dispatch order. */
export function simulatePlan(spec: PlanSpec, perAttemptMicros: number, timeoutSeconds: number, store: ArtifactStore): SimAttempt[] {
  const slots: { task: TaskSpec; subjectIndex: number; index: number }[] = [];
  for (let index = 1; index <= spec.attempts; index++) {
    for (const task of spec.tasks ?? TASKS) for (let s = 0; s < spec.subjects.length; s++) slots.push({ task, subjectIndex: s, index });
  }
  const order = new Rng('dispatch-order', spec.seed).shuffle(slots);
  const freeAt = Array.from({ length: WORKERS }, (_, w) => toDeci(spec.createdAt) + 40 * MINUTE + w * 7 * SECOND);
  const invalid = new Set(spec.invalidTasks ?? []);

  return order.map(({ task, subjectIndex, index }, n) => {
    const subject = spec.subjects[subjectIndex]!;
    const { model, agent } = subject.def.subject;
    const rng = new Rng('attempt', spec.seed, task.id, model, agent.version, index);
    const worker = earliest(freeAt);
    const start = freeAt[worker]! + rng.int(2 * SECOND, 15 * SECOND);

    let resolved = false;
    let outcome: Outcome;
    if (invalid.has(task.id)) outcome = 'invalid_case';
    else {
      resolved = rng.chance(solveProbability(subject, task));
      outcome = resolved ? 'completed' : rng.weighted(FAILURE_OUTCOMES);
    }
    const duration = durationOf(outcome, task, timeoutSeconds, rng);
    freeAt[worker] = start + duration;

    const tokens = tokensOf(outcome, duration, subject.def, rng);
    const cost = costOf(outcome, tokens, subject.def, rng);
    if (cost.micros !== null && cost.micros > perAttemptMicros) {
      throw new Error(`demo bug: ${task.id} ${model} costs ${cost.micros}, above the ceiling ${perAttemptMicros}`);
    }

    let patch: string | null = null;
    let graderInput: string;
    if (outcome === 'completed') {
      if (task.kind === 'repair') patch = graderInput = store.put('patches', 'diff', patchText(task, resolved ? 'fix' : 'wrong'));
      else graderInput = store.put('answers', 'txt', answerText(task, resolved));
    } else {
      // Grade results always name their input (FORMAT.md 5.3): here, the record that nothing was produced.
      graderInput = store.put('grader', 'txt', `no candidate output\nthe attempt ended with outcome ${outcome}\n`);
    }

    const attempt: Attempt = {
      attempt_id: `a-${String(n + 1).padStart(6, '0')}`,
      task_id: task.id,
      model,
      agent: { ...agent },
      index,
      observed_model: model,
      outcome,
      started_at: isoTenths(start),
      ended_at: isoTenths(start + duration),
      wall_seconds: duration / 10,
      tokens,
      retries: rng.weighted([[0, 90], [1, 8], [2, 2]] as const),
      cost,
      patch,
    };
    return { attempt, task, subject, subjectIndex, resolved, graderInput, startedDeci: start, endedDeci: start + duration };
  });
}

function earliest(freeAt: readonly number[]): number {
  let best = 0;
  for (let w = 1; w < freeAt.length; w++) if (freeAt[w]! < freeAt[best]!) best = w;
  return best;
}

/** Wall time in deciseconds, by outcome and difficulty; a timeout runs just past the plan's limit. */
function durationOf(outcome: Outcome, task: TaskSpec, timeoutSeconds: number, rng: Rng): number {
  switch (outcome) {
    case 'completed':
      if (task.kind === 'question') return rng.int(200, 1200);
      return task.difficulty === 'A' ? rng.int(900, 4800) : task.difficulty === 'B' ? rng.int(2400, 9000) : rng.int(4800, 15000);
    case 'model_failure':
      return rng.int(300, 6000);
    case 'timeout':
      return timeoutSeconds * SECOND + rng.int(4, 30);
    case 'cancelled':
      return rng.int(150, 4000);
    case 'harness_failure':
      return rng.int(30, 900);
    case 'environment_failure':
      return rng.int(20, 400);
    case 'safety_failure':
      return rng.int(80, 1200);
    case 'invalid_case':
      return rng.int(40, 250);
  }
}

/** Token counts: null when the harness never learnt them (cancelled, harness crash, orbit's cut-off streams). */
function tokensOf(outcome: Outcome, duration: number, def: SubjectDef, rng: Rng): Attempt['tokens'] {
  if (outcome === 'environment_failure' || outcome === 'invalid_case') return { input: 0, output: 0 };
  if (outcome === 'cancelled' || outcome === 'harness_failure') return null;
  if (def.provider === 'orbit' && outcome === 'timeout') return null;
  const input = Math.min(90_000, Math.round((duration / 10) * rng.int(25, 45)) + rng.int(3000, 9000));
  const output = Math.min(10_000, Math.round(input / rng.int(9, 16)));
  return { input, output };
}

/**
 * Cost by provider: acme bills per token (complete; partial when the billing
 * export had not caught up with a killed run; zero when no request was made);
 * orbit exposes no billing (unavailable); lumen is self-hosted (not applicable).
 */
function costOf(outcome: Outcome, tokens: Attempt['tokens'], def: SubjectDef, rng: Rng): Attempt['cost'] {
  if (def.provider === 'orbit') return { state: 'unavailable', micros: null };
  if (def.provider === 'lumen') return { state: 'not_applicable', micros: null };
  const price = def.price!;
  if (tokens === null) return { state: 'partial', micros: rng.int(2000, 40_000) };
  if (tokens.input === 0 && tokens.output === 0) return { state: 'zero', micros: 0 };
  const full = Math.floor((tokens.input * price.input + tokens.output * price.output) / 10);
  if (outcome === 'timeout') return { state: 'partial', micros: Math.floor((full * rng.int(55, 90)) / 100) };
  return { state: 'complete', micros: full };
}
