/**
 * Timing helpers for the benchmark: repeated runs summarised by median and
 * range (the machine is shared and noisy, so a single run means little),
 * spawning openssl as the hashing floor, and listing a bundle's files.
 */
import { execFile, spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Median and range of repeated timings, in milliseconds. */
export interface Stats {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

/** Summarises timings (ms). */
export function stats(runs: readonly number[]): Stats {
  if (runs.length === 0) throw new Error('no runs to summarise');
  const sorted = [...runs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, runs: [...runs] };
}

/** Wall time of one call, in milliseconds, with its result. */
export async function timed<T>(work: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/**
 * Runs several competitors in turn, `runs` rounds after one untimed warm-up
 * round (page cache, JIT); interleaving spreads the machine's noise evenly
 * over them. Each competitor's `check` sees every result (digest agreement).
 */
export async function interleave<K extends string>(
  runs: number,
  competitors: Record<K, () => Promise<unknown> | unknown>,
  onRound?: (round: number) => void,
): Promise<Record<K, Stats>> {
  const names = Object.keys(competitors) as K[];
  const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round <= runs; round++) {
    for (const name of names) {
      const { ms } = await timed(competitors[name]);
      if (round > 0) times[name].push(ms);
    }
    if (round > 0) onRound?.(round);
  }
  return Object.fromEntries(names.map((n) => [n, stats(times[n])])) as Record<K, Stats>;
}

/** Every regular file under a directory (absolute paths, sorted). */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  for (const entry of entries) if (entry.isFile()) out.push(join(entry.parentPath, entry.name));
  return out.sort();
}

/** Bundle-relative '/'-separated path of a file under a bundle directory. */
export function bundlePath(dir: string, file: string): string {
  return relative(dir, file).split(sep).join('/');
}

/** `openssl dgst -sha256 -r` over files: digest (sha256:hex) per file path. `-r` only changes the output layout. */
export async function opensslDigests(files: readonly string[]): Promise<Map<string, string>> {
  const { stdout } = await execFileAsync('openssl', ['dgst', '-sha256', '-r', ...files], { maxBuffer: 64 << 20 });
  const digests = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const match = /^([0-9a-f]{64}) \*(.*)$/.exec(line);
    if (match) digests.set(match[2]!, `sha256:${match[1]!}`);
  }
  return digests;
}

/** The outcome of a spawned process: exit code, stdout, stderr. */
export interface SpawnResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion without throwing on a non-zero exit. */
export function run(command: string, args: readonly string[], cwd?: string): Promise<SpawnResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
