/**
 * Two small example bundles that do not verify, and the README that says what
 * each demonstrates: invalid/ (a typo'd plan member and a redispatched slot)
 * and no_verdict/ (artifacts that were never copied).
 */
import { jsonlBytes, prettyJson, withSelfId } from '../../src/evidence/seal.ts';
import { digestBytes, digestHex } from '../../src/json/canonical.ts';
import type { Grades } from '../../src/schema/index.ts';
import { ArtifactStore } from './artifacts.ts';
import { buildGeneration, firstGenerationRule } from './grading.ts';
import { ledgerBytes, patchText } from './ledger.ts';
import { environmentFor, HARNESS, PLAN_GRADER, TIMEOUT_SECONDS } from './setup.ts';
import { simulatePlan, type SimAttempt } from './simulate.ts';
import type { PlanSpec } from './spec.ts';
import { BASE, MINI } from './subjects.ts';
import { TASKS } from './tasks.ts';
import { isoTenths, MINUTE } from './time.ts';

/** An example bundle: files to seal, and files to delete from disk after sealing. */
export interface ExampleBundle {
  dir: string;
  planId: string;
  files: Map<string, Buffer>;
  removeAfterSealing: string[];
  /** The finding codes verification must report, sorted. */
  expectedCodes: string[];
  /** Markdown bullets for the README. */
  explanation: string[];
}

const SMOKE_TASKS = TASKS.slice(0, 4);
const AGGREGATE = 2_000_000;

function smokeSpec(seed: number): PlanSpec {
  return {
    dir: '',
    title: '',
    createdAt: '2026-09-20T08:00:00Z',
    seed,
    toolPolicy: 'standard',
    subjects: [
      { def: BASE, skill: 52 },
      { def: MINI, skill: 72 },
    ],
    attempts: 1,
    tasks: SMOKE_TASKS,
    grading: { errorRate: 0, errorReason: '' },
    grant: false,
  };
}

/** The smoke plan; `extra` members are added after `attempts` (where a typo would sit). */
function smokePlan(spec: PlanSpec, title: string, extra: Record<string, unknown>): Record<string, unknown> {
  const ledger = ledgerBytes(SMOKE_TASKS);
  const dispatches = SMOKE_TASKS.length * spec.subjects.length * spec.attempts;
  return withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title,
      created_at: spec.createdAt,
      ledger: { name: 'widget-bugs-smoke', digest: digestBytes(ledger), tasks: SMOKE_TASKS.length },
      environment: environmentFor('standard'),
      harness: { ...HARNESS },
      grader: { ...PLAN_GRADER },
      subjects: spec.subjects.map((s) => structuredClone(s.def.subject)),
      attempts: spec.attempts,
      ...extra,
      budget: { currency: 'USD', aggregate_micros: AGGREGATE, per_attempt_micros: Math.floor(AGGREGATE / dispatches), timeout_seconds: TIMEOUT_SECONDS },
      access_tier: 'black_box',
      seed: spec.seed,
    },
    'plan_id',
  );
}

function grade(planId: string, spec: PlanSpec, sims: readonly SimAttempt[], store: ArtifactStore): Grades {
  const lastEnd = Math.max(...sims.map((s) => s.endedDeci));
  return buildGeneration({
    planId,
    generation: 1,
    grader: { id: PLAN_GRADER.id, version: PLAN_GRADER.version, executable: PLAN_GRADER.executable },
    createdAtDeci: Math.ceil(lastEnd / MINUTE) * MINUTE + 10 * MINUTE,
    sims,
    rule: firstGenerationRule(spec.grading, spec.seed, sims),
    errorReason: '',
    store,
  });
}

function bundleFiles(plan: Record<string, unknown>, sims: readonly SimAttempt[], grades: Grades, notes: string, store: ArtifactStore): Map<string, Buffer> {
  const files = new Map<string, Buffer>([
    ['plan.json', prettyJson(plan)],
    ['ledger.jsonl', ledgerBytes(SMOKE_TASKS)],
    ['attempts.jsonl', jsonlBytes(sims.map((s) => s.attempt))],
    ['grades/1.json', prettyJson(grades)],
    ['NOTES.md', Buffer.from(notes, 'utf8')],
  ]);
  for (const [path, bytes] of store.files) files.set(path, bytes);
  return files;
}

function find(sims: readonly SimAttempt[], subject: number, task: string): SimAttempt {
  const sim = sims.find((s) => s.subjectIndex === subject && s.task.id === task);
  if (!sim || sim.attempt.outcome !== 'completed' || sim.task.kind !== 'repair') throw new Error(`demo bug: no completed repair attempt for ${task}`);
  return sim;
}

/** invalid/: plan.json has "replicas" (UNKNOWN_MEMBER) and one slot is dispatched twice (DUPLICATE_SLOT). */
export function buildInvalidExample(): ExampleBundle {
  const spec = smokeSpec(23);
  const plan = smokePlan(spec, 'widget-bugs smoke test, three replicas intended', { replicas: 3 });
  const store = new ArtifactStore();
  const sims = simulatePlan(spec, (plan.budget as { per_attempt_micros: number }).per_attempt_micros, TIMEOUT_SECONDS, store);
  // A worker restarted and the harness dispatched one slot again; both records were kept.
  const first = find(sims, 1, 'widget-0002');
  const restart = first.endedDeci + 3 * MINUTE;
  const ended = restart + (first.endedDeci - first.startedDeci);
  const redispatch: SimAttempt = {
    ...first,
    attempt: { ...first.attempt, attempt_id: `a-${String(sims.length + 1).padStart(6, '0')}`, started_at: isoTenths(restart), ended_at: isoTenths(ended) },
    startedDeci: restart,
    endedDeci: ended,
  };
  const all = [...sims, redispatch];
  const grades = grade(plan.plan_id as string, spec, all, store);
  const notes = [
    '# Smoke test with a typo',
    '',
    'The operator meant three replicas per task, wrote `"replicas": 3` instead of `"attempts": 3`, and a worker restart made the harness dispatch one slot twice.',
    '',
    '- Expected findings: `UNKNOWN_MEMBER`, `DUPLICATE_SLOT`',
    '- See [the format](https://example.com/ledgerboard/format) for the rules.',
    '',
  ].join('\n');
  return {
    dir: 'invalid',
    planId: plan.plan_id as string,
    files: bundleFiles(plan, all, grades, notes, store),
    removeAfterSealing: [],
    expectedCodes: ['DUPLICATE_SLOT', 'UNKNOWN_MEMBER'],
    explanation: [
      '`plan.json` holds `"replicas": 3` next to `"attempts": 1`, a typo the strict plan schema refuses: **`UNKNOWN_MEMBER`** (plan.json). It is never read as three attempts; the plan id still re-derives, because the typo is part of what was frozen.',
      `Attempt \`${redispatch.attempt.attempt_id}\` fills the slot (widget-0002, \`${MINI.subject.model}\`, index 1) that \`${first.attempt.attempt_id}\` already filled: a redispatch, **\`DUPLICATE_SLOT\`** (attempts.jsonl, line ${all.length}).`,
      'Both are errors, so the status is `invalid`: the bundle enters no cohort, and the site shows it with its findings.',
    ],
  };
}

/** no_verdict/: one patch listed but never copied (MISSING_FILE), one patch never listed at all (MISSING_ARTIFACT). */
export function buildNoVerdictExample(): ExampleBundle {
  const spec = smokeSpec(29);
  const plan = smokePlan(spec, 'widget-bugs smoke test, artifacts partly uploaded', {});
  const store = new ArtifactStore();
  const sims = simulatePlan(spec, (plan.budget as { per_attempt_micros: number }).per_attempt_micros, TIMEOUT_SECONDS, store);
  // Both patches were exported with git format-patch headers, so each is unique to its attempt.
  const [lost, unlisted] = [find(sims, 0, 'widget-0001'), find(sims, 1, 'widget-0002')];
  const formatPatch = (sim: SimAttempt): string =>
    `From ${sim.attempt.attempt_id} Mon Sep 17 00:00:00 2001\nSubject: [PATCH] ${sim.task.title}\n\n${patchText(sim.task, 'fix')}`;
  lost.attempt.patch = lost.graderInput = store.put('patches', 'diff', formatPatch(lost));
  unlisted.attempt.patch = unlisted.graderInput = digestBytes(formatPatch(unlisted));
  const grades = grade(plan.plan_id as string, spec, sims, store);
  const lostPath = `artifacts/patches/${digestHex(lost.attempt.patch)}.diff`;
  const line = (sim: SimAttempt): number => sims.indexOf(sim) + 1;
  const notes = [
    '# Smoke test, partly uploaded',
    '',
    "The artifact upload was interrupted: one patch the manifest lists never reached the bundle, and one patch was never listed at all.",
    '',
    '- Expected findings: `MISSING_FILE`, `MISSING_ARTIFACT`',
    '',
  ].join('\n');
  return {
    dir: 'no_verdict',
    planId: plan.plan_id as string,
    files: bundleFiles(plan, sims, grades, notes, store),
    removeAfterSealing: [lostPath],
    expectedCodes: ['MISSING_ARTIFACT', 'MISSING_ARTIFACT', 'MISSING_ARTIFACT', 'MISSING_ARTIFACT', 'MISSING_FILE'],
    explanation: [
      `\`${lostPath}\` is listed in the manifest but absent: **\`MISSING_FILE\`**. It is the patch of attempt \`${lost.attempt.attempt_id}\` (attempts.jsonl, line ${line(lost)}) and the grader input of its result, so each reference is also **\`MISSING_ARTIFACT\`** (attempts.jsonl and grades/1.json).`,
      `Attempt \`${unlisted.attempt.attempt_id}\` (attempts.jsonl, line ${line(unlisted)}) names patch \`${unlisted.attempt.patch}\`, which no file of the bundle holds: **\`MISSING_ARTIFACT\`**, once for the attempt and once for its grade input.`,
      'Findings: `MISSING_FILE` once, `MISSING_ARTIFACT` four times, nothing else. Only missing inputs, so the status is `no_verdict`, not `invalid`: a missing decision is never a pass.',
    ],
  };
}

/** content/examples/README.md. */
export function examplesReadme(examples: readonly ExampleBundle[]): string {
  return [
    '# Example bundles that do not verify',
    '',
    'Two small bundles (ledger widget-bugs-smoke: 4 tasks, 2 subjects, 1 attempt each) showing what',
    '`ledgerboard verify` reports for broken evidence. They are written by `npx tsx scripts/make-demo.ts`',
    'and checked by `test/demo.test.ts`; do not edit them by hand (the manifests would no longer match).',
    '',
    ...examples.flatMap((e) => [`## ${e.dir}/ (status \`${e.dir}\`)`, '', `Plan \`${e.planId}\`.`, '', ...e.explanation.map((x) => `- ${x}`), '']),
  ].join('\n');
}
