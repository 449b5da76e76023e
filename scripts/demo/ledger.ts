/** The widget-bugs ledger records and the artifacts a task's attempts produce (patches, answers). */
import { jsonlBytes } from '../../src/evidence/seal.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import type { LedgerRecord } from '../../src/schema/index.ts';
import { fakeSha1 } from './random.ts';
import { TASKS, type TaskSpec } from './tasks.ts';

/** The ledger's name in every plan that pins it. */
export const LEDGER_NAME = 'widget-bugs';

/** The prompt an agent receives for a task (its digest is the ledger's prompt_sha256). */
export function promptText(task: TaskSpec): string {
  if (task.kind === 'question') return `Answer in one line, with no explanation.\n\n${task.question}\n`;
  return [
    `Repository ${task.repo} at ${fakeSha1(`${task.id}/base`)}.`,
    `The test ${task.test} fails:`,
    '',
    `    ${task.assertion}`,
    '',
    `Issue: ${task.title}.`,
    'Fix the code, not the test, so that the whole suite passes. Reply with a unified diff.',
    '',
  ].join('\n');
}

/** One ledger line for a task. */
export function ledgerRecord(task: TaskSpec): LedgerRecord {
  const repair = task.kind === 'repair';
  return {
    task_id: task.id,
    repo: repair ? task.repo : null,
    base_sha: repair ? fakeSha1(`${task.id}/base`) : null,
    prompt_sha256: digestBytes(promptText(task)),
    failing_tests: repair ? [task.test] : null,
    failing_assertion: repair ? task.assertion : null,
    oracle_sha256: repair ? digestBytes(`oracle ${task.id}: run ${task.test} on the patched tree; expect it and the suite to pass\n`) : null,
    license: task.license,
    difficulty: task.difficulty,
    holdout: task.holdout,
    cluster_id: task.cluster,
    created_at: task.createdAt,
  };
}

/** ledger.jsonl bytes for some tasks (the full widget-bugs ledger by default). */
export function ledgerBytes(tasks: readonly TaskSpec[] = TASKS): Buffer {
  return jsonlBytes(tasks.map(ledgerRecord));
}

/** A unified diff: the task's correct fix, or its plausible-but-wrong variant. */
export function patchText(task: TaskSpec, variant: 'fix' | 'wrong'): string {
  if (task.kind !== 'repair') throw new Error(`${task.id} is a question, it has no patch`);
  const added = task[variant];
  return [
    `diff --git a/${task.file} b/${task.file}`,
    `index ${fakeSha1(`${task.id}/old`).slice(0, 7)}..${fakeSha1(`${task.id}/${variant}`).slice(0, 7)} 100644`,
    `--- a/${task.file}`,
    `+++ b/${task.file}`,
    `@@ -${task.line},${task.old.length + 1} +${task.line},${added.length + 1} @@`,
    ` ${task.context}`,
    ...task.old.map((l) => `-${l}`),
    ...added.map((l) => `+${l}`),
    '',
  ].join('\n');
}

/** A question-answer task's answer as the agent gave it. */
export function answerText(task: TaskSpec, correct: boolean): string {
  if (task.kind !== 'question') throw new Error(`${task.id} is a repair task, it has no answer`);
  return `${correct ? task.answer : task.wrongAnswer}\n`;
}
