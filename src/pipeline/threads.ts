/**
 * verifyPaths on more than one thread: the main thread and worker threads
 * (verify-worker.ts) verify bundles at once. Each thread takes the next
 * directory from one shared counter, so no thread waits for another to hand
 * it work; results keep the order of the directories. A worker verifies
 * exactly as the main thread does and posts its result with the attempts and
 * grades tables as moved buffers (wire.ts), so what crosses threads is a few
 * typed arrays per bundle, not a million objects. Only a scheduling choice:
 * the results are the same as verifying one bundle after the other
 * (test/pipeline/threads.test.ts).
 */
import { lstat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ContentArena } from '../evidence/arena.ts';
import type { Limits } from '../evidence/limits.ts';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../import/limits.ts';
import type { VerifyWorkerData } from './verify-worker.ts';
import { verifyDirectory, type BundleEntry, type Progress, type BundleResult } from './verify-directory.ts';
import { fromWire, type DirectoryResult, type DirectoryWire } from './wire.ts';
import { readCached, type VerifyCache } from './verify-cache.ts';
import type { PinnedRoot } from '../anchor/check.ts';

/** attempts.jsonl bytes (all bundles together) from which verifying on more than one thread pays for starting a worker. */
export const WORKERS_FROM_BYTES = 32 * 1024 * 1024;
/** Most worker threads started by default. */
export const MAX_WORKERS = 3;

/**
 * Worker threads worth starting for these bundles: none for one bundle, one
 * CPU core or small evidence; else one per further core (at most
 * {@link MAX_WORKERS}). `requested` overrides (capped at one fewer than the
 * bundles: the main thread verifies too).
 */
export async function workersFor(dirs: readonly string[], requested?: number): Promise<number> {
  const most = Math.max(dirs.length - 1, 0);
  if (requested !== undefined) return Math.min(Math.max(Math.floor(requested), 0), most);
  const cores = availableParallelism();
  if (most === 0 || cores < 2) return 0;
  let bytes = 0;
  for (const dir of dirs) {
    // A bundle that is a link is not looked through (it is a finding, not a size); lstat: a link inside is not followed.
    if ((await lstat(dir).catch(() => null))?.isSymbolicLink()) continue;
    bytes += await lstat(join(dir, 'attempts.jsonl')).then((s) => (s.isFile() ? s.size : 0), () => 0);
    if (bytes >= WORKERS_FROM_BYTES) return Math.min(cores - 1, MAX_WORKERS, most);
  }
  return 0;
}

/** The worker's entry point beside this module: verify-worker.js when compiled, else the .mjs shim that loads the .ts. */
const WORKER_ENTRY = import.meta.url.endsWith('.ts') ? './verify-worker.mjs' : './verify-worker.js';

type WorkerMessage =
  | { kind: 'result'; index: number; wire: DirectoryWire }
  | { kind: 'kept'; index: number; key: string; content_digest: string; entries: BundleEntry[] }
  | { kind: 'done' }
  | { kind: 'error'; index: number; message: string; stack?: string; code?: unknown };

/** Verifies the directories on the main thread and `workers` worker threads, under the given limits, import limits and pinned time-stamp roots (and with the cache, when given). */
export async function verifyOnThreads(
  dirs: readonly string[],
  workers: number,
  limits: Limits,
  onProgress?: Progress,
  cache?: VerifyCache,
  importLimits: ImportLimits = DEFAULT_IMPORT_LIMITS,
  timestampRoots: readonly PinnedRoot[] = [],
): Promise<BundleResult[]> {
  const next = new SharedArrayBuffer(4);
  const counter = new Int32Array(next);
  const results: BundleResult[] = new Array(dirs.length);
  let done = 0;
  const finished = (index: number, result: DirectoryResult) => {
    results[index] = { path: dirs[index]!, ...result };
    onProgress?.(++done, dirs.length);
  };
  const threads: Worker[] = [];
  try {
    const running = Array.from({ length: workers }, () => {
      // Compiled (lib/, as installed): the worker is plain JavaScript. From the TypeScript sources (tests, scripts):
      // a .mjs entry point that registers tsx's loader first, as a worker does not inherit the main thread's.
      const worker = new Worker(new URL(WORKER_ENTRY, import.meta.url), { workerData: { dirs, next, limits, importLimits, cache, timestampRoots: timestampRoots.map((r) => r.der) } satisfies VerifyWorkerData, execArgv: [] });
      threads.push(worker);
      return new Promise<void>((resolve, reject) => {
        worker.on('message', (message: WorkerMessage) => {
          if (message.kind === 'result') finished(message.index, fromWire(message.wire));
          else if (message.kind === 'kept') pending.push(takeKept(message));
          else if (message.kind === 'done') resolve();
          else reject(Object.assign(new Error(message.message), { stack: message.stack, code: message.code }));
        });
        worker.on('error', reject);
        worker.on('exit', (code) => reject(new Error(`a verifying worker thread stopped (exit code ${code}) before it was done`)));
      });
    });
    const arena = new ContentArena();
    // A bundle a worker found kept: this thread reads its head (its tables on first use); one that does not check is verified here after all.
    const pending: Promise<void>[] = [];
    const takeKept = async (kept: { index: number; key: string; content_digest: string; entries: BundleEntry[] }) => {
      const entry = await readCached(cache!, kept.key);
      if (entry !== null) finished(kept.index, { verification: entry.verification, content_digest: kept.content_digest, entries: kept.entries, cached: true });
      else finished(kept.index, await verifyDirectory(dirs[kept.index]!, undefined, { limits, importLimits, timestampRoots, cache }));
    };
    const own = (async () => {
      for (let i = Atomics.add(counter, 0, 1); i < dirs.length; i = Atomics.add(counter, 0, 1)) finished(i, await verifyDirectory(dirs[i]!, arena, { limits, importLimits, timestampRoots, cache }));
    })();
    await Promise.all([own, ...running]);
    await Promise.all(pending);
  } finally {
    // No thread takes another directory; then every worker is stopped.
    Atomics.store(counter, 0, dirs.length);
    await Promise.all(threads.map((t) => t.terminate()));
  }
  return results;
}
