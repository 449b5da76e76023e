/**
 * Path rules of FORMAT.md section 2.1, applied to manifest paths before any
 * use. The reader never opens a manifest path at all: it walks the directory
 * and compares, so a hostile path can only ever be reported.
 */

const MAX_PATH_BYTES = 255;

/** Why a bundle path breaks the rules, or null when it is safe. */
export function unsafePathReason(path: string): string | null {
  if (path.length === 0) return 'the path is empty';
  if (path.startsWith('/')) return 'the path is absolute (leading "/")';
  if (path.includes('\\')) return 'the path holds a backslash';
  if (path.includes('\0')) return 'the path holds a NUL';
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) return `the path is longer than ${MAX_PATH_BYTES} bytes`;
  for (const segment of path.split('/')) {
    if (segment === '') return 'the path has an empty segment';
    if (segment === '.' || segment === '..') return `the path has a "${segment}" segment`;
  }
  return null;
}

/** Renders a path from the evidence for a one-line message: JSON-quoted, so control characters show escaped. */
export function quotePath(path: string): string {
  return JSON.stringify(path);
}

/**
 * The name a case-insensitive, normalisation-insensitive file system (macOS
 * APFS, Windows NTFS) sees: NFC, then case folded (upper then lower case,
 * which folds "ß" with "ss" and the Kelvin sign with "k" as full case folding
 * does), then NFC again. Two paths with the same key collide in a checkout
 * there: one file silently replaces the other. An ASCII path only folds case.
 */
export function collisionKey(path: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(path)) return path.toLowerCase();
  return path.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/**
 * A time-stamp token of FORMAT.md 12: `anchors/<name>.tsr`, directly under
 * anchors/, with a name before `.tsr` (case matters). Any other file under
 * anchors/ is an ordinary file, only hashed.
 */
export function isAnchorTokenPath(path: string): boolean {
  return path.startsWith('anchors/') && path.endsWith('.tsr') && path.length > 'anchors/.tsr'.length && path.indexOf('/', 'anchors/'.length) === -1;
}

/** Files whose bytes the verifier parses (the time-stamp tokens too); all others are only hashed. */
export function isStructuredPath(path: string): boolean {
  return (
    isAnchorTokenPath(path) ||
    path === 'manifest.json' ||
    path === 'plan.json' ||
    path === 'ledger.jsonl' ||
    path === 'attempts.jsonl' ||
    path === 'grant.json' ||
    path === 'assessments.json' ||
    path === 'NOTES.md' ||
    (path.startsWith('grades/') && path.endsWith('.json') && path.indexOf('/', 7) === -1)
  );
}
