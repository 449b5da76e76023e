#!/usr/bin/env node
// A toy harness for the worked example of docs/harness-authors.md. It shows
// what a real harness writes into a bundle directory after `ledgerboard
// freeze`, using nothing but Node's standard library:
//
//   node harness.mjs run <bundle-dir>     one attempt per slot of the plan's matrix:
//                                         attempts.jsonl + artifacts/patches/
//   node harness.mjs grade <bundle-dir>   grading generation 1 with the plan's grader:
//                                         grades/1.json + artifacts/grader/
//
// It reads only the frozen plan.json and ledger.jsonl (never the YAML): the
// exact models, the attempt count and the per-attempt ceiling are the plan's.
// Nothing here calls a model: outcomes come from a hash, so every run writes
// the same bytes. A real harness dispatches real attempts at this point.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [command, dir] = process.argv.slice(2);
if ((command !== 'run' && command !== 'grade') || dir === undefined) {
  console.error('usage: node harness.mjs (run|grade) <bundle-dir>');
  process.exit(2);
}

const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
const tasks = readFileSync(join(dir, 'ledger.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((line) => JSON.parse(line));

/** SHA-256 of bytes, in the format's `sha256:<hex>` form. */
const digest = (bytes) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A number in [0, n) from the seed and some words: the toy's stand-in for a model's luck. */
const draw = (n, ...words) => createHash('sha256').update([plan.seed, ...words].join('\u0000')).digest().readUInt32BE(0) % n;

/** Writes a content-addressed artifact (once) and returns its digest. */
function artifact(kind, ext, text) {
  const bytes = Buffer.from(text, 'utf8');
  const sha256 = digest(bytes);
  const path = join(dir, 'artifacts', kind, `${sha256.slice(7)}.${ext}`);
  mkdirSync(join(dir, 'artifacts', kind), { recursive: true });
  if (!existsSync(path)) writeFileSync(path, bytes, { flag: 'wx' });
  return sha256;
}

/** Seconds after the freeze as an RFC 3339 UTC timestamp (attempts start after the plan was frozen). */
const at = (seconds) => new Date(Date.parse(plan.created_at) + seconds * 1000).toISOString().replace('.000Z', 'Z');

/** Writes a new file; an existing one is never overwritten (evidence is append-only). */
function create(path, text) {
  writeFileSync(path, text, { flag: 'wx' });
}

if (command === 'run') {
  const attempts = [];
  let clock = 300; // The first attempt starts five minutes after the freeze; attempts run one after another.
  for (const task of tasks) {
    for (const subject of plan.subjects) {
      for (let index = 1; index <= plan.attempts; index++) {
        const wall = 240 + draw(600, 'wall', task.task_id, subject.model, index);
        const input = 30000 + draw(20000, 'in', task.task_id, subject.model, index);
        const output = 2000 + draw(3000, 'out', task.task_id, subject.model, index);
        const micros = Math.min(plan.budget.per_attempt_micros, input + 4 * output); // Never above the ceiling.
        const patch = artifact('patches', 'diff', `--- a/${task.failing_tests?.[0] ?? task.task_id}\n+++ b/${task.failing_tests?.[0] ?? task.task_id}\n@@ attempt ${index} by ${subject.model} @@\n`);
        attempts.push({
          attempt_id: `a-${String(attempts.length + 1).padStart(6, '0')}`,
          task_id: task.task_id,
          model: subject.model,
          agent: subject.agent,
          index,
          observed_model: subject.model, // What the execution reported about itself: must be the planned model.
          outcome: 'completed',
          started_at: at(clock),
          ended_at: at(clock + wall),
          wall_seconds: wall,
          tokens: { input, output },
          retries: 0,
          cost: { state: 'complete', micros },
          patch,
        });
        clock += wall + 60;
      }
    }
  }
  create(join(dir, 'attempts.jsonl'), attempts.map((a) => `${JSON.stringify(a)}\n`).join(''));
  console.log(`wrote ${attempts.length} attempts to ${join(dir, 'attempts.jsonl')}`);
}

if (command === 'grade') {
  const attempts = readFileSync(join(dir, 'attempts.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  const results = attempts.map((attempt) => {
    // The toy oracle: the candidate passes more often than the baseline.
    const role = plan.subjects.find((s) => s.model === attempt.model && s.agent.name === attempt.agent.name && s.agent.version === attempt.agent.version).role;
    const verdict = draw(100, 'verdict', attempt.attempt_id) < (role === 'candidate' ? 80 : 30) ? 'pass' : 'fail';
    const output = artifact('grader', 'log', `${attempt.task_id} ${attempt.attempt_id}: ${verdict === 'pass' ? '1 passed' : '1 failed'}\n`);
    const receipt = artifact('grader', 'json', `${JSON.stringify({ attempt_id: attempt.attempt_id, grader: plan.grader.id, version: plan.grader.version, verdict })}\n`);
    return { attempt_id: attempt.attempt_id, verdict, input: attempt.patch, output, receipt };
  });
  const lastEnd = Math.max(...attempts.map((a) => Date.parse(a.ended_at)));
  const grades = {
    schema: 'ledgerboard.grades.v1',
    generation: 1,
    created_at: new Date(Math.ceil(lastEnd / 3600000) * 3600000).toISOString().replace('.000Z', 'Z'),
    grader: { id: plan.grader.id, version: plan.grader.version, executable: plan.grader.executable },
    results,
  };
  mkdirSync(join(dir, 'grades'), { recursive: true });
  create(join(dir, 'grades', '1.json'), `${JSON.stringify(grades, null, 2)}\n`);
  console.log(`wrote ${results.length} results to ${join(dir, 'grades', '1.json')}`);
}
