/**
 * The one test of a relative path the build reads from a kept file (a kept
 * render's files, an output listing, a kept server bundle's files) before
 * joining it under a directory: nothing in it may climb out or be absolute.
 */

/** A `/`-separated relative path with no `.`, `..` or empty segment, no backslash or NUL. */
export function plainPath(path: unknown): path is string {
  return typeof path === 'string' && path.length > 0 && !/[\\\0]/.test(path) && path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}
