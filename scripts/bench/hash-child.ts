/**
 * Child process of the hashing benchmark: hashes one file with the project's
 * hashHandle (opened as the reader opens files) and prints one JSON line with
 * the digest, the time and process.resourceUsage().maxRSS, so the peak RSS is
 * this process's alone, not the benchmark's. `--idle` loads the same modules
 * and opens the file but does not hash: the baseline RSS of a tsx process.
 * VmHWM from /proc/self/status (Linux) is printed too, as a cross-check.
 *
 * On Linux, ru_maxrss survives fork + execve: a child spawned directly by a
 * big process reports the parent's RSS at the fork. The benchmark therefore
 * starts this script through `sh -c '"$@"; exit $?'`, whose own small fork
 * starts the count afresh.
 *
 *   node --import tsx scripts/bench/hash-child.ts [--idle] FILE
 */
import { readFile, open } from 'node:fs/promises';
import { hashHandle } from '../../src/evidence/hash-file.ts';

const args = process.argv.slice(2);
const idle = args[0] === '--idle';
const file = idle ? args[1] : args[0];
if (file === undefined) {
  console.error('usage: hash-child.ts [--idle] FILE');
  process.exit(2);
}
const handle = await open(file, 'r');
const start = performance.now();
const result = idle ? null : await hashHandle(handle, false);
const ms = performance.now() - start;
await handle.close();
const maxRssKiB = process.resourceUsage().maxRSS;
const status = await readFile('/proc/self/status', 'utf8').catch(() => '');
const hwm = /^VmHWM:\s*(\d+)\s*kB/m.exec(status)?.[1];
const vmHwmKiB = hwm === undefined ? null : Number(hwm);
console.log(JSON.stringify({ sha256: result?.sha256 ?? null, bytes: result?.bytes ?? null, ms, maxRssKiB, vmHwmKiB }));
