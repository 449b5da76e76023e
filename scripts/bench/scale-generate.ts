/**
 * Synthetic but valid evidence for the scale benchmark (docs/benchmarks.md,
 * "Scale"): N attempts split over several bundles that share one ledger, the
 * shape of a real leaderboard rather than one giant bundle.
 *
 * Shape, for `bundles` bundles (default 10) and N attempts:
 * - one ledger of T = round(N / (bundles x 4 subjects x 3 attempts)) tasks
 *   (8,333 at 1e6), clusters of three, about 3/4 holdout, 1 in 10 a
 *   question-answer task with null repository facts;
 * - one plan per bundle, frozen a day apart, all on the same board (same
 *   ledger, environment, harness, budget share and grader), so the cohorts
 *   pool across bundles and the baseline has a drift series;
 * - four subjects: a baseline and three candidates, two of which share a
 *   model with different agent versions (a subject is model + agent);
 * - 3 attempts per slot, every slot filled (N is rounded to whole slots:
 *   the real count is reported), in matrix order, some timestamps with a
 *   millisecond fraction;
 * - grades/1.json with the plan's grader for every completed attempt, and in
 *   the first bundle a regrade, grades/2.json, by grader 1.3.0 over the
 *   completed attempts of the first third of the tasks;
 * - grant.json in every bundle; patches and grader files under artifacts/,
 *   referenced by digest; NOTES.md.
 *
 * Deterministic: a seeded PRNG, no clock reads. Every bundle must verify.
 */
import { join } from 'node:path';
import { digestBytes } from '../../src/json/canonical.ts';
import { jsonlBytes, prettyJson, withSelfId, writeBundle } from '../../src/evidence/seal.ts';
import { Prng } from './prng.ts';
import { iso, pad, textArtifact } from './text.ts';

/** What was generated. */
export interface ScaleEvidence {
  /** The directory holding the bundles (one sub-directory each). */
  dir: string;
  /** Attempts over all bundles (N rounded to whole slots). */
  attempts: number;
  requested: number;
  bundles: number;
  tasks: number;
  subjects: number;
  attemptsPerSlot: number;
  /** Files over all bundles, manifests included. */
  files: number;
  bytes: number;
  /** attempts.jsonl bytes over all bundles. */
  attemptsBytes: number;
  /** grades/*.json bytes over all bundles. */
  gradesBytes: number;
  bundleIds: string[];
}

const ATTEMPTS_PER_SLOT = 3;
const PER_ATTEMPT_MICROS = 400_000;
const FIRST_PLAN = Date.UTC(2026, 8, 14, 12, 0, 0);
const DAY = 86_400_000;
const LEDGER_CREATED = '2026-09-01T00:00:00Z';
const PATCHES = 8;
const GRADER_FILES = 4;

const AGENT_31 = { name: 'loop', version: '3.1.0' };
const AGENT_32 = { name: 'loop', version: '3.2.0' };
const SUBJECTS = [
  { selector: 'acme/base-2025-01-01', model: 'acme/base-2025-01-01', agent: AGENT_31, role: 'baseline' },
  { selector: ':mini', model: 'acme/mini-2026-08-01', agent: AGENT_31, role: 'candidate' },
  { selector: ':mini+loop-3.2', model: 'acme/mini-2026-08-01', agent: AGENT_32, role: 'candidate' },
  { selector: 'zeta/large-2026-07-15', model: 'zeta/large-2026-07-15', agent: AGENT_31, role: 'candidate' },
] as const;
/** Chance that a completed attempt passes, per subject (baseline first). */
const PASS_RATE = [0.45, 0.55, 0.58, 0.5];

const OUTCOMES = [
  ['completed', 85],
  ['model_failure', 5],
  ['timeout', 3],
  ['harness_failure', 2],
  ['environment_failure', 2],
  ['safety_failure', 1],
  ['invalid_case', 1],
  ['cancelled', 1],
] as const;
const COST_STATES = [
  ['complete', 80],
  ['partial', 6],
  ['unavailable', 8],
  ['not_applicable', 3],
  ['zero', 3],
] as const;

/**
 * Another shape than the default (site scale, docs/benchmarks.md (k)): this
 * many subjects (a baseline and candidates of distinct models), attempts per
 * slot in each bundle, and tasks. Absent: the default four subjects, three
 * attempts per slot, and tasks from N.
 */
export interface ScaleShape {
  subjects: number;
  attemptsPerSlot: number;
  tasks: number;
  /** The first bundle's regrade (grades/2.json by another grader version); false: none, so every cohort is on one board. */
  regrade: boolean;
}

/** `n` subjects: the default four, or a baseline and n - 1 candidates, each its own model, with pass rates spread over 0.40-0.60. */
function subjectsOf(shape: ScaleShape | undefined): { subjects: readonly (typeof SUBJECTS)[number][] | Subject[]; passRate: number[] } {
  if (shape === undefined) return { subjects: SUBJECTS, passRate: PASS_RATE };
  const subjects: Subject[] = [];
  const passRate: number[] = [];
  for (let i = 0; i < shape.subjects; i++) {
    const model = i === 0 ? 'acme/base-2025-01-01' : `lab-${pad(i, 2)}/model-2026-08-01`;
    subjects.push({ selector: model, model, agent: AGENT_31, role: i === 0 ? 'baseline' : 'candidate' });
    passRate.push(0.4 + (0.2 * i) / Math.max(1, shape.subjects - 1));
  }
  return { subjects, passRate };
}

type Subject = { selector: string; model: string; agent: { name: string; version: string }; role: 'baseline' | 'candidate' };

/** The number of tasks for N attempts over `bundles` bundles (at least 1). */
export function scaleTasks(attempts: number, bundles: number): number {
  return Math.max(1, Math.round(attempts / (bundles * SUBJECTS.length * ATTEMPTS_PER_SLOT)));
}

/** Writes the bundles for about `requested` attempts under `dir` (dir/bundle-01, ...). */
export async function generateScaleEvidence(
  dir: string,
  requested: number,
  seed: number,
  bundles = 10,
  onBundle?: (done: number, total: number) => void,
  shape?: ScaleShape,
): Promise<ScaleEvidence> {
  const taskCount = shape?.tasks ?? scaleTasks(requested, bundles);
  const { subjects: SUBJECTS_USED, passRate: PASS_USED } = subjectsOf(shape);
  const ATTEMPTS_USED = shape?.attemptsPerSlot ?? ATTEMPTS_PER_SLOT;
  const shared = new Prng(seed ^ 0x5ca1e);

  // What every plan shares: the ledger, the environment, the harness, the grader.
  const tasks = [];
  const difficulty: number[] = [];
  for (let t = 1; t <= taskCount; t++) {
    const qa = shared.int(10) === 0;
    difficulty.push(shared.float() * 0.5 - 0.25);
    tasks.push({
      task_id: `task-${pad(t, 6)}`,
      repo: qa ? null : `https://example.com/org/widget-${shared.int(60)}.git`,
      base_sha: qa ? null : shared.hex(40),
      prompt_sha256: shared.digest(),
      failing_tests: qa ? null : [`tests/test_${shared.hex(6)}.py::test_${shared.hex(8)}`],
      failing_assertion: qa ? null : `assert queue.drain(${shared.int(100)}) == []`,
      oracle_sha256: qa ? null : shared.digest(),
      license: shared.pick(['MIT', 'Apache-2.0', 'BSD-3-Clause']),
      difficulty: qa ? null : shared.pick(['A', 'B', 'C']),
      holdout: shared.int(4) !== 0,
      cluster_id: `cluster-${pad(Math.floor((t - 1) / 3), 5)}`,
      created_at: LEDGER_CREATED,
    });
  }
  const ledgerBytes = jsonlBytes(tasks);
  const environment = {
    tool_policy: shared.digest(),
    wiki: [{ path: 'docs/guide.md', sha256: shared.digest() }],
    isolation: 'isolated-git-objects; same-user host; no container',
    session_topology: 'single-session',
  };
  const harness = { name: 'ledgerboard-bench', version: '1.0.0', commit: shared.hex(40) };
  const grader = { id: 'oracle', version: '1.2.0', executable: shared.digest() };
  const regrader = { id: 'oracle', version: '1.3.0', executable: shared.digest() };
  const dispatches = taskCount * SUBJECTS_USED.length * ATTEMPTS_USED;

  const result: ScaleEvidence = {
    dir,
    attempts: 0,
    requested,
    bundles,
    tasks: taskCount,
    subjects: SUBJECTS_USED.length,
    attemptsPerSlot: ATTEMPTS_USED,
    files: 0,
    bytes: 0,
    attemptsBytes: 0,
    gradesBytes: 0,
    bundleIds: [],
  };

  for (let b = 0; b < bundles; b++) {
    const prng = new Prng(seed ^ Math.imul(b + 1, 0x9e3779b1) ^ requested);
    const files = new Map<string, Uint8Array>();
    const patchDigests: string[] = [];
    for (let i = 1; i <= PATCHES; i++) {
      const bytes = textArtifact(prng, `bundle ${b + 1} patch ${i}`, 2048 + prng.int(4096));
      files.set(`artifacts/patches/p-${pad(i, 2)}.diff`, bytes);
      patchDigests.push(digestBytes(bytes));
    }
    const graderDigests: Record<'input' | 'output' | 'receipt', string[]> = { input: [], output: [], receipt: [] };
    for (const kind of ['input', 'output', 'receipt'] as const) {
      for (let i = 1; i <= GRADER_FILES; i++) {
        const bytes = textArtifact(prng, `bundle ${b + 1} grader ${kind} ${i}`, 1024 + prng.int(2048));
        files.set(`artifacts/grader/${kind}-${i}.txt`, bytes);
        graderDigests[kind].push(digestBytes(bytes));
      }
    }
    files.set('ledger.jsonl', ledgerBytes);
    const created = FIRST_PLAN + b * DAY;
    const plan = withSelfId(
      {
        schema: 'ledgerboard.plan.v1',
        plan_id: '',
        title: `scale benchmark, run ${b + 1} of ${bundles}`,
        created_at: iso(created),
        ledger: { name: 'scale-ledger', digest: digestBytes(ledgerBytes), tasks: taskCount },
        environment,
        harness,
        grader: { profile: 'pytest-oracle', ...grader },
        subjects: SUBJECTS_USED,
        attempts: ATTEMPTS_USED,
        budget: {
          currency: 'USD',
          // Any aggregate in [dispatches x share, dispatches x (share + 1)) gives the same share, so every plan is on one board.
          aggregate_micros: dispatches * PER_ATTEMPT_MICROS + prng.int(dispatches),
          per_attempt_micros: PER_ATTEMPT_MICROS,
          timeout_seconds: 1800,
        },
        access_tier: 'black_box',
        seed: seed + b,
      },
      'plan_id',
    );
    files.set('plan.json', prettyJson(plan));

    const records = [];
    const results = [];
    const regrades = [];
    let lastStart = created;
    let n = 0;
    for (let t = 0; t < taskCount; t++) {
      const task = tasks[t]!;
      for (let s = 0; s < SUBJECTS_USED.length; s++) {
        const subject = SUBJECTS_USED[s]!;
        for (let index = 1; index <= ATTEMPTS_USED; index++, n++) {
          const outcome = prng.weighted(OUTCOMES);
          // About 12 dispatches in flight: starts 0.5 s apart on average, some with a millisecond fraction.
          const started = created + 60_000 + n * 500 + (prng.int(4) === 0 ? prng.int(500) : 0);
          const wallMs = 1_000 + prng.int(1_800_000);
          lastStart = Math.max(lastStart, started);
          const state = prng.weighted(COST_STATES);
          const micros = state === 'complete' || state === 'partial' ? prng.int(PER_ATTEMPT_MICROS + 1) : state === 'zero' ? 0 : null;
          const attemptId = `r${pad(b + 1, 2)}-a-${pad(n + 1, 7)}`;
          records.push({
            attempt_id: attemptId,
            task_id: task.task_id,
            model: subject.model,
            agent: subject.agent,
            index,
            observed_model: subject.model,
            outcome,
            started_at: iso(started),
            ended_at: iso(started + wallMs),
            wall_seconds: Math.round(wallMs / 100) / 10,
            tokens: prng.int(10) === 0 ? null : { input: prng.int(200_000), output: prng.int(20_000) },
            retries: prng.int(10) === 0 ? 1 + prng.int(3) : 0,
            cost: { state, micros },
            patch: outcome === 'completed' ? prng.pick(patchDigests) : null,
          });
          if (outcome !== 'completed') continue;
          const passes = prng.float() < PASS_USED[s]! + difficulty[t]!;
          const verdict = prng.int(50) === 0 ? 'error' : passes ? 'pass' : 'fail';
          const grade = {
            attempt_id: attemptId,
            verdict,
            input: prng.pick(graderDigests.input),
            output: prng.pick(graderDigests.output),
            receipt: prng.pick(graderDigests.receipt),
          };
          results.push(grade);
          if (b === 0 && t < taskCount / 3 && shape?.regrade !== false) {
            regrades.push({ ...grade, verdict: verdict === 'error' ? (passes ? 'pass' : 'fail') : verdict, output: prng.pick(graderDigests.output) });
          }
        }
      }
    }
    const attemptsBytes = jsonlBytes(records);
    files.set('attempts.jsonl', attemptsBytes);
    const grades1 = prettyJson({ schema: 'ledgerboard.grades.v1', generation: 1, created_at: iso(lastStart + 3 * 3_600_000), grader, results });
    files.set('grades/1.json', grades1);
    let gradesBytes = grades1.length;
    if (regrades.length > 0) {
      const grades2 = prettyJson({ schema: 'ledgerboard.grades.v1', generation: 2, created_at: iso(lastStart + 30 * DAY), grader: regrader, results: regrades });
      files.set('grades/2.json', grades2);
      gradesBytes += grades2.length;
    }
    files.set(
      'grant.json',
      prettyJson({
        schema: 'ledgerboard.grant.v1',
        plan_id: plan.plan_id,
        models: [...new Set(SUBJECTS_USED.map((s) => s.model))],
        currency: plan.budget.currency,
        aggregate_micros: plan.budget.aggregate_micros,
        per_attempt_micros: plan.budget.per_attempt_micros,
        expires_at: iso(lastStart + 2 * DAY),
      }),
    );
    files.set(
      'NOTES.md',
      Buffer.from(`# Scale benchmark, run ${b + 1} of ${bundles}\n\nSynthetic evidence: ${records.length} attempts over ${taskCount} tasks.\n`, 'utf8'),
    );

    const manifest = await writeBundle(join(dir, `bundle-${pad(b + 1, 2)}`), files, plan.plan_id);
    result.attempts += records.length;
    result.files += files.size + 1;
    result.bytes += manifest.length;
    for (const content of files.values()) result.bytes += content.length;
    result.attemptsBytes += attemptsBytes.length;
    result.gradesBytes += gradesBytes;
    result.bundleIds.push((JSON.parse(manifest.toString('utf8')) as { bundle_id: string }).bundle_id);
    onBundle?.(b + 1, bundles);
  }
  return result;
}
