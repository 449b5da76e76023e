/**
 * A stand-in for the `yauzl` package in the in-browser verifier's worker.
 * yauzl reads zip archives (Inspect's .eval logs) through Node's streams,
 * file handles and zlib, none of which a browser has: every entry point
 * throws a NotInBrowserError, which the re-derivation core lists as "not
 * re-derived here" (verify.mjs re-imports .eval archives).
 */
import { NotInBrowserError } from './not-in-browser.ts';

const WHAT = 're-importing an Inspect .eval archive (a zip read by yauzl over Node streams)';

function refuse(): never {
  throw new NotInBrowserError(WHAT);
}

export function open(): never {
  refuse();
}
export function fromFd(): never {
  refuse();
}
export function fromBuffer(): never {
  refuse();
}
export function fromRandomAccessReader(): never {
  refuse();
}

export function openPromise(): Promise<never> {
  return Promise.reject(new NotInBrowserError(WHAT));
}
export function fromFdPromise(): Promise<never> {
  return Promise.reject(new NotInBrowserError(WHAT));
}
export function fromBufferPromise(): Promise<never> {
  return Promise.reject(new NotInBrowserError(WHAT));
}
export function fromRandomAccessReaderPromise(): Promise<never> {
  return Promise.reject(new NotInBrowserError(WHAT));
}

export default { open, fromFd, fromBuffer, fromRandomAccessReader, openPromise, fromFdPromise, fromBufferPromise, fromRandomAccessReaderPromise };
