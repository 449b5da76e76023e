// Entry point of a verifying worker thread: a worker does not inherit the
// main thread's tsx loader, so it registers its own before loading the
// TypeScript module.
import { register } from 'tsx/esm/api';

register();
await import('./verify-worker.ts');
