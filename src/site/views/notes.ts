/**
 * NOTES.md on the site: the publisher's untrusted Markdown, rendered by
 * notes-render.ts under its deterministic budget (NOTES_BUDGET), in a worker
 * thread. Notes over a count of that budget are never parsed: they are shown
 * as escaped preformatted text with a line saying which count was over.
 *
 * The worker's time and memory limits ({@link NOTES_SAFETY}) are a safety
 * net only, the one machine-dependent part: anything within the budget
 * renders in well under a second, so they are reached only by Markdown the
 * budget failed to foresee, which is then shown as text too, with the limit
 * named. One worker renders the notes of every bundle, one after the other;
 * it is started on first use, does not keep the process alive, and is
 * replaced if it is stopped.
 */
import { Worker } from 'node:worker_threads';
import { notesFallback, scanNotes, type NotesOver, type NotesRender } from './notes-budget.ts';
import type { NotesWorkerMessage } from './notes-worker.ts';

/** The worker's limits: wall-clock seconds for one rendering (with the worker's start), and its heap in MiB. */
export const NOTES_SAFETY = { seconds: 20, memory_mb: 512 } as const;

/** Rendered notes: sanitized HTML, or the escaped text and why (`over`). */
export interface RenderedNotes {
  html: string;
  over: NotesOver | null;
}

interface Running {
  worker: Worker;
  memoryMb: number;
  /** Settles when the worker said `ready` (heard from its start: a worker started ahead may say it before any rendering listens). */
  ready: Promise<void>;
}

let current: Running | null = null;
let queue: Promise<unknown> = Promise.resolve();

function stop(running: Running): void {
  if (current === running) current = null;
  void running.worker.terminate();
}

function start(memoryMb: number): Running {
  // No inherited execArgv: the worker's entry point registers its own TypeScript loader.
  // Compiled (lib/): the worker is plain JavaScript; from the TypeScript sources, a .mjs shim registers tsx first.
  const entry = import.meta.url.endsWith('.ts') ? './notes-worker.mjs' : './notes-worker.js';
  const worker = new Worker(new URL(entry, import.meta.url), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: memoryMb } });
  worker.unref();
  const ready = new Promise<void>((resolve) => {
    const onReady = (message: NotesWorkerMessage) => {
      if (message.kind !== 'ready') return;
      worker.off('message', onReady);
      resolve();
    };
    worker.on('message', onReady);
  });
  const running: Running = { worker, memoryMb, ready };
  // A worker that fails between renderings is only forgotten (the next rendering starts another).
  const forget = () => {
    if (current === running) current = null;
  };
  worker.on('error', forget).on('exit', forget);
  return running;
}

/**
 * Starts the worker ahead of the first notes, so that it starts while the
 * caller does other work (buildSiteModel: the first bundle's highlighted
 * plan). Optional: rendering starts it when needed.
 */
export function startNotesRenderer(): void {
  current ??= start(NOTES_SAFETY.memory_mb);
}

/** The worker running now (started ahead or by a rendering), or null: for a test that watches its messages. */
export function notesWorker(): Worker | null {
  return current?.worker ?? null;
}

/** Renders one text on the worker, within the safety net. */
function onWorker(text: string, safety: { seconds: number; memory_mb: number }): Promise<NotesRender> {
  if (current && current.memoryMb !== safety.memory_mb) stop(current);
  const running = (current ??= start(safety.memory_mb));
  const { worker } = running;
  return new Promise<NotesRender>((resolve, reject) => {
    const settle = (then: () => void) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      then();
    };
    const stopped = (over: NotesOver) =>
      settle(() => {
        stop(running);
        resolve({ over });
      });
    const timer = setTimeout(() => stopped({ limit: 'seconds', value: safety.seconds, actual: 'more' }), safety.seconds * 1000);
    const onMessage = (message: NotesWorkerMessage) => {
      if (message.kind === 'ready') return;
      if (message.kind === 'result') settle(() => resolve(message.result));
      else settle(() => reject(new Error(message.message)));
    };
    const onError = (error: Error & { code?: string }) =>
      stopped(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { limit: 'memory_mb', value: safety.memory_mb, actual: 'more' } : { limit: 'renderer', value: 0, actual: 'more' });
    const onExit = () => stopped({ limit: 'renderer', value: 0, actual: 'more' });
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    void running.ready.then(() => worker.postMessage(text));
  });
}

/**
 * Renders untrusted Markdown bytes (invalid UTF-8 is replaced, never trusted)
 * to sanitized HTML, or to escaped preformatted text saying why not. Rejects
 * only on a bug in the renderer (the page then says the notes could not be
 * rendered). `safety` overrides {@link NOTES_SAFETY} (tests).
 */
export async function renderNotesChecked(bytes: Uint8Array, safety: { seconds: number; memory_mb: number } = NOTES_SAFETY): Promise<RenderedNotes> {
  const text = new TextDecoder('utf-8').decode(bytes);
  const scanned = scanNotes(text);
  if (scanned) return { html: notesFallback(text, scanned), over: scanned };
  const run = queue.then(() => onWorker(text, safety));
  queue = run.catch(() => undefined);
  const result = await run;
  return 'html' in result ? { html: result.html, over: null } : { html: notesFallback(text, result.over), over: result.over };
}

/** Renders untrusted Markdown bytes to sanitized HTML, or to escaped text saying why not ({@link renderNotesChecked}). */
export async function renderNotes(bytes: Uint8Array): Promise<string> {
  return (await renderNotesChecked(bytes)).html;
}
