/**
 * The benchmark's measurements. Each suite checks correctness first (a bundle
 * that does not verify, or digests that disagree, make the numbers
 * worthless) and records every problem in `failures` instead of throwing, so
 * the rest of the report still prints.
 */
import { open, readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { readBundle } from '../../src/evidence/read-bundle.ts';
import { hashHandle } from '../../src/evidence/hash-file.ts';
import { parseStrictJsonl } from '../../src/json/jsonl.ts';
import { verifyDirectory, verifyPaths } from '../../src/pipeline/verify-paths.ts';
import { verifyBundle } from '../../src/verify/verify-bundle.ts';
import { writeBigFile } from './big-file.ts';
import type { GeneratedBundle } from './generate.ts';
import { bundlePath, interleave, listFiles, opensslDigests, run, stats, type Stats } from './measure.ts';

/** Project targets (ratios to the baseline; lower is better). */
export const TARGETS = { parser: 3, hashing: 1.5 } as const;

/** Progress line on stderr. */
export type Log = (message: string) => void;

/** (a) + (b): end-to-end verify of one generated bundle against the openssl floor. */
export interface VerifyResult {
  attempts: number;
  tasks: number;
  files: number;
  bytes: number;
  bundleId: string;
  status: string;
  findings: number;
  /** readBundle + verifyBundle, i.e. verifyDirectory. */
  verify: Stats;
  /** readBundle alone (walk, open, hash, keep structured bytes). */
  read: Stats;
  /** verifyBundle alone (parse, schemas, every check; no disk). */
  check: Stats;
  openssl: Stats;
  attemptsPerSecond: number;
  mbPerSecond: number;
  ratio: number;
  digestsAgree: boolean;
}

/** (c): the strict JSONL parser against decode + split + JSON.parse. */
export interface ParserResult {
  attempts: number;
  bytes: number;
  strict: Stats;
  jsonParse: Stats;
  ratio: number;
  target: number;
  aboveTarget: boolean;
  sameValues: boolean;
}

/** (d): hashHandle against openssl on one big file, and the peak RSS of hashing in a child process. */
export interface HashResult {
  bytes: number;
  writeMs: number;
  hashHandle: Stats;
  openssl: Stats;
  ratio: number;
  target: number;
  aboveTarget: boolean;
  digest: string;
  digestsAgree: boolean;
  /** Peak RSS (MiB) from process.resourceUsage().maxRSS; VmHWM (Linux) as a cross-check. */
  child: { runs: number; hashMs: number; peakRssMiB: number; idleRssMiB: number; peakHwmMiB: number | null } | null;
}

/** (e): the CLI over the demo bundles, when present. */
export interface DemoResult {
  path: string;
  bundles: number;
  statuses: Record<string, number>;
  files: number;
  bytes: number;
  exitCode: number | null;
  /** `node bin/ledgerboard.mjs verify PATH`, wall time. */
  cli: Stats;
  /** `node bin/ledgerboard.mjs --version`: process start + tsx, no verification. */
  cliStartup: Stats;
  /** verifyPaths([PATH]) in this process: the verification work alone. */
  inProcess: Stats;
}

/** (a) + (b). */
export async function benchVerify(g: GeneratedBundle, runs: number, log: Log, failures: string[]): Promise<VerifyResult> {
  const first = (await verifyDirectory(g.dir)).verification;
  if (first.status !== 'verified') {
    const codes = [...new Set(first.findings.map((f) => f.code))].join(', ');
    failures.push(`generated bundle with ${g.attempts} attempts is ${first.status} (${codes}), not verified`);
  }
  const files = await listFiles(g.dir);
  const read: number[] = [];
  const check: number[] = [];
  let ourDigests = new Map<string, string>();
  let theirDigests = new Map<string, string>();
  const times = await interleave(
    runs,
    {
      verify: async () => {
        const t0 = performance.now();
        const snapshot = await readBundle(g.dir);
        const t1 = performance.now();
        const result = verifyBundle(snapshot);
        const t2 = performance.now();
        read.push(t1 - t0);
        check.push(t2 - t1);
        if (result.status !== first.status) failures.push(`bundle with ${g.attempts} attempts: status ${result.status} on a repeat run`);
        ourDigests = new Map(snapshot.entries.filter((e) => e.sha256 !== undefined).map((e) => [e.path, e.sha256!]));
      },
      openssl: async () => {
        theirDigests = await opensslDigests(files);
      },
    },
    (round) => log(`  ${g.attempts} attempts: round ${round}/${runs}`),
  );
  let digestsAgree = theirDigests.size === files.length && ourDigests.size === files.length;
  for (const file of files) {
    if (theirDigests.get(file) !== ourDigests.get(bundlePath(g.dir, file))) digestsAgree = false;
  }
  if (!digestsAgree) failures.push(`bundle with ${g.attempts} attempts: readBundle and openssl digests disagree`);
  const seconds = times.verify.median / 1000;
  return {
    attempts: g.attempts,
    tasks: g.tasks,
    files: g.files,
    bytes: g.bytes,
    bundleId: g.bundleId,
    status: first.status,
    findings: first.findings.length,
    verify: times.verify,
    // The first entry of each is the warm-up round.
    read: stats(read.slice(1)),
    check: stats(check.slice(1)),
    openssl: times.openssl,
    attemptsPerSecond: g.attempts / seconds,
    mbPerSecond: g.bytes / 1e6 / seconds,
    ratio: times.verify.median / times.openssl.median,
    digestsAgree,
  };
}

/** (c). The baseline is what a non-strict reader would do; both must give the same values on valid input. */
export async function benchParser(g: GeneratedBundle, runs: number, log: Log, failures: string[]): Promise<ParserResult> {
  const bytes = await readFile(join(g.dir, 'attempts.jsonl'));
  const decoder = new TextDecoder('utf-8');
  const baseline = (): unknown[] => {
    const lines = decoder.decode(bytes).split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.map((line) => JSON.parse(line) as unknown);
  };
  const strict = parseStrictJsonl(bytes);
  const plain = baseline();
  const sameValues =
    strict.length === plain.length && strict.every((entry, i) => entry.ok && isDeepStrictEqual(entry.value, plain[i]));
  if (!sameValues) failures.push(`attempts.jsonl with ${g.attempts} lines: parseStrictJsonl and JSON.parse disagree`);
  const times = await interleave(runs, { strict: () => parseStrictJsonl(bytes), jsonParse: baseline }, (round) =>
    log(`  parser on ${g.attempts} lines: round ${round}/${runs}`),
  );
  const ratio = times.strict.median / times.jsonParse.median;
  return {
    attempts: g.attempts,
    bytes: bytes.length,
    strict: times.strict,
    jsonParse: times.jsonParse,
    ratio,
    target: TARGETS.parser,
    aboveTarget: ratio > TARGETS.parser,
    sameValues,
  };
}

interface ChildReport {
  sha256: string | null;
  ms: number;
  maxRssKiB: number;
  vmHwmKiB: number | null;
}

/**
 * Runs hash-child.ts. Not spawned directly: on Linux ru_maxrss survives fork +
 * execve, so a direct child would report this (big) process's RSS. A shell
 * that forks (the trailing `exit` keeps it from exec-ing in place) starts a
 * clean count.
 */
async function hashInChild(root: string, file: string, idle: boolean): Promise<ChildReport> {
  const script = join(root, 'scripts', 'bench', 'hash-child.ts');
  const command = [process.execPath, '--import', 'tsx', script, ...(idle ? ['--idle'] : []), file];
  const result = await run('sh', ['-c', '"$@"; exit $?', 'sh', ...command], root);
  if (result.code !== 0) throw new Error(`hash child exited ${result.code}: ${result.stderr.trim()}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as ChildReport;
}

/** (d). */
export async function benchHashing(
  root: string,
  dir: string,
  gib: number,
  runs: number,
  seed: number,
  log: Log,
  failures: string[],
): Promise<HashResult> {
  const file = join(dir, 'big-artifact.bin');
  const size = Math.round(gib * 2 ** 30);
  const start = performance.now();
  const written = await writeBigFile(file, size, seed, (n) => log(`  writing ${(n / 2 ** 30).toFixed(2)} GiB`));
  const writeMs = performance.now() - start;
  const seen = new Set<string>();
  const times = await interleave(
    runs,
    {
      hashHandle: async () => {
        const handle = await open(file, 'r');
        try {
          seen.add((await hashHandle(handle, false)).sha256);
        } finally {
          await handle.close();
        }
      },
      openssl: async () => {
        seen.add((await opensslDigests([file])).get(file) ?? 'openssl gave no digest');
      },
    },
    (round) => log(`  hashing: round ${round}/${runs}`),
  );
  let child: HashResult['child'] = null;
  try {
    const reports: ChildReport[] = [];
    const idle: ChildReport[] = [];
    const childRuns = Math.min(3, runs);
    for (let i = 0; i < childRuns; i++) {
      log(`  hashing in a child process ${i + 1}/${childRuns} (peak RSS)`);
      idle.push(await hashInChild(root, file, true));
      const report = await hashInChild(root, file, false);
      seen.add(report.sha256 ?? 'child gave no digest');
      reports.push(report);
    }
    child = {
      runs: childRuns,
      hashMs: stats(reports.map((r) => r.ms)).median,
      peakRssMiB: Math.max(...reports.map((r) => r.maxRssKiB)) / 1024,
      idleRssMiB: Math.max(...idle.map((r) => r.maxRssKiB)) / 1024,
      peakHwmMiB: reports.every((r) => r.vmHwmKiB !== null) ? Math.max(...reports.map((r) => r.vmHwmKiB!)) / 1024 : null,
    };
  } catch (error) {
    failures.push(`hashing in a child process failed: ${(error as Error).message}`);
  }
  const digestsAgree = seen.size === 1 && seen.has(written);
  if (!digestsAgree) failures.push(`big file digests disagree: written ${written}, measured ${[...seen].join(', ')}`);
  const ratio = times.hashHandle.median / times.openssl.median;
  return {
    bytes: size,
    writeMs,
    hashHandle: times.hashHandle,
    openssl: times.openssl,
    ratio,
    target: TARGETS.hashing,
    aboveTarget: ratio > TARGETS.hashing,
    digest: written,
    digestsAgree,
    child,
  };
}

/** (e). Statuses come from one `--json` run; the timed runs are the human command the docs quote. */
export async function benchDemo(root: string, path: string, runs: number, log: Log): Promise<DemoResult | null> {
  const target = resolve(root, path);
  if (!existsSync(target)) return null;
  const cli = join(root, 'bin', 'ledgerboard.mjs');
  const json = await run(process.execPath, [cli, 'verify', '--json', path], root);
  let bundles = 0;
  const statuses: Record<string, number> = {};
  try {
    const parsed = JSON.parse(json.stdout) as { bundles: { status: string }[] };
    bundles = parsed.bundles.length;
    for (const b of parsed.bundles) statuses[b.status] = (statuses[b.status] ?? 0) + 1;
  } catch {
    statuses['unparsed output'] = 1;
  }
  const files = await listFiles(target);
  let bytes = 0;
  for (const file of files) bytes += (await stat(file)).size;
  let exitCode: number | null = null;
  const times = await interleave(
    runs,
    {
      cli: async () => {
        exitCode = (await run(process.execPath, [cli, 'verify', path], root)).code;
      },
      cliStartup: () => run(process.execPath, [cli, '--version'], root),
      inProcess: () => verifyPaths([target]),
    },
    (round) => log(`  demo: round ${round}/${runs}`),
  );
  return { path, bundles, statuses, files: files.length, bytes, exitCode, cli: times.cli, cliStartup: times.cliStartup, inProcess: times.inProcess };
}
