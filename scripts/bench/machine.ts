/** Facts about the machine a benchmark ran on, printed above the results. */
import { readFile } from 'node:fs/promises';
import { availableParallelism, totalmem } from 'node:os';
import { run } from './measure.ts';

/** Node, openssl, CPU, core count and memory. */
export interface MachineFacts {
  node: string;
  openssl: string;
  opensslInNode: string;
  cpu: string;
  nproc: number;
  memoryGiB: number;
  platform: string;
}

/** Gathers the facts (openssl from the binary the benchmark spawns; CPU from /proc/cpuinfo). */
export async function machineFacts(): Promise<MachineFacts> {
  let cpu = 'unknown';
  try {
    const info = await readFile('/proc/cpuinfo', 'utf8');
    cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpu;
  } catch {
    // Not Linux: leave it unknown.
  }
  let nproc = availableParallelism();
  const counted = await run('nproc', []).catch(() => null);
  if (counted?.code === 0 && Number.isInteger(Number(counted.stdout.trim()))) nproc = Number(counted.stdout.trim());
  const openssl = await run('openssl', ['version']).catch(() => null);
  return {
    node: process.version,
    openssl: openssl?.code === 0 ? openssl.stdout.trim() : 'unavailable',
    opensslInNode: process.versions.openssl ?? 'unknown',
    cpu,
    nproc,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: `${process.platform} ${process.arch}`,
  };
}
