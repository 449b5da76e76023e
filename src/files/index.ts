/** The safe-file primitives room (stage 1): open without following links, bounded reads, streamed SHA-256, atomic writes. */
export * from './read.ts';
export * from './atomic.ts';
