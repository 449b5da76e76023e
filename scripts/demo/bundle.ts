/** Assembles one demo plan into bundle files: plan, ledger, attempts, grades, grant, assessments, notes and artifacts. */
import { jsonlBytes, prettyJson, withSelfId } from '../../src/evidence/seal.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import type { Grades, Plan } from '../../src/schema/index.ts';
import { ArtifactStore } from './artifacts.ts';
import { assessmentFiles } from './assessments.ts';
import { buildGeneration, firstGenerationRule, trueVerdict } from './grading.ts';
import { LEDGER_NAME, ledgerBytes } from './ledger.ts';
import { notesText } from './notes.ts';
import type { DemoPlan } from './plans.ts';
import type { FrozenPlanSpec } from './spec.ts';
import { budgetFor, environmentFor, HARNESS, PLAN_GRADER, REGRADER, toolPolicyBytes } from './setup.ts';
import { simulatePlan, type SimAttempt } from './simulate.ts';
import { TASKS } from './tasks.ts';
import { DAY, MINUTE, isoSeconds, toDeci } from './time.ts';

/** A built bundle: its files (manifest excluded) and what the summary line and checks need. */
export interface BuiltBundle {
  dir: string;
  plan: Plan;
  files: Map<string, Buffer>;
  sims: SimAttempt[];
  grades: Grades[];
}

/** Freezes a plan (with its id) for a spec. */
export function freezePlan(spec: FrozenPlanSpec): Plan {
  const ledger = ledgerBytes();
  const dispatches = TASKS.length * spec.subjects.length * spec.attempts;
  return withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: spec.title,
      created_at: spec.createdAt,
      ledger: { name: LEDGER_NAME, digest: digestBytes(ledger), tasks: TASKS.length },
      environment: environmentFor(spec.toolPolicy),
      harness: { ...HARNESS },
      grader: { ...PLAN_GRADER },
      subjects: spec.subjects.map((s) => structuredClone(s.def.subject)),
      attempts: spec.attempts,
      budget: budgetFor(dispatches),
      access_tier: 'black_box',
      seed: spec.seed,
    } satisfies Plan,
    'plan_id',
  );
}

/** Builds every file of one plan's bundle. */
export function buildPlanBundle(spec: DemoPlan): BuiltBundle {
  const plan = freezePlan(spec);
  const budget = plan.budget!;
  const store = new ArtifactStore();
  const sims = simulatePlan(spec, budget.per_attempt_micros, budget.timeout_seconds, store);
  const spent = sims.reduce((sum, s) => sum + (s.attempt.cost.micros ?? 0), 0);
  if (spent > budget.aggregate_micros) throw new Error(`demo bug: ${spec.dir} spends ${spent} micros, above the aggregate`);

  // Grading starts a little after the last attempt ended, on a whole minute.
  const lastEnd = Math.max(...sims.map((s) => s.endedDeci));
  const gradedAt = Math.ceil(lastEnd / MINUTE) * MINUTE + 25 * MINUTE;
  const grades = [
    buildGeneration({
      planId: plan.plan_id,
      generation: 1,
      grader: { id: PLAN_GRADER.id, version: PLAN_GRADER.version, executable: PLAN_GRADER.executable },
      createdAtDeci: gradedAt,
      sims,
      rule: firstGenerationRule(spec.grading, spec.seed, sims),
      errorReason: spec.grading.errorReason,
      store,
    }),
  ];
  if (spec.grading.regrade) {
    grades.push(
      buildGeneration({
        planId: plan.plan_id,
        generation: 2,
        grader: REGRADER,
        createdAtDeci: gradedAt + 2 * DAY,
        sims,
        rule: trueVerdict,
        errorReason: '',
        store,
      }),
    );
  }

  const files = new Map<string, Buffer>([
    ['plan.json', prettyJson(plan)],
    ['ledger.jsonl', ledgerBytes()],
    ['attempts.jsonl', jsonlBytes(sims.map((s) => s.attempt))],
    ['environment/tool-policy.json', toolPolicyBytes(spec.toolPolicy)],
    ['NOTES.md', Buffer.from(notesText(plan, spec.story, sims, grades), 'utf8')],
  ]);
  for (const g of grades) files.set(`grades/${g.generation}.json`, prettyJson(g));
  if (spec.grant) {
    const expires = toDeci(plan.created_at) + 7 * DAY;
    if (sims.some((s) => s.startedDeci >= expires)) throw new Error(`demo bug: ${spec.dir} outlives its grant`);
    files.set(
      'grant.json',
      prettyJson({
        schema: 'ledgerboard.grant.v1',
        plan_id: plan.plan_id,
        models: plan.subjects.map((s) => s.model),
        currency: budget.currency,
        aggregate_micros: budget.aggregate_micros,
        per_attempt_micros: budget.per_attempt_micros,
        expires_at: isoSeconds(expires),
      }),
    );
  }
  if (spec.assessments !== undefined) for (const [path, bytes] of assessmentFiles(plan, spec.assessments)) files.set(path, bytes);
  for (const [path, bytes] of store.files) files.set(path, bytes);
  return { dir: spec.dir, plan, files, sims, grades };
}
