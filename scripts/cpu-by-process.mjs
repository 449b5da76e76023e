// Where a test run's CPU time went, by kind of process, from Linux process
// accounting (docs/benchmarks.md, "Where the CPU goes"):
//
//   apt-get install -y acct                  # accton and dump-acct (root only)
//   touch /tmp/pacct && accton /tmp/pacct
//   CI=true npx vitest run --reporter=dot
//   accton off
//   node scripts/cpu-by-process.mjs /tmp/pacct
//
// The kernel writes one record per process when it exits: its name (the
// name of a thread, for a process of several), parent, user and system time
// and elapsed time. vitest's `time` counts only the children it waits for;
// the accounting counts every process, Chromium's included. The script
// classes each record:
//
// - the test runner: the node process with the most node children (vitest's
//   main process, which forks one process per test file);
// - test files: its node children (each file's imports, tests and hooks run
//   in its process, in-process site builds included);
// - node started by tests: node processes under a test file (the CLI, a
//   build, an installed package, verify.mjs), directly or through a shell;
// - Chromium: a process named like Chromium or one of its threads, and
//   everything under it;
// - anything else, by name (openssl, esbuild, git...).
//
// It prints a Markdown table. It reads the accounting file through
// dump-acct, or dump-acct's text from standard input when the file is `-`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** dump-acct's times are in clock ticks; Linux's accounting uses AHZ = 100. */
const TICKS_PER_S = 100;
/** The fields dump-acct prints after the process's name (version to start time). */
const FIELDS_AFTER_NAME = 14;

/** Names a Chromium process carries in its record (the process or one of its threads). */
const CHROMIUM = /^(chromium|chrome|chrome_crashpad|HangWatcher|ThreadPool\w*|PerfettoTrace|MemoryInfra|Thread<\d+>|ANGLE-\w*|VizCompositorTh|CrShutdownDetec|DevToolsPipeHan|sandbox_ipc_thr|dconf worker|Chrome_\w*|inotify_reader|Compositor|CompositorTileW|GpuWatchdog|VizWebView)$/;

/** Shells a test may start a node process through. */
const SHELLS = new Set(['sh', 'bash', 'dash']);

/**
 * Parses dump-acct's output: `comm|version|utime|stime|etime|uid|gid|mem|io|pid|ppid|flags|exitcode|tty|start`.
 * @param {string} text
 * @returns {{ comm: string, cpu: number, elapsed: number, pid: number, ppid: number }[]}
 */
export function parseDumpAcct(text) {
  const records = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    // A process may name itself with a `|`: the 14 fields after the name are counted from the end.
    const parts = line.split('|');
    const f = [parts.slice(0, parts.length - FIELDS_AFTER_NAME).join('|'), ...parts.slice(parts.length - FIELDS_AFTER_NAME)].map((s) => s.trim());
    const [utime, stime, etime, pid, ppid] = [f[2], f[3], f[4], f[9], f[10]].map((v) => (v === undefined || v === '' ? NaN : Number(v)));
    if (parts.length < FIELDS_AFTER_NAME + 1 || ![utime, stime, etime, pid, ppid].every(Number.isFinite)) {
      throw new Error(`line ${i + 1}: not a dump-acct record: ${JSON.stringify(line.slice(0, 80))}`);
    }
    records.push({ comm: f[0], cpu: (utime + stime) / TICKS_PER_S, elapsed: etime / TICKS_PER_S, pid, ppid });
  }
  return records;
}

/**
 * Classes each record (see the head of this file) and sums the CPU seconds per class.
 * A pid can recur in a long accounting file; a record's parent is taken as the latest record of that pid before it
 * exited, which is how the kernel writes them (a child exits, and is written, before its parent).
 * @param {ReturnType<typeof parseDumpAcct>} records
 * @returns {{ total: number, classes: { name: string, processes: number, cpu: number }[], runner: number | null }}
 */
export function cpuByProcess(records) {
  // Parents are written after their children: look each parent up among the records that follow.
  const parentOf = new Array(records.length).fill(-1);
  const latest = new Map();
  for (let i = records.length - 1; i >= 0; i--) {
    const p = latest.get(records[i].ppid);
    if (p !== undefined) parentOf[i] = p;
    latest.set(records[i].pid, i);
  }
  const nodeKids = new Map();
  records.forEach((r, i) => {
    const p = parentOf[i];
    if (r.comm === 'node' && p !== -1 && records[p].comm === 'node') nodeKids.set(p, (nodeKids.get(p) ?? 0) + 1);
  });
  let runner = -1;
  for (const [i, n] of nodeKids) if (runner === -1 || n > nodeKids.get(runner) || (n === nodeKids.get(runner) && i < runner)) runner = i;
  const ancestors = function* (i) {
    for (let p = parentOf[i], hops = 0; p !== -1 && hops < 64; p = parentOf[p], hops++) yield p;
  };
  const memo = new Map();
  const classOf = (i) => {
    if (memo.has(i)) return memo.get(i);
    const r = records[i];
    let name;
    if (i === runner) name = 'test runner (vitest)';
    else if (CHROMIUM.test(r.comm) || [...ancestors(i)].some((a) => CHROMIUM.test(records[a].comm))) name = 'Chromium';
    else if (r.comm === 'node' && parentOf[i] === runner && runner !== -1) name = 'test files (one vitest process each)';
    else if (r.comm === 'node' && runner !== -1 && [...ancestors(i)].some((a) => parentOf[a] === runner && records[a].comm === 'node' && a !== runner)) {
      name = 'node started by tests (CLI, builds, verify.mjs)';
    } else if (r.comm === 'node') name = 'other node';
    else if (SHELLS.has(r.comm)) name = 'shells';
    else name = r.comm;
    memo.set(i, name);
    return name;
  };
  const sums = new Map();
  records.forEach((r, i) => {
    const name = classOf(i);
    const s = sums.get(name) ?? { name, processes: 0, cpu: 0 };
    s.processes++;
    s.cpu += r.cpu;
    sums.set(name, s);
  });
  const classes = [...sums.values()].sort((a, b) => b.cpu - a.cpu || (a.name < b.name ? -1 : 1));
  return { total: records.reduce((s, r) => s + r.cpu, 0), classes, runner: runner === -1 ? null : records[runner].elapsed };
}

/** The table printed: classes of at least `min` CPU seconds, the rest summed in one row. */
export function formatTable(result, min = 5) {
  const lines = ['| processes | count | CPU s | share |', '|---|---:|---:|---:|'];
  const share = (cpu) => `${((100 * cpu) / result.total).toFixed(1)}%`;
  const big = result.classes.filter((c) => c.cpu >= min);
  const rest = result.classes.filter((c) => c.cpu < min);
  for (const c of big) lines.push(`| ${c.name} | ${c.processes} | ${c.cpu.toFixed(1)} | ${share(c.cpu)} |`);
  if (rest.length > 0) {
    const cpu = rest.reduce((s, c) => s + c.cpu, 0);
    lines.push(`| ${rest.length} other names | ${rest.reduce((s, c) => s + c.processes, 0)} | ${cpu.toFixed(1)} | ${share(cpu)} |`);
  }
  lines.push(`| **all** | ${result.classes.reduce((s, c) => s + c.processes, 0)} | **${result.total.toFixed(1)}** | 100% |`);
  if (result.runner !== null) lines.push('', `The test runner lived ${result.runner.toFixed(0)} s: ${(result.total / result.runner).toFixed(2)} cores busy on average.`);
  return lines.join('\n') + '\n';
}

function main(argv) {
  if (argv.length !== 1 || argv[0] === '--help' || argv[0] === '-h') {
    process.stderr.write('usage: node scripts/cpu-by-process.mjs <accounting file written by accton | - for dump-acct output on stdin>\n');
    process.exit(argv[0] === '--help' || argv[0] === '-h' ? 0 : 2);
  }
  let text;
  if (argv[0] === '-') text = readFileSync(0, 'utf8');
  else {
    try {
      text = execFileSync('dump-acct', [argv[0]], { encoding: 'utf8', maxBuffer: 1 << 30 });
    } catch (error) {
      const missing = error.code === 'ENOENT';
      process.stderr.write(`cpu-by-process: ${missing ? 'dump-acct not found (apt-get install -y acct)' : `dump-acct ${argv[0]} failed: ${error.message}`}\n`);
      process.exit(1);
    }
  }
  process.stdout.write(formatTable(cpuByProcess(parseDumpAcct(text))));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
