/**
 * The order of a Terminal-Bench run's trials, which both sides need: the
 * write side (map.ts) numbers the attempts by it and the read side
 * (transcript.ts) keys the transcripts by it. Pure, so the read side never
 * loads the writer.
 */
import { compareUtf8 } from '../../json/compare.ts';
import { secondsBetween } from '../time.ts';
import type { Trial } from './normalize.ts';

/**
 * Tasks in byte order; a task's trials by start time, then trial name: the
 * attempt index is the trial's place among its task's trials (what the
 * transcripts are keyed by, transcript.ts).
 */
export function orderTrials(all: readonly Trial[]): { byTask: Map<string, Trial[]>; tasks: string[]; ordered: { trial: Trial; index: number }[] } {
  const byTask = new Map<string, Trial[]>();
  for (const t of all) {
    const list = byTask.get(t.taskId);
    if (list === undefined) byTask.set(t.taskId, [t]);
    else list.push(t);
  }
  const tasks = [...byTask.keys()].sort(compareUtf8);
  const ordered: { trial: Trial; index: number }[] = [];
  for (const task of tasks) {
    const trials = byTask.get(task)!.sort((a, b) => compareStarts(a, b) || compareUtf8(a.trialName, b.trialName));
    trials.forEach((trial, i) => ordered.push({ trial, index: i + 1 }));
  }
  return { byTask, tasks, ordered };
}

function compareStarts(a: Trial, b: Trial): number {
  if (a.startedAt === b.startedAt) return 0;
  if (a.startedAt === null) return 1;
  if (b.startedAt === null) return -1;
  return secondsBetween(b.startedAt, a.startedAt) < 0 ? -1 : secondsBetween(b.startedAt, a.startedAt) > 0 ? 1 : 0;
}
