/**
 * Test helper for analysis and report tests: small valid bundles described by
 * a compact outcome grid, sealed in memory, verified with verifyBundle and
 * turned into buildReport inputs (verification + content digest), plus
 * PooledAttempt rows for the pure analysis functions.
 *
 * Grid cells, one character per attempt index:
 *   P  completed, graded pass         F  completed, graded fail
 *   E  completed, graded error        M  completed, no grade (missing)
 *   T  timeout (never graded)         X  model_failure (never graded)
 *   -  no attempt (an unaccounted slot: UNACCOUNTED_SLOT warning, still verified)
 */
import { digestBytes } from '../../src/json/canonical.ts';
import type { GraderReason, TerminalClass } from '../../src/analysis/grading.ts';
import type { ContributingPlan } from '../../src/analysis/pool.ts';
import type { PooledAttempt } from '../oracle/pool.ts';
import type { TaskTally } from '../../src/analysis/score.ts';
import { tallyTasks } from '../oracle/score.ts';
import { contentDigest } from '../../src/pipeline/verify-paths.ts';
import type { ReportInput } from '../../src/report/build-report.ts';
import type { Attempt, Grader, Grades, LedgerRecord, Subject } from '../../src/schema/index.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import { addArtifact, BASELINE, CANDIDATE, GRADER, PLAN_CREATED_AT, rebudget, snapshotOf, validBundle, type BundleModel, type SealOptions } from './bundle-builder.ts';

/** The default candidate and baseline selectors (grid keys). */
export const CAND = CANDIDATE.selector;
export const BASE = BASELINE.selector;
/** A third subject (a second candidate). */
export const OTHER: Subject = { selector: ':other', model: 'acme/other-2026-07-01', agent: { name: 'loop', version: '3.1.0' }, role: 'candidate' };
/** A regrader (generation 2+). */
export const REGRADER: Grader = { id: 'oracle', version: '2.0.0', executable: digestBytes('oracle 2.0.0 executable') };

/** A ledger task: holdout true and cluster = id unless said otherwise. */
export interface TaskSpec {
  id: string;
  holdout?: boolean;
  cluster?: string;
  /** Changes the prompt digest (a "changed" task between two ledgers). */
  prompt?: string;
}

/** A regrade generation: verdicts by attempt id. */
export interface RegradeSpec {
  grader: Grader;
  created_at: string;
  verdicts: Record<string, 'pass' | 'fail' | 'error'>;
}

/** A bundle described by its grid. */
export interface ModelSpec {
  title?: string;
  created_at?: string;
  ledgerName?: string;
  tasks: TaskSpec[];
  subjects?: Subject[];
  /** Attempts per subject per task (default: the longest grid cell). */
  attempts?: number;
  /** Grid per subject selector: one string per task (ledger order), one character per index. */
  grid: Record<string, string[]>;
  toolPolicy?: string;
  /** budget.aggregate_micros (default 20,000,000); per_attempt_micros is re-derived as floor(aggregate / dispatches). */
  aggregate?: number;
  /** Attempt id prefix (default 'a'). */
  prefix?: string;
  /** Every attempt's started_at / ended_at (default 2026-09-15T08:00:00Z / 08:10:00Z). */
  startedAt?: string;
  endedAt?: string;
  /** Generation 1's created_at (default 2026-09-15T09:00:00Z). */
  gradedAt?: string;
  regrades?: RegradeSpec[];
  /** Last word on each attempt (wall, tokens, cost ...). */
  tweak?: (attempt: Attempt) => void;
}

/** The attempt id of a grid cell: `<prefix>-<subject position>-<task>-<index>`. */
export function attemptId(prefix: string, subject: number, task: string, index: number): string {
  return `${prefix}-${subject}-${task}-${index}`;
}

function ledgerRecord(spec: TaskSpec): LedgerRecord {
  return {
    task_id: spec.id,
    repo: null,
    base_sha: null,
    prompt_sha256: digestBytes(spec.prompt ?? `prompt ${spec.id}`),
    failing_tests: null,
    failing_assertion: null,
    oracle_sha256: null,
    license: 'MIT',
    difficulty: null,
    holdout: spec.holdout ?? true,
    cluster_id: spec.cluster ?? spec.id,
    created_at: '2026-09-14T00:00:00Z',
  };
}

const OUTCOME: Record<string, Attempt['outcome']> = { P: 'completed', F: 'completed', E: 'completed', M: 'completed', T: 'timeout', X: 'model_failure' };
const VERDICT: Record<string, 'pass' | 'fail' | 'error'> = { P: 'pass', F: 'fail', E: 'error' };

/** A bundle model from a grid (no grant, no notes, no patches; three shared grading artifacts). */
export function gridModel(spec: ModelSpec): BundleModel {
  const model = validBundle();
  const subjects = (spec.subjects ?? [CANDIDATE, BASELINE]).map((s) => ({ ...s, agent: { ...s.agent } }));
  const attemptsPerTask = spec.attempts ?? Math.max(1, ...Object.values(spec.grid).flatMap((cells) => cells.map((c) => c.length)));
  const prefix = spec.prefix ?? 'a';
  model.plan.title = spec.title ?? model.plan.title;
  model.plan.created_at = spec.created_at ?? PLAN_CREATED_AT;
  model.plan.ledger = { name: spec.ledgerName ?? 'widget-bugs', digest: model.plan.ledger.digest, tasks: spec.tasks.length };
  if (spec.toolPolicy !== undefined) model.plan.environment.tool_policy = spec.toolPolicy;
  model.plan.subjects = subjects;
  model.plan.attempts = attemptsPerTask;
  if (spec.aggregate !== undefined) model.plan.budget!.aggregate_micros = spec.aggregate;
  rebudget(model);
  model.ledger = spec.tasks.map(ledgerRecord);
  model.attempts = [];
  // Grade results name an input, output and receipt (required digests of listed files, FORMAT.md 5.3): shared files here.
  model.artifacts = new Map();
  const art = {
    input: addArtifact(model, 'artifacts/grading/input.json', '{"grading":"input"}\n'),
    output: addArtifact(model, 'artifacts/grading/output.txt', 'grader output\n'),
    receipt: addArtifact(model, 'artifacts/grading/receipt.json', '{"receipt":true}\n'),
  };
  const results: Grades['results'] = [];
  subjects.forEach((subject, s) => {
    const cells = spec.grid[subject.selector] ?? [];
    spec.tasks.forEach((task, t) => {
      const cell = cells[t] ?? '';
      for (let i = 0; i < cell.length; i++) {
        const code = cell[i]!;
        if (code === '-') continue;
        const outcome = OUTCOME[code];
        if (outcome === undefined) throw new Error(`unknown grid code ${code}`);
        const attempt_id = attemptId(prefix, s, task.id, i + 1);
        const attempt: Attempt = {
          attempt_id,
          task_id: task.id,
          model: subject.model,
          agent: { ...subject.agent },
          index: i + 1,
          observed_model: subject.model,
          outcome,
          started_at: spec.startedAt ?? '2026-09-15T08:00:00Z',
          ended_at: spec.endedAt ?? '2026-09-15T08:10:00Z',
          wall_seconds: 600,
          tokens: { input: 1000, output: 100 },
          retries: 0,
          cost: { state: 'complete', micros: 1000 },
          patch: null,
        };
        spec.tweak?.(attempt);
        model.attempts.push(attempt);
        const verdict = VERDICT[code];
        if (verdict) results.push({ attempt_id, verdict, ...art });
      }
    });
  });
  const generations: BundleModel['grades'] = [
    {
      name: '1.json',
      value: { schema: 'ledgerboard.grades.v1', generation: 1, created_at: spec.gradedAt ?? '2026-09-15T09:00:00Z', grader: { ...GRADER }, results },
    },
  ];
  (spec.regrades ?? []).forEach((r, i) => {
    generations.push({
      name: `${i + 2}.json`,
      value: {
        schema: 'ledgerboard.grades.v1',
        generation: i + 2,
        created_at: r.created_at,
        grader: { ...r.grader },
        results: Object.entries(r.verdicts).map(([attempt_id, verdict]) => ({ attempt_id, verdict, ...art })),
      },
    });
  });
  model.grades = generations;
  model.grant = null;
  model.notes = null;
  return model;
}

/** Seals a model in memory, verifies it, and computes its content digest: one buildReport input. */
export function reportInput(model: BundleModel, options: SealOptions = {}): ReportInput {
  const snapshot = snapshotOf(model, options);
  return { verification: verifyBundle(snapshot), content_digest: contentDigest(snapshot) };
}

/** gridModel + reportInput. */
export function gridInput(spec: ModelSpec, options: SealOptions = {}): ReportInput {
  return reportInput(gridModel(spec), options);
}

/** A PooledAttempt row with neutral defaults. */
export function pooled(row: Partial<PooledAttempt> & { attempt_id: string; task_id: string; terminal: TerminalClass }): PooledAttempt {
  return {
    bundle_id: `sha256:${'a'.repeat(64)}`,
    plan_id: 'plan-1',
    index: 1,
    reason: null,
    wall_seconds: 1,
    tokens: { input: 1, output: 1 },
    retries: 0,
    cost: { state: 'complete', micros: 1 },
    ...row,
  };
}

const CELL: Record<string, { terminal: TerminalClass; reason: GraderReason | null }> = {
  P: { terminal: 'resolved', reason: null },
  F: { terminal: 'grader_failure', reason: 'failed' },
  E: { terminal: 'grader_failure', reason: 'errored' },
  M: { terminal: 'grader_failure', reason: 'missing' },
  T: { terminal: 'timeout', reason: null },
  X: { terminal: 'model_failure', reason: null },
};

/**
 * One side (a cohort) from per-task cells of one plan: its tallies and
 * contributing plans (attempts_per_task = `attempts`, default the longest cell).
 */
export function sideFrom(cells: Record<string, string>, attempts?: number, plan_id = 'plan-1'): {
  tallies: Map<string, TaskTally>;
  plans: Map<string, ContributingPlan>;
} {
  const rows: PooledAttempt[] = [];
  for (const [task_id, cell] of Object.entries(cells)) {
    for (let i = 0; i < cell.length; i++) {
      const code = cell[i]!;
      if (code === '-') continue;
      const c = CELL[code];
      if (!c) throw new Error(`unknown cell code ${code}`);
      rows.push(pooled({ attempt_id: `${plan_id}-${task_id}-${i + 1}`, task_id, index: i + 1, plan_id, ...c }));
    }
  }
  const perTask = attempts ?? Math.max(1, ...Object.values(cells).map((c) => c.length));
  const plans = new Map<string, ContributingPlan>([
    [plan_id, { plan_id, bundle_id: `sha256:${'b'.repeat(64)}`, title: plan_id, created_at: PLAN_CREATED_AT, attempts_per_task: perTask }],
  ]);
  return { tallies: tallyTasks(rows), plans };
}
