/**
 * A bundle of `perTask` attempts of each subject on each task (index
 * outermost, so a task's attempts stand on lines far apart: several line
 * ranges per attempts.jsonl), with mixed outcomes and a grade for every
 * completed attempt: the shape task pages past DETAIL_ROWS attempts need
 * (test/site/tasks-rest.test.ts, test/browser/tasks.browser.test.ts).
 */
import type { Attempt, Grades } from '../../src/schema/index.ts';
import { addArtifact, rebudget, validBundle } from './bundle-builder.ts';

export interface ManyAttemptsOptions {
  /** The attempt ids' prefix (`<prefix>-000001`, ...). */
  prefix: string;
  /** Some attempts' tokens unknown (every 4th) and cost unavailable (every 5th), for the summaries' lower bounds. */
  varied?: boolean;
}

export function manyAttemptsModel(perTask: number, options: ManyAttemptsOptions): ReturnType<typeof validBundle> {
  const model = validBundle();
  model.plan.attempts = perTask;
  const attempts: Attempt[] = [];
  const results: Grades['results'] = [];
  const outcomes: Attempt['outcome'][] = ['completed', 'completed', 'timeout', 'completed', 'cancelled'];
  const varied = options.varied === true;
  let n = 0;
  for (let index = 1; index <= perTask; index++) {
    for (const task of model.ledger) {
      for (const subject of model.plan.subjects) {
        const k = n++;
        const id = `${options.prefix}-${String(k + 1).padStart(6, '0')}`;
        const outcome = outcomes[k % outcomes.length]!;
        attempts.push({
          attempt_id: id,
          task_id: task.task_id,
          model: subject.model,
          agent: { ...subject.agent },
          index,
          observed_model: subject.model,
          outcome,
          started_at: '2026-09-15T08:00:00Z',
          ended_at: '2026-09-15T08:01:00Z',
          wall_seconds: 10 + (k % 7),
          tokens: varied && k % 4 === 3 ? null : { input: 100 + k, output: 10 },
          retries: 0,
          cost: varied && k % 5 === 1 ? { state: 'unavailable', micros: null } : { state: 'complete', micros: 1000 + k },
          patch: null,
        });
        if (outcome === 'completed') results.push({ attempt_id: id, verdict: k % 3 === 0 ? 'pass' : 'fail', input: addArtifact(model, `artifacts/g/${id}/input.json`, `{"i":${k}}\n`), output: addArtifact(model, `artifacts/g/${id}/output.txt`, `o${k}\n`), receipt: addArtifact(model, `artifacts/g/${id}/receipt.json`, `{"r":${k}}\n`) });
      }
    }
  }
  model.attempts = attempts;
  model.grades[0]!.value.results = results;
  rebudget(model);
  return model;
}
