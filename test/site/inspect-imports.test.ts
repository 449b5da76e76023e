/**
 * Issue 15 on the site: imported Inspect logs as a reader sees them. A log
 * with no usable grades is not a ranked 0.0%; imported plans are dated by
 * their run's start, never "frozen"; a board of several imported runs (the
 * models of one eval_set, started in the same second) says which runs it
 * compares; a plan page shows the log's own metric beside the imported rate.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { header, jsonLog, sample } from '../import/helpers.ts';
import { makeTempDir, removeTempDirs } from '../helpers/bundle-builder.ts';
import { runCli } from '../helpers/cli.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let out = '';
let bundles = '';

afterAll(removeTempDirs);

/** An eval_set's run of one model: same tasks, harness, scorer and start second as the others. */
function setRun(model: string, values: string[]): Buffer {
  const h = header({}, { model, dataset: { name: 'set', sample_ids: values.map((_, i) => i + 1) } });
  return jsonLog(values.map((v, i) => sample(i + 1, 1, { output: { model, choices: [] }, model_usage: {}, scores: { match: { value: v } } })), h);
}

beforeAll(async () => {
  const work = await makeTempDir();
  const logs = join(work, 'logs');
  bundles = join(work, 'bundles');
  await mkdir(logs, { recursive: true });
  await cp(join(root, 'content', 'imported', 'logs', 'log_tool_call_error.json'), join(logs, 'no-grades.json'));
  await cp(join(root, 'test', 'fixtures', 'inspect-vitals', 'simple-addition.trimmed.json'), join(logs, 'vitals.json'));
  await writeFile(join(logs, 'set-a.json'), setRun('acme/alpha', ['C', 'C', 'I']));
  await writeFile(join(logs, 'set-b.json'), setRun('acme/beta', ['C', 'I', 'I']));
  const imported = await runCli(['import', 'inspect', ...['no-grades.json', 'vitals.json', 'set-a.json', 'set-b.json'].map((f) => join(logs, f)), '-o', bundles, '--license', 'MIT']);
  expect(imported.code, imported.stdout + imported.stderr).toBe(0);
  await writeFile(join(work, 'ledgerboard.config.json'), JSON.stringify({ title: 't', site_url: 'https://board.example/', bundles_dir: 'bundles' }));
  out = join(work, 'out');
  await promisify(execFile)(process.execPath, [join(root, 'bin', 'ledgerboard.mjs'), 'build', '--config', join(work, 'ledgerboard.config.json'), '--out', out], {
    cwd: work,
    env: { ...process.env, TZ: 'UTC', NO_COLOR: '1', ASTRO_TELEMETRY_DISABLED: '1' },
    maxBuffer: 1 << 26,
  });
}, 300_000);

async function pages(dir: string): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const name of await readdir(join(out, dir))) {
    try {
      map.set(name, await readFile(join(out, dir, name, 'index.html'), 'utf8'));
    } catch {
      // a .json file beside the pages
    }
  }
  return map;
}

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('imported Inspect logs on the site', () => {
  it('a log with no usable grades: "no usable grades", no rate and no rank, on the leaderboard, its board and its cohort', async () => {
    const index = text(await readFile(join(out, 'index.html'), 'utf8'));
    expect(index).toContain('no usable grades (not a measured 0%)');
    const boards = [...(await pages('boards')).values()].filter((h) => h.includes('no usable grades'));
    expect(boards).toHaveLength(1);
    expect(boards[0]).toContain('data-no-usable-grades title="not ranked: no usable grades">-</td>');
    // Neither the table nor the charts draw it as 0.0%.
    expect(text(boards[0]!)).not.toMatch(/0\.0%/);
    expect(text(boards[0]!)).toContain('1. ... · ... 0.3.58.dev9002: no usable grades');
    const cohorts = [...(await pages('cohorts')).values()].filter((h) => h.includes('data-no-usable-grades'));
    expect(cohorts).toHaveLength(1);
    expect(text(cohorts[0]!)).toContain("No usable grades: none of this cohort's 1 attempts completed with a pass or fail grade");
  });

  it('imported plans are dated by their run start, never "frozen"', async () => {
    for (const [, html] of await pages('cohorts')) {
      expect(text(html)).toMatch(/imported, run started \d{4}-/);
      expect(text(html)).not.toMatch(/, frozen \d{4}-/);
    }
  });

  it('the two models of one eval_set share a board that lists the runs compared; a single run says so', async () => {
    const boards = [...(await pages('boards')).values()];
    const set = boards.filter((h) => h.includes('acme-model') === false && text(h).includes('2 imported runs share this board'));
    expect(set).toHaveLength(1);
    const list = set[0]!.match(/<ul data-compared-runs>([\s\S]*?)<\/ul>/)![1]!;
    expect((list.match(/<li>/g) ?? []).length).toBe(2);
    expect(text(list)).toContain('acme/alpha');
    expect(text(list)).toContain('acme/beta');
    expect(text(list)).toContain('run started 2026-02-01T09:00:00Z');
    expect(boards.filter((h) => text(h).includes('One imported run: nothing else is ranked against it.'))).toHaveLength(2);
  });

  it("the plan page shows the log's own metric beside the imported rate (R vitals: accuracy 100, imported 100.0%)", async () => {
    const plans = [...(await pages('plans')).values()].filter((h) => h.includes('data-log-metrics'));
    const vitals = plans.find((h) => h.includes('model_graded_qa() (claude-sonnet-4-5-20250929)'))!;
    expect(vitals).toBeDefined();
    expect(text(vitals.match(/<span data-log-metrics>([\s\S]*?)<\/span>\./)![1]!)).toBe('accuracy 100');
    expect(text(vitals)).toContain('headline 100.0% (2/2 resolved)');
    // The eval_set runs record no metrics ({}): said, not invented.
    expect([...(await pages('plans')).values()].filter((h) => text(h).includes('The log records no metrics for the graded score.'))).toHaveLength(2);
  });
});
