// Entry point of the notes-rendering worker thread (notes.ts): a worker does
// not inherit the main thread's tsx loader, so it registers its own before
// loading the TypeScript module.
import { register } from 'tsx/esm/api';

register();
await import('./notes-worker.ts');
