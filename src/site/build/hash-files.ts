/**
 * SHA-256 of many files on two threads: the main thread and one worker take
 * the next file from one shared counter, so the hashing of a large output
 * (the output stamp's check, output-stamp.ts) takes about half the time on a
 * machine with a second core. Files are opened without following a link
 * (O_NOFOLLOW) and read through one 1 MiB buffer per thread. Small totals,
 * or one core, are hashed on this thread alone: starting a worker costs more
 * than it saves. The digests are the same either way
 * (test/site/output-stamp.test.ts).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { hashFileNoFollowSync } from '../../files/read.ts';

/** Total bytes from which a worker thread is started. */
export const WORKER_FROM_BYTES = 64 * 1024 * 1024;

/** SHA-256 (hex) of each file, or null for a file that cannot be opened or read as a regular file. */
export async function hashFiles(paths: readonly string[], totalBytes: number): Promise<(string | null)[]> {
  const out: (string | null)[] = new Array(paths.length).fill(null);
  const next = new SharedArrayBuffer(4);
  const counter = new Int32Array(next);
  const worker = totalBytes >= WORKER_FROM_BYTES && availableParallelism() > 1 && paths.length > 1 ? startWorker(paths, next, out) : null;
  const buffer = Buffer.allocUnsafeSlow(1 << 20);
  for (let i = Atomics.add(counter, 0, 1); i < paths.length; i = Atomics.add(counter, 0, 1)) out[i] = hashOne(paths[i]!, buffer);
  if (worker !== null) await worker;
  return out;
}

/** One file's digest, never following a link (see the module comment). */
export function hashOne(path: string, buffer: Buffer): string | null {
  return hashFileNoFollowSync(path, buffer);
}

/**
 * The worker's code: plain JavaScript (the same open and loop as {@link hashOne},
 * src/files/read.ts `hashFileNoFollowSync`, written out), so
 * it runs alike from the compiled CLI and from the TypeScript sources.
 */
const WORKER_SOURCE = `
const { createHash } = require('node:crypto');
const { closeSync, constants, openSync, readSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const { paths, next } = workerData;
const counter = new Int32Array(next);
const buffer = Buffer.allocUnsafeSlow(1 << 20);
const done = [];
for (let i = Atomics.add(counter, 0, 1); i < paths.length; i = Atomics.add(counter, 0, 1)) {
  let digest = null;
  let fd = null;
  try {
    fd = openSync(paths[i], constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const hash = createHash('sha256');
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
    digest = hash.digest('hex');
  } catch {
    digest = null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
  done.push([i, digest]);
}
parentPort.postMessage(done);
`;

function startWorker(paths: readonly string[], next: SharedArrayBuffer, out: (string | null)[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { paths, next }, execArgv: [] });
    worker.once('message', (done: [number, string | null][]) => {
      for (const [i, digest] of done) out[i] = digest;
      resolve();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the hashing worker thread stopped (exit code ${code}) before it was done`)));
  });
}
