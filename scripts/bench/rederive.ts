/**
 * (l) A stranger's re-derivation at scale (issue 24): the site of one board
 * of 2,000 tasks and 20 cohorts, 10^6 attempts (site-scale.ts's shape), built
 * once; then, in alternating rounds, the site's own `node verify.mjs <site>`
 * (every id and digest, every bundle verified again, the analysis, the
 * derived files and page figures) beside `ledgerboard report --no-cache
 * --json` over the same evidence (read, verify, analyse: what the build does
 * before any page), and `openssl dgst -sha256` over the evidence files (the
 * floor: every byte hashed once). Reports medians, ranges and the ratio the
 * issue sets as the target: verify.mjs within 3x of report --no-cache.
 *
 *   npx tsx scripts/bench/rederive.ts [--tasks 2000] [--cohorts 20] [--bundles 5] [--per-slot 5] [--runs 3] [--keep DIR]
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { run, stats, type Stats } from './measure.ts';
import { generateScaleEvidence } from './scale-generate.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '2000' },
    cohorts: { type: 'string', default: '20' },
    bundles: { type: 'string', default: '5' },
    'per-slot': { type: 'string', default: '5' },
    runs: { type: 'string', default: '3' },
    keep: { type: 'string' },
  },
});
const n = Object.fromEntries(['tasks', 'cohorts', 'bundles', 'per-slot', 'runs'].map((k) => [k, Number(values[k as keyof typeof values])])) as Record<string, number>;
for (const [name, value] of Object.entries(n)) {
  if (!Number.isSafeInteger(value) || value < 1) {
    console.error(`--${name} must be a positive integer`);
    process.exit(2);
  }
}
const log = (line: string) => process.stderr.write(`[rederive bench] ${line}\n`);

/** Runs a command under GNU time: wall milliseconds and peak RSS (MiB); stdout is discarded. */
async function measured(args: string[], cwd: string, okCodes = [0]): Promise<{ ms: number; rssMiB: number }> {
  const start = performance.now();
  const result = await run('sh', ['-c', '"$@" > /dev/null; exit $?', 'sh', '/usr/bin/time', '-f', 'peak %M', ...args], cwd);
  const ms = performance.now() - start;
  if (!okCodes.includes(result.code ?? -1)) throw new Error(`${args.join(' ')} exited ${result.code}: ${result.stderr.trim().slice(-2000)}`);
  return { ms, rssMiB: Number(/peak (\d+)/.exec(result.stderr)?.[1] ?? 0) / 1024 };
}

/** Every regular file under a directory. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

const fmt = (s: Stats) => `${(s.median / 1000).toFixed(2)} s [${(s.min / 1000).toFixed(2)}-${(s.max / 1000).toFixed(2)}]`;

const base = values.keep ?? tmpdir();
await mkdir(base, { recursive: true });
const work = await mkdtemp(join(base, 'ledgerboard-rederive-'));
try {
  const shape = { subjects: n.cohorts!, attemptsPerSlot: n['per-slot']!, tasks: n.tasks!, regrade: false };
  const requested = shape.subjects * shape.attemptsPerSlot * shape.tasks * n.bundles!;
  log(`generating ${requested} attempts: ${n.bundles} bundles x ${shape.subjects} subjects x ${shape.tasks} tasks x ${shape.attemptsPerSlot} per slot`);
  const evidence = await generateScaleEvidence(join(work, 'evidence'), requested, 20261201, n.bundles, (done, total) => log(`bundle ${done}/${total}`), shape);
  log(`${evidence.attempts} attempts, ${(evidence.bytes / 1e6).toFixed(1)} MB`);
  const config = join(work, 'ledgerboard.config.json');
  await writeFile(config, `${JSON.stringify({ title: 'rederive scale', site_url: 'https://scale.example/', retained_reports_dir: join(work, 'no-reports'), attestations_dir: join(work, 'no-attestations') })}\n`);
  const bin = join(root, 'bin', 'ledgerboard.mjs');
  const site = join(work, 'site');
  log('ledgerboard build --no-cache (once)');
  await measured(['env', 'ASTRO_TELEMETRY_DISABLED=1', process.execPath, bin, 'build', '--no-cache', '--config', config, '--bundles', evidence.dir, '--out', site], root);
  const files = await filesUnder(evidence.dir);
  const rounds: Record<'verify' | 'report' | 'openssl', number[]> = { verify: [], report: [], openssl: [] };
  let peak = { verify: 0, report: 0 };
  for (let i = 0; i < n.runs!; i++) {
    const report = await measured([process.execPath, bin, 'report', '--no-cache', '--json', '--config', config, evidence.dir], root);
    const verify = await measured([process.execPath, join(site, 'verify.mjs'), site], root);
    const openssl = await measured(['sh', '-c', 'xargs -0 openssl dgst -sha256 < "$0"', await listFile(files)], root);
    rounds.report.push(report.ms);
    rounds.verify.push(verify.ms);
    rounds.openssl.push(openssl.ms);
    peak = { verify: Math.max(peak.verify, verify.rssMiB), report: Math.max(peak.report, report.rssMiB) };
    log(`round ${i + 1}: verify.mjs ${(verify.ms / 1000).toFixed(2)} s, report --no-cache ${(report.ms / 1000).toFixed(2)} s, openssl ${(openssl.ms / 1000).toFixed(2)} s`);
  }
  const v = stats(rounds.verify);
  const r = stats(rounds.report);
  const o = stats(rounds.openssl);
  console.log(`evidence: ${evidence.attempts} attempts, ${(evidence.bytes / 1e6).toFixed(1)} MB, ${files.length} files`);
  console.log(`node verify.mjs <site>:          ${fmt(v)}, peak ${peak.verify.toFixed(0)} MiB`);
  console.log(`ledgerboard report --no-cache:   ${fmt(r)}, peak ${peak.report.toFixed(0)} MiB`);
  console.log(`openssl dgst -sha256 (floor):    ${fmt(o)}`);
  console.log(`verify.mjs / report --no-cache: ${(v.median / r.median).toFixed(2)}x (target < 3x: ${v.median / r.median < 3 ? 'met' : 'NOT met'}); verify.mjs / openssl: ${(v.median / o.median).toFixed(1)}x`);

  /** The evidence file list as a NUL-separated file for xargs. */
  async function listFile(list: string[]): Promise<string> {
    const path = join(work, 'files.list');
    await writeFile(path, list.join('\0'));
    return path;
  }
} finally {
  if (values.keep === undefined) await rm(work, { recursive: true, force: true });
}
