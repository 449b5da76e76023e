/**
 * (h) The scale suite: verify + analysis over 10^4 to 10^6 attempts split
 * across several bundles (scale-generate.ts), each run in a fresh child
 * process (scale-child.ts) that reports the time of each stage and the peak
 * RSS of the whole pipeline. Targets (issue "Scale"): 10^6 attempts verified
 * and analysed in under 15 s with under 2 GiB peak RSS on the 2-core bench
 * machine, and time per attempt that does not grow with size.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { generateScaleEvidence, type ScaleEvidence } from './scale-generate.ts';
import type { ScaleChildReport } from './scale-child.ts';
import { run, stats, type Stats } from './measure.ts';
import type { Log } from './suites.ts';

/** The targets at 10^6 attempts. */
export const SCALE_TARGETS = { attempts: 1e6, totalMs: 15_000, peakRssMiB: 2048 } as const;

/** One size of the scale suite. */
export interface ScaleResult {
  requested: number;
  attempts: number;
  bundles: number;
  tasks: number;
  subjects: number;
  attemptsPerSlot: number;
  files: number;
  bytes: number;
  generateMs: number;
  runs: number;
  /** verifyPaths over the directory (discover, read, hash, verify every bundle). */
  verify: Stats;
  /** buildReport over the verified bundles with the default config. */
  analysis: Stats;
  /** verify + analysis, per run. */
  total: Stats;
  /** canonicalJson(report), what `report --json` prints (not part of the target). */
  json: Stats;
  /** user + system CPU time of the child, per run (less sensitive to a shared machine than wall time). */
  cpu: Stats;
  /** Max over the runs of the child's ru_maxrss, MiB; VmHWM as a cross-check. */
  peakRssMiB: number;
  peakHwmMiB: number | null;
  /** The same child without running anything (Node + tsx + the modules). */
  idleRssMiB: number;
  /** Median total per attempt, microseconds. */
  usPerAttempt: number;
  /** usPerAttempt over the previous size's; 1.0 is linear growth. Null for the first size. */
  growth: number | null;
  statuses: Record<string, number>;
  findings: number;
  cohorts: number;
  boards: number;
  reportId: string | null;
  /** Every run gave the same report id. */
  deterministic: boolean;
  /** Only for the target size: whether the time and RSS targets were met. */
  target: { totalMs: number; peakRssMiB: number; met: boolean } | null;
}

/** Runs scale-child.ts through a forking shell (the ru_maxrss trap: see hashInChild in suites.ts). */
async function scaleChild(root: string, dir: string, idle: boolean): Promise<ScaleChildReport> {
  const script = join(root, 'scripts', 'bench', 'scale-child.ts');
  const command = [process.execPath, '--import', 'tsx', script, ...(idle ? ['--idle'] : []), dir];
  const result = await run('sh', ['-c', '"$@"; exit $?', 'sh', ...command], root);
  if (result.code !== 0) throw new Error(`scale child exited ${result.code}: ${result.stderr.trim()}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as ScaleChildReport;
}

/** Generates and measures each size in turn; the evidence of a size is removed before the next unless kept. */
export async function benchScale(
  root: string,
  work: string,
  sizes: readonly number[],
  options: { runs: (requested: number) => number; bundles: number; seed: number; keep: boolean },
  log: Log,
  failures: string[],
): Promise<ScaleResult[]> {
  const results: ScaleResult[] = [];
  let idleRssMiB = 0;
  for (const requested of sizes) {
    const dir = join(work, `scale-${requested}`);
    log(`scale: generating ${requested} attempts in ${options.bundles} bundles`);
    const start = performance.now();
    let evidence: ScaleEvidence;
    try {
      evidence = await generateScaleEvidence(dir, requested, options.seed, options.bundles, (done, total) => {
        if (done % 5 === 0 || done === total) log(`  ${done}/${total} bundles written`);
      });
    } catch (error) {
      failures.push(`scale ${requested}: generation failed: ${(error as Error).message}`);
      continue;
    }
    const generateMs = performance.now() - start;
    log(
      `  ${evidence.attempts} attempts, ${evidence.tasks} tasks, ${evidence.files} files, ${(evidence.bytes / 1e6).toFixed(1)} MB in ${(generateMs / 1000).toFixed(1)} s`,
    );
    try {
      if (idleRssMiB === 0) idleRssMiB = (await scaleChild(root, dir, true)).maxRssKiB / 1024;
      const runs = options.runs(requested);
      const reports = [];
      // One check run (also the page-cache warm-up), then the timed runs; every run is checked.
      for (let i = 0; i <= runs; i++) {
        const report = await scaleChild(root, dir, false);
        log(
          `  ${i === 0 ? 'check run' : `run ${i}/${runs}`}: verify ${(report.verifyMs / 1000).toFixed(2)} s, analysis ${(report.analysisMs / 1000).toFixed(2)} s, ` +
            `peak RSS ${(report.maxRssKiB / 1024).toFixed(0)} MiB`,
        );
        const notVerified = report.statuses.filter((s) => s !== 'verified').length;
        if (notVerified > 0 || report.statuses.length !== evidence.bundles) {
          failures.push(`scale ${requested}: ${notVerified} of ${report.statuses.length} bundles not verified (expected ${evidence.bundles} verified)`);
        }
        if (report.attempts !== evidence.attempts) failures.push(`scale ${requested}: the pipeline saw ${report.attempts} attempts, ${evidence.attempts} were written`);
        if (i > 0) reports.push(report);
        else if (notVerified > 0) break;
      }
      if (reports.length === 0) continue;
      const ids = new Set(reports.map((r) => r.reportId));
      if (ids.size !== 1) failures.push(`scale ${requested}: the report id differs between runs (${[...ids].join(', ')})`);
      const total = stats(reports.map((r) => r.verifyMs + r.analysisMs));
      const peakRssMiB = Math.max(...reports.map((r) => r.maxRssKiB)) / 1024;
      const usPerAttempt = (total.median * 1000) / evidence.attempts;
      const previous = results.at(-1);
      const statuses: Record<string, number> = {};
      for (const s of reports[0]!.statuses) statuses[s] = (statuses[s] ?? 0) + 1;
      const atTarget = evidence.requested === SCALE_TARGETS.attempts;
      results.push({
        requested,
        attempts: evidence.attempts,
        bundles: evidence.bundles,
        tasks: evidence.tasks,
        subjects: evidence.subjects,
        attemptsPerSlot: evidence.attemptsPerSlot,
        files: evidence.files,
        bytes: evidence.bytes,
        generateMs,
        runs: reports.length,
        verify: stats(reports.map((r) => r.verifyMs)),
        analysis: stats(reports.map((r) => r.analysisMs)),
        total,
        json: stats(reports.map((r) => r.jsonMs)),
        cpu: stats(reports.map((r) => r.cpuMs)),
        peakRssMiB,
        peakHwmMiB: reports.every((r) => r.vmHwmKiB !== null) ? Math.max(...reports.map((r) => r.vmHwmKiB!)) / 1024 : null,
        idleRssMiB,
        usPerAttempt,
        growth: previous ? usPerAttempt / previous.usPerAttempt : null,
        statuses,
        findings: reports[0]!.findings,
        cohorts: reports[0]!.cohorts,
        boards: reports[0]!.boards,
        reportId: reports[0]!.reportId,
        deterministic: ids.size === 1,
        target: atTarget
          ? {
              totalMs: SCALE_TARGETS.totalMs,
              peakRssMiB: SCALE_TARGETS.peakRssMiB,
              met: total.median < SCALE_TARGETS.totalMs && peakRssMiB < SCALE_TARGETS.peakRssMiB,
            }
          : null,
      });
    } catch (error) {
      failures.push(`scale ${requested}: ${(error as Error).message}`);
    } finally {
      if (!options.keep) await rm(dir, { recursive: true, force: true });
    }
  }
  return results;
}
