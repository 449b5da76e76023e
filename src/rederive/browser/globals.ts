/**
 * Node's globals the core uses without importing them, for the in-browser
 * verifier's worker: esbuild injects this module (the `inject` option of
 * scripts/bundle-browser-verifier.mjs), so a free `Buffer` in the core is
 * this browser Buffer.
 */
export { Buffer } from './buffer.ts';
