/**
 * scripts/cpu-by-process.mjs: a test run's CPU time by kind of process, from
 * Linux process accounting (docs/benchmarks.md, "Where the CPU goes"). The
 * records below are dump-acct's lines as the kernel writes them: a child
 * exits, and is written, before its parent; times in clock ticks (100 a
 * second).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cpuByProcess, formatTable, parseDumpAcct } from '../scripts/cpu-by-process.mjs';

const SCRIPT = fileURLToPath(new URL('../scripts/cpu-by-process.mjs', import.meta.url));

/** One dump-acct line: name, user and system ticks, elapsed ticks, pid, parent. */
function line(comm: string, utime: number, stime: number, etime: number, pid: number, ppid: number): string {
  return `${comm.padEnd(16)}|v3|${utime.toFixed(2).padStart(9)}|${stime.toFixed(2).padStart(9)}|${etime.toFixed(2).padStart(9)}|     0|     0|  2476.00|     0.00|${String(pid).padStart(8)}|${String(ppid).padStart(8)}|     |       0|__      |Thu Dec  3 10:58:41 2026`;
}

// npx (pid 9) starts vitest (10), which forks a process per test file (11, 12). File 11 runs the CLI through a shell
// (20 > 21) and openssl (40); file 12 runs node directly (22) and Chromium (30, its renderers 31 and 32, the second
// with a thread name the script does not know). pid 50 is used twice: a shell's child, then a file's git.
const DUMP = [
  line('node', 300, 50, 400, 21, 20),
  line('sh', 0, 1, 401, 20, 11),
  line('openssl', 10, 2, 20, 40, 11),
  line('grep', 1, 0, 2, 50, 20),
  line('node', 100, 20, 150, 22, 12),
  line('chromium', 500, 100, 900, 31, 30),
  line('NewThreadName', 40, 10, 900, 32, 30),
  line('HangWatcher', 200, 60, 950, 30, 12),
  line('git', 2, 1, 3, 50, 12),
  line('node', 800, 100, 1000, 11, 10),
  line('node', 400, 50, 1000, 12, 10),
  line('node', 30, 5, 1200, 10, 9),
  line('node', 20, 3, 1210, 9, 1),
].join('\n');

describe('cpu-by-process', () => {
  it('classes each process: the runner, the test files, node under a file (through a shell too), Chromium and what it started, the rest by name', () => {
    const result = cpuByProcess(parseDumpAcct(DUMP));
    const byName = Object.fromEntries(result.classes.map((c) => [c.name, [c.processes, Number(c.cpu.toFixed(2))]]));
    expect(byName).toEqual({
      'test files (one vitest process each)': [2, 13.5],
      'node started by tests (CLI, builds, verify.mjs)': [2, 4.7],
      Chromium: [3, 9.1],
      'test runner (vitest)': [1, 0.35],
      'other node': [1, 0.23],
      openssl: [1, 0.12],
      git: [1, 0.03],
      shells: [1, 0.01],
      grep: [1, 0.01],
    });
    expect(result.total).toBeCloseTo(28.05, 6);
    expect(result.runner).toBe(12);
    // Largest first.
    expect(result.classes.map((c) => c.cpu)).toEqual([...result.classes.map((c) => c.cpu)].sort((a, b) => b - a));
  });

  it('prints a Markdown table, small classes summed in one row, and how many cores were busy', () => {
    const table = formatTable(cpuByProcess(parseDumpAcct(DUMP)), 1);
    expect(table.split('\n').slice(0, 6)).toEqual([
      '| processes | count | CPU s | share |',
      '|---|---:|---:|---:|',
      '| test files (one vitest process each) | 2 | 13.5 | 48.1% |',
      '| Chromium | 3 | 9.1 | 32.4% |',
      '| node started by tests (CLI, builds, verify.mjs) | 2 | 4.7 | 16.8% |',
      '| 6 other names | 6 | 0.8 | 2.7% |',
    ]);
    expect(table).toContain('| **all** | 13 | **28.1** | 100% |');
    expect(table).toContain('The test runner lived 12 s: 2.34 cores busy on average.');
  });

  it('refuses a line that is not a dump-acct record, naming it', () => {
    expect(() => parseDumpAcct(`${line('node', 1, 1, 1, 2, 1)}\nnode|v3|x`)).toThrow(/^line 2: not a dump-acct record: "node\|v3\|x"$/);
    expect(() => parseDumpAcct(line('node', 1, 1, 1, 2, 1).replace('|       2|', '|     two|'))).toThrow(/^line 1: /);
  });

  it('keeps a name that has a `|` in it whole, counting the other fields from the end', () => {
    expect(parseDumpAcct(line('a|b', 250, 50, 400, 7, 3))).toEqual([{ comm: 'a|b', cpu: 3, elapsed: 4, pid: 7, ppid: 3 }]);
  });

  it('runs on dump-acct output from standard input, and says how to use it', () => {
    const out = execFileSync(process.execPath, [SCRIPT, '-'], { input: DUMP, encoding: 'utf8' });
    expect(out).toContain('| Chromium | 3 | 9.1 | 32.4% |');
    expect(() => execFileSync(process.execPath, [SCRIPT], { stdio: 'pipe' })).toThrow(/usage: node scripts\/cpu-by-process\.mjs/);
  });
});
