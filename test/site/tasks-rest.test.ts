/**
 * Task pages with more than DETAIL_ROWS attempts of a cohort on a task (the
 * product decision of issue 28 item 5): per cohort exactly min(10, n)
 * detailed rows, a strip of n marks whose text equivalent names every
 * attempt, the summary figures, the count not shown, and links to the
 * published attempts.jsonl whose named lines are exactly those attempts.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import type { Report } from '../../src/report/schema.ts';
import { publishedOf, type Published } from '../../src/site/build/publish.ts';
import { siteTasks, type TaskDetails } from '../../src/site/model/tasks.ts';
import { lineRanges, stripHtml, taskPageData } from '../../src/site/model/attempt-rows.ts';
import { attemptIndexOf, DETAIL_ROWS, evidenceOf, type AttemptIndex } from '../../src/facts/attempt-index.ts';
import { removeTempDirs, writeModel } from '../helpers/bundle-builder.ts';
import { manyAttemptsModel } from '../helpers/many-attempts.ts';
import type { Attempt } from '../../src/schema/index.ts';
import { afterAll } from 'vitest';

const PER_TASK = 13;
let report: Report;
let published: Published;
let index: AttemptIndex;
let details: TaskDetails;

beforeAll(async () => {
  const model = manyAttemptsModel(PER_TASK, { prefix: 'r', varied: true });
  const dir = await writeModel(model);
  const read = await verifyPaths([dir]);
  expect(read.map((r) => r.verification.status), JSON.stringify(read[0]!.verification.findings.slice(0, 3))).toEqual(['verified']);
  report = buildReport(read, Config.parse({}));
  published = publishedOf(report, read);
  index = attemptIndexOf(report, evidenceOf(read));
  ({ details } = await siteTasks(report, published, index));
}, 120_000);

afterAll(removeTempDirs);

describe('a task page past DETAIL_ROWS attempts of a cohort', () => {
  it('names line ranges compactly and bounds them', () => {
    expect(lineRanges([3, 4, 5, 9, 12, 13])).toBe('3-5, 9, 12-13');
    expect(lineRanges([1, 3, 5, 7], 2)).toBe('1, 3, and 2 more lines after line 3');
    expect(stripHtml('')).toBe('');
  });

  it('shows min(10, n) rows, n marks, the summary, the count not shown, and links whose lines are exactly the others', async () => {
    expect(DETAIL_ROWS).toBe(10);
    let checked = 0;
    for (let p = 0; p < details.pages.length; p++) {
      const detail = await details.detail(p);
      const data = taskPageData(detail, () => 'USD');
      for (let i = 0; i < detail.cohorts.length; i++) {
        const c = detail.cohorts[i]!;
        if (c.total === 0) continue;
        expect(c.total).toBe(PER_TASK);
        const [rows, strip, rest] = [data.html[3 * i]!, data.html[3 * i + 1]!, data.html[3 * i + 2]!];
        expect(rows.match(/<tr /g)!.length).toBe(10);
        expect(data.cohorts[i]!.shown).toBe(10);
        expect(data.cohorts[i]!.notShown).toBe(3);
        // The strip: one mark per attempt, each with its class's letter; its text equivalent counts every attempt.
        const marks = [...strip.slice(0, strip.indexOf('</p>')).matchAll(/<b class="o(\d)">([A-Z])<\/b>/g)];
        expect(strip).toContain(`data-marks="${PER_TASK}"`);
        const label = /aria-label="([^"]*)"/.exec(strip)![1]!;
        const runs = [...label.slice(label.indexOf("in attempt order: ")).matchAll(/(\d+) ([a-z_]+)/g)];
        expect(runs.reduce((s, r) => s + Number(r[1]), 0)).toBe(PER_TASK);
        expect(marks.length).toBe(PER_TASK);
        expect(marks.map((m) => m[1]).join('')).toBe(c.strip);
        // The summary row's figures are the cell's.
        const s = c.summary;
        expect(s.classes.reduce((a, b) => a + b, 0)).toBe(PER_TASK);
        expect(data.cohorts[i]!.summary.classes).toMatch(/^\d+ [a-z_]+/);
        if (s.cost.unavailable > 0) expect(data.cohorts[i]!.summary.cost).toMatch(/^>= USD [\d.,]+ \(\d+ unavailable\)$/);
        expect(data.cohorts[i]!.summary.wall).toMatch(/^\d+\.\ds$/);
        // "Attempts 11-13 ... (3 not shown here)", and the blob's named lines hold exactly those attempts.
        expect(rest).toContain('Attempts 11-13 of this cohort on this task (3 not shown here)');
        expect(rest).toContain('data-not-shown="3"');
        const link = /<a href="(\/blobs\/[0-9a-f]{64})" data-rest-lines="([\d ]+)"/.exec(rest)!;
        const lines = link[2]!.split(' ').map(Number);
        expect(lines).toHaveLength(3);
        const hex = link[1]!.slice('/blobs/'.length);
        const bytes = await published.blob(`sha256:${hex}`);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(hex);
        const jsonl = Buffer.from(bytes).toString('utf8').split('\n');
        const named = lines.map((l) => JSON.parse(jsonl[l - 1]!) as Attempt);
        const page = details.pages[p]!;
        const shown = new Set(c.attempts.map((a) => a.attempt_id));
        for (const a of named) {
          expect(taskKeyOf(a.task_id)).toBe(page.key);
          expect(shown.has(a.attempt_id)).toBe(false);
        }
        // Shown and named: every attempt of the cohort on the task, once.
        expect(new Set([...shown, ...named.map((a) => a.attempt_id)]).size).toBe(PER_TASK);
        // In attempt order: the named ones are the last three indices.
        expect(named.map((a) => a.index).sort((x, y) => x - y)).toEqual([11, 12, 13]);
        checked++;
      }
    }
    expect(checked).toBe(6);
  });
});

function taskKeyOf(id: string): string {
  return createHash('sha256').update(Buffer.from(id, 'utf8')).digest('hex');
}
