/**
 * The notes-rendering worker thread (started by notes.ts through
 * notes-worker.mjs): says `ready`, then renders each posted text with
 * renderMarkdown and posts the result back, one at a time.
 */
import { parentPort } from 'node:worker_threads';
import type { NotesRender } from './notes-budget.ts';
import { renderMarkdown } from './notes-render.ts';

/** A message from the worker. */
export type NotesWorkerMessage = { kind: 'ready' } | { kind: 'result'; result: NotesRender } | { kind: 'error'; message: string };

const port = parentPort!;
port.on('message', (text: string) => {
  renderMarkdown(text).then(
    (result) => port.postMessage({ kind: 'result', result } satisfies NotesWorkerMessage),
    (error: unknown) => port.postMessage({ kind: 'error', message: error instanceof Error ? error.message : String(error) } satisfies NotesWorkerMessage),
  );
});
port.postMessage({ kind: 'ready' } satisfies NotesWorkerMessage);
