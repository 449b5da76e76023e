/**
 * Synthetic but valid evidence bundles at scale, for the benchmark. Built with
 * the project's own writing APIs (withSelfId, digestBytes, jsonlBytes,
 * writeBundle), deterministically from a seed: the same size and seed give
 * the same bundle_id on every run and machine.
 *
 * Shape: 2 subjects (candidate, baseline) x 5 attempts per task, so N
 * attempts need ceil(N / 10) tasks; when N is not a multiple of 10 the last
 * slots stay empty (UNACCOUNTED_SLOT warnings, still verified). Every
 * attempt is in the matrix, after the freeze, within the ceiling; completed
 * attempts carry a patch artifact and a grade in grades/1.json.
 */
import { digestBytes } from '../../src/json/canonical.ts';
import { jsonlBytes, prettyJson, withSelfId, writeBundle } from '../../src/evidence/seal.ts';
import { Prng } from './prng.ts';
import { iso, pad, textArtifact } from './text.ts';

/** What was generated. */
export interface GeneratedBundle {
  dir: string;
  attempts: number;
  tasks: number;
  files: number;
  /** Total bytes of every file including manifest.json. */
  bytes: number;
  attemptsBytes: number;
  gradesBytes: number;
  bundleId: string;
}

const SUBJECTS_PER_PLAN = 2;
const ATTEMPTS_PER_SLOT = 5;
const PER_ATTEMPT_MICROS = 500_000;
const PLAN_CREATED = Date.UTC(2026, 8, 14, 12, 0, 0);
const LEDGER_CREATED = '2026-09-14T00:00:00Z';
const PATCHES = 8;
const GRADER_FILES = 4;

const OUTCOMES = [
  ['completed', 80],
  ['model_failure', 6],
  ['timeout', 4],
  ['harness_failure', 3],
  ['environment_failure', 3],
  ['safety_failure', 1],
  ['invalid_case', 1],
  ['cancelled', 2],
] as const;
const COST_STATES = [
  ['complete', 70],
  ['partial', 10],
  ['unavailable', 10],
  ['not_applicable', 5],
  ['zero', 5],
] as const;
const VERDICTS = [
  ['pass', 55],
  ['fail', 40],
  ['error', 5],
] as const;

/** Writes one bundle with `attempts` attempt records into `dir`. */
export async function generateBundle(dir: string, attempts: number, seed: number): Promise<GeneratedBundle> {
  const prng = new Prng(seed ^ attempts);
  const perTask = SUBJECTS_PER_PLAN * ATTEMPTS_PER_SLOT;
  const taskCount = Math.max(1, Math.ceil(attempts / perTask));
  const files = new Map<string, Uint8Array>();

  // Artifacts: a few patches and grader inputs/outputs/receipts, referenced by digest.
  const patchDigests: string[] = [];
  for (let i = 1; i <= PATCHES; i++) {
    const bytes = textArtifact(prng, `patch ${i}`, 2048 + prng.int(4096));
    files.set(`artifacts/patches/p-${pad(i, 2)}.diff`, bytes);
    patchDigests.push(digestBytes(bytes));
  }
  const graderDigests: Record<'input' | 'output' | 'receipt', string[]> = { input: [], output: [], receipt: [] };
  for (const kind of ['input', 'output', 'receipt'] as const) {
    for (let i = 1; i <= GRADER_FILES; i++) {
      const bytes = textArtifact(prng, `grader ${kind} ${i}`, 1024 + prng.int(2048));
      files.set(`artifacts/grader/${kind}-${i}.txt`, bytes);
      graderDigests[kind].push(digestBytes(bytes));
    }
  }
  files.set('NOTES.md', Buffer.from(`# Benchmark bundle\n\nSynthetic evidence: ${attempts} attempts over ${taskCount} tasks.\n`, 'utf8'));

  // The ledger.
  const tasks = [];
  for (let t = 1; t <= taskCount; t++) {
    const qa = prng.int(10) === 0;
    tasks.push({
      task_id: `task-${pad(t, 6)}`,
      repo: qa ? null : `https://example.com/org/widget-${prng.int(40)}.git`,
      base_sha: qa ? null : prng.hex(40),
      prompt_sha256: prng.digest(),
      failing_tests: qa ? null : [`tests/test_${prng.hex(6)}.py::test_${prng.hex(8)}`],
      failing_assertion: qa ? null : `assert queue.drain(${prng.int(100)}) == []`,
      oracle_sha256: qa ? null : prng.digest(),
      license: prng.pick(['MIT', 'Apache-2.0', 'BSD-3-Clause']),
      difficulty: qa ? null : prng.pick(['A', 'B', 'C']),
      holdout: prng.int(4) !== 0,
      cluster_id: `cluster-${pad(Math.floor((t - 1) / 3), 5)}`,
      created_at: LEDGER_CREATED,
    });
  }
  const ledgerBytes = jsonlBytes(tasks);
  files.set('ledger.jsonl', ledgerBytes);

  // The plan.
  const agent = { name: 'loop', version: '3.1.0' };
  const subjects = [
    { selector: ':mini', model: 'acme/mini-2026-08-01', agent, role: 'candidate' },
    { selector: 'acme/base-2025-01-01', model: 'acme/base-2025-01-01', agent, role: 'baseline' },
  ] as const;
  const dispatches = taskCount * SUBJECTS_PER_PLAN * ATTEMPTS_PER_SLOT;
  const grader = { id: 'oracle', version: '1.2.0', executable: prng.digest() };
  const plan = withSelfId(
    {
      schema: 'ledgerboard.plan.v1',
      plan_id: '',
      title: `benchmark: ${attempts} attempts`,
      created_at: iso(PLAN_CREATED),
      ledger: { name: 'bench-ledger', digest: digestBytes(ledgerBytes), tasks: taskCount },
      environment: {
        tool_policy: prng.digest(),
        wiki: [{ path: 'docs/guide.md', sha256: prng.digest() }],
        isolation: 'isolated-git-objects; same-user host; no container',
        session_topology: 'single-session',
      },
      harness: { name: 'ledgerboard-bench', version: '1.0.0', commit: prng.hex(40) },
      grader: { profile: 'pytest-oracle', ...grader },
      subjects,
      attempts: ATTEMPTS_PER_SLOT,
      budget: {
        currency: 'USD',
        aggregate_micros: dispatches * PER_ATTEMPT_MICROS + prng.int(dispatches),
        per_attempt_micros: PER_ATTEMPT_MICROS,
        timeout_seconds: 1800,
      },
      access_tier: 'black_box',
      seed: seed,
    },
    'plan_id',
  );
  files.set('plan.json', prettyJson(plan));

  // Attempts and their grades, in matrix order (task, subject, index).
  const records = [];
  const results = [];
  let lastStart = PLAN_CREATED;
  for (let n = 0; n < attempts; n++) {
    const task = tasks[Math.floor(n / perTask)]!;
    const subject = subjects[Math.floor(n / ATTEMPTS_PER_SLOT) % SUBJECTS_PER_PLAN]!;
    const outcome = prng.weighted(OUTCOMES);
    const started = PLAN_CREATED + 60_000 + n * 7_000 + prng.int(5_000);
    const wallMs = 1_000 + prng.int(1_800_000);
    lastStart = Math.max(lastStart, started);
    const state = prng.weighted(COST_STATES);
    const micros = state === 'complete' || state === 'partial' ? prng.int(PER_ATTEMPT_MICROS + 1) : state === 'zero' ? 0 : null;
    const attemptId = `a-${pad(n + 1, 7)}`;
    records.push({
      attempt_id: attemptId,
      task_id: task.task_id,
      model: subject.model,
      agent: subject.agent,
      index: (n % ATTEMPTS_PER_SLOT) + 1,
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
    if (outcome === 'completed') {
      results.push({
        attempt_id: attemptId,
        verdict: prng.weighted(VERDICTS),
        input: prng.pick(graderDigests.input),
        output: prng.pick(graderDigests.output),
        receipt: prng.pick(graderDigests.receipt),
      });
    }
  }
  const attemptsBytes = jsonlBytes(records);
  files.set('attempts.jsonl', attemptsBytes);
  const gradesBytes = prettyJson({
    schema: 'ledgerboard.grades.v1',
    generation: 1,
    created_at: iso(lastStart + 3 * 3_600_000),
    grader,
    results,
  });
  files.set('grades/1.json', gradesBytes);
  files.set(
    'grant.json',
    prettyJson({
      schema: 'ledgerboard.grant.v1',
      plan_id: plan.plan_id,
      models: subjects.map((s) => s.model),
      currency: plan.budget.currency,
      aggregate_micros: plan.budget.aggregate_micros,
      per_attempt_micros: plan.budget.per_attempt_micros,
      expires_at: iso(lastStart + 24 * 3_600_000),
    }),
  );

  const manifest = await writeBundle(dir, files, plan.plan_id);
  let bytes = manifest.length;
  for (const content of files.values()) bytes += content.length;
  const bundleId = (JSON.parse(manifest.toString('utf8')) as { bundle_id: string }).bundle_id;
  return {
    dir,
    attempts,
    tasks: taskCount,
    files: files.size + 1,
    bytes,
    attemptsBytes: attemptsBytes.length,
    gradesBytes: gradesBytes.length,
    bundleId,
  };
}
