/**
 * Child process of the scale benchmark: runs the pipeline of `ledgerboard
 * report` over one directory of bundles (verifyPaths, then buildReport with
 * the default config; then the canonical JSON the CLI prints with --json) and
 * prints one JSON line with the time of each stage, every bundle's status,
 * the report's id and process.resourceUsage().maxRSS: the peak RSS of the
 * whole pipeline, this process's alone. `--idle` loads the same modules and
 * does nothing: the baseline RSS of a tsx process. More than one DIR: all of
 * them, in order. SCALE_CACHE=DIR runs with that verification cache and
 * report cache (src/pipeline/verify-cache.ts, src/run/report-cache.ts) as
 * the pipeline does (src/run/pipeline.ts); SCALE_WORKERS=n with n worker
 * threads.
 *
 * Like hash-child.ts it must be started through `sh -c '"$@"; exit $?'`: on
 * Linux ru_maxrss survives fork + execve, so a child spawned directly by the
 * (big) benchmark process would report the parent's RSS.
 *
 *   node --import tsx scripts/bench/scale-child.ts [--idle] DIR [DIR...]
 */
import { readFile } from 'node:fs/promises';
import { Config } from '../../src/config/config.ts';
import { canonicalJson } from '../../src/json/canonical.ts';
import { verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { readCachedReport, reportKey, writeCachedReport } from '../../src/run/report-cache.ts';

/** What the child prints. */
export interface ScaleChildReport {
  idle: boolean;
  verifyMs: number;
  /** Bundles whose verification came from the cache (SCALE_CACHE). */
  cached: number;
  /** The report came from the report cache (SCALE_CACHE). */
  reportCached: boolean;
  analysisMs: number;
  jsonMs: number;
  /** User + system CPU time of verify + analysis (all threads of the process), ms. */
  cpuMs: number;
  /** When verify started, when analysis started and ended (ms since the process started, as --trace-gc counts). */
  marks: number[];
  statuses: string[];
  attempts: number;
  findings: number;
  counted: number;
  cohorts: number;
  boards: number;
  reportId: string | null;
  reportBytes: number;
  maxRssKiB: number;
  vmHwmKiB: number | null;
}

const args = process.argv.slice(2);
const idle = args[0] === '--idle';
const dirs = idle ? args.slice(1) : args;
if (dirs.length === 0) {
  console.error('usage: scale-child.ts [--idle] DIR [DIR...]');
  process.exit(2);
}
const out: ScaleChildReport = {
  idle,
  verifyMs: 0,
  cached: 0,
  reportCached: false,
  analysisMs: 0,
  jsonMs: 0,
  cpuMs: 0,
  marks: [],
  statuses: [],
  attempts: 0,
  findings: 0,
  counted: 0,
  cohorts: 0,
  boards: 0,
  reportId: null,
  reportBytes: 0,
  maxRssKiB: 0,
  vmHwmKiB: null,
};
if (!idle) {
  const config = Config.parse({});
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  // SCALE_WORKERS=n: that many worker threads (default: verifyPaths' own choice); for experiments.
  const workers = process.env['SCALE_WORKERS'];
  const cacheDir = process.env['SCALE_CACHE'];
  // A fixed secret: the bench's cache is its own scratch directory.
  const cache = cacheDir === undefined ? undefined : { dir: cacheDir, secret: Buffer.alloc(32, 0x42) };
  const results = await verifyPaths(dirs, undefined, { ...(workers === undefined ? {} : { workers: Number(workers) }), cache });
  const t1 = performance.now();
  // With a cache, the report as the pipeline makes it (src/run/pipeline.ts): a kept report for the same inputs.
  let report;
  if (cache === undefined) {
    report = buildReport(results, config);
  } else {
    const key = reportKey(results, config);
    report = await readCachedReport(cache, key);
    out.reportCached = report !== null;
    if (report === null) {
      report = buildReport(results, config);
      await writeCachedReport(cache, key, report);
    }
  }
  const t2 = performance.now();
  const used = process.cpuUsage(cpu);
  const json = canonicalJson(report);
  const t3 = performance.now();
  out.verifyMs = t1 - t0;
  out.analysisMs = t2 - t1;
  out.jsonMs = t3 - t2;
  out.cpuMs = (used.user + used.system) / 1000;
  out.marks = [t0, t1, t2];
  out.statuses = results.map((r) => r.verification.status);
  out.cached = results.filter((r) => r.cached === true).length;
  // Counted from the verifier's attempt tables (one row per attempt).
  out.attempts = results.reduce((n, r) => n + (r.verification.evidence.attempts.count), 0);
  out.findings = results.reduce((n, r) => n + r.verification.findings.length, 0);
  out.counted = report.bundles.filter((b) => b.counted).length;
  out.cohorts = report.cohorts.length;
  out.boards = report.boards.length;
  out.reportId = report.report_id;
  out.reportBytes = Buffer.byteLength(json);
}
out.maxRssKiB = process.resourceUsage().maxRSS;
const status = await readFile('/proc/self/status', 'utf8').catch(() => '');
const hwm = /^VmHWM:\s*(\d+)\s*kB/m.exec(status)?.[1];
out.vmHwmKiB = hwm === undefined ? null : Number(hwm);
console.log(JSON.stringify(out));
