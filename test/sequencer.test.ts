/**
 * The suite's start order (test/sequencer.ts) and the times it comes from
 * (scripts/test-times.mjs --durations): the longest files first, unknown
 * files before them, the same order whatever order vitest found them in.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDurations, longestFirst } from './sequencer.ts';
import { makeTempDir, removeTempDirs } from './helpers/bundle-builder.ts';

const ROOT = join(import.meta.dirname, '..');
afterAll(removeTempDirs);

describe('longestFirst', () => {
  const durations = new Map([
    ['a.test.ts', 5],
    ['b.test.ts', 50],
    ['c.test.ts', 5],
  ]);
  it('starts unknown files first, then the longest, ties by name, whatever the order given', () => {
    const names = ['c.test.ts', 'new.test.ts', 'a.test.ts', 'b.test.ts', 'another.test.ts'];
    const expected = ['another.test.ts', 'new.test.ts', 'b.test.ts', 'a.test.ts', 'c.test.ts'];
    expect(longestFirst(names, (n) => n, durations)).toEqual(expected);
    expect(longestFirst([...names].reverse(), (n) => n, durations)).toEqual(expected);
  });
});

describe('test/durations.json', () => {
  it('is read with numbers only, and puts the page walk before a unit file', async () => {
    const dir = await makeTempDir();
    const file = join(dir, 'durations.json');
    await writeFile(file, JSON.stringify({ files: { 'x.test.ts': 3, 'y.test.ts': 'slow', 'z.test.ts': null } }));
    expect([...loadDurations(file)]).toEqual([['x.test.ts', 3]]);
    const committed = loadDurations();
    const order = longestFirst(['test/json/canonical.test.ts', 'test/browser/demo-pages.browser.test.ts'], (n) => n, committed);
    expect(order[0]).toBe('test/browser/demo-pages.browser.test.ts');
  });

  it('is what scripts/test-times.mjs --durations writes from a run: each file\'s set-up, import and tests with hooks', async () => {
    const dir = await makeTempDir();
    const run = join(dir, 'run.json');
    await writeFile(run, JSON.stringify({ wall_s: 10, files: [
      { file: 'test/b.test.ts', tests: 1, state: 'passed', setup_s: 0.1, collect_s: 0.5, run_s: 2.04, start_s: 0, end_s: 3 },
      { file: 'test/a.test.ts', tests: 2, state: 'passed', setup_s: 0, collect_s: 1, run_s: 7, start_s: 1, end_s: 9 },
    ] }));
    const out = join(dir, 'durations.json');
    await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'test-times.mjs'), run, '--durations', out]);
    const written = JSON.parse(await readFile(out, 'utf8')) as { files: Record<string, number> };
    expect(written.files).toEqual({ 'test/a.test.ts': 8, 'test/b.test.ts': 2.6 });
    const table = await promisify(execFile)(process.execPath, [join(ROOT, 'scripts', 'test-times.mjs'), run, '5']);
    expect(table.stdout).toContain('| `test/a.test.ts` | 8.0 | 1.0 | 7.0 | 2 | 75.2% |');
    expect(table.stdout).toContain("2 files, 3 tests. The files' times sum to 11 s (set-up 0 s, import 2 s, tests and hooks 9 s); the run took 10 s of wall time, 1.06 files at once on average.");
  });
});
