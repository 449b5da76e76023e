/**
 * A verifying worker thread (started by verifyPaths through
 * verify-worker.mjs). It takes bundle directories from a shared counter, the
 * same counter the main thread takes from, verifies each exactly as the main
 * thread would (verifyDirectory, with its own arena) and posts each result
 * back in its posted form (wire.ts), then `done`. With a cache, a bundle
 * whose entry exists is posted as `kept` (its key, entries and content
 * digest): the main thread reads the entry itself, rather than this thread
 * reading it only to post it again.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ContentArena } from '../evidence/arena.ts';
import type { Limits } from '../evidence/limits.ts';
import type { ImportLimits } from '../import/limits.ts';
import { cacheKey, hasCached, type VerifyCache } from './verify-cache.ts';
import { finishDirectory, readDirectory } from './verify-directory.ts';
import { toWire } from './wire.ts';
import { parseCertificate } from '../anchor/check.ts';

/** What the worker is started with. */
export interface VerifyWorkerData {
  dirs: readonly string[];
  /** Int32Array over it: [0] is the index of the next directory to take. */
  next: SharedArrayBuffer;
  limits: Limits;
  /** The import limits imports are re-derived under. */
  importLimits: ImportLimits;
  /** The verification cache, when the run uses one. */
  cache?: VerifyCache;
  /** The pinned time-stamp roots' DER (a parsed root holds a key object, which does not cross threads). */
  timestampRoots: readonly Uint8Array[];
}

const { dirs, next, limits, importLimits, cache, timestampRoots: rootsDer } = workerData as VerifyWorkerData;
const timestampRoots = rootsDer.map((der) => parseCertificate(der));
const counter = new Int32Array(next);
const arena = new ContentArena();
for (let i = Atomics.add(counter, 0, 1); i < dirs.length; i = Atomics.add(counter, 0, 1)) {
  try {
    const read = await readDirectory(dirs[i]!, arena, limits);
    const key = cache !== undefined && !('result' in read) ? cacheKey(read.snapshot, limits, importLimits, timestampRoots) : null;
    if (key !== null && !('result' in read) && hasCached(cache!, key)) {
      parentPort!.postMessage({ kind: 'kept', index: i, key, content_digest: read.content_digest, entries: read.entries });
      continue;
    }
    const { wire, transfer } = toWire('result' in read ? read.result : await finishDirectory(read, { limits, importLimits, timestampRoots, cache }));
    parentPort!.postMessage({ kind: 'result', index: i, wire }, transfer);
  } catch (error) {
    const e = error as Error & { code?: unknown };
    parentPort!.postMessage({ kind: 'error', index: i, message: String(e?.message ?? e), stack: e?.stack, code: e?.code });
    break;
  }
}
parentPort!.postMessage({ kind: 'done' });
