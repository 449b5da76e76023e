/**
 * Errors a build meets in its surroundings rather than in ledgerboard: an
 * output it cannot write (read-only, no permission), a full disk, evidence
 * that changed while the build ran. Each becomes one line naming the path and
 * what to do (exit 2, like any other path that cannot be used), never
 * "unexpected error".
 */
import { dirname, resolve, sep } from 'node:path';
import { EXIT_STATUS, LedgerboardError } from '../../errors.ts';

/** The build could not run as asked; the message names the path and what to do. */
export class BuildEnvironmentError extends LedgerboardError {
  static override readonly code: string = 'BUILD_ENVIRONMENT';
  static override readonly exitStatus = EXIT_STATUS.usage;
}

/** An evidence file's bytes differ from what verification hashed (thrown while publishing it). */
export class EvidenceChangedError extends LedgerboardError {
  static override readonly code: string = 'EVIDENCE_CHANGED';
  static override readonly exitStatus = EXIT_STATUS.usage;
  constructor(readonly path: string, detail: string) {
    super(detail);
  }
}

const WRITE_CODES: Record<string, string> = {
  EROFS: 'is on a read-only file system',
  EACCES: 'cannot be written (permission denied)',
  EPERM: 'cannot be written (operation not permitted)',
};

const FULL_CODES: Record<string, string> = {
  ENOSPC: 'cannot be written: the disk is full',
  EDQUOT: 'cannot be written: the disk quota is exhausted',
};

/**
 * The build-environment error `error` stands for, or null: evidence that
 * changed, a full disk anywhere, or a write refused at the output or beside
 * it (`<out>`, `<out>.lock`, `<out>.staging`, `<out>.render-*`, or a directory
 * above them); the errno code may be on the error or on any
 * error in its `cause` chain, as Astro and Vite wrap what they meet. A
 * refused read elsewhere is not this build's surroundings and stays
 * unexpected.
 */
export function buildEnvironmentError(error: unknown, out: string): BuildEnvironmentError | null {
  const target = resolve(out);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof BuildEnvironmentError) return e;
    if (e instanceof EvidenceChangedError) {
      return new BuildEnvironmentError(`evidence changed during the build: ${e.path} (${e.message}); nothing was published: stop whatever writes the evidence and build again`);
    }
    const { path } = e as NodeJS.ErrnoException;
    const code = errnoOf(e);
    if (code === null) continue;
    const where = typeof path === 'string' ? resolve(path) : null;
    const full = FULL_CODES[code];
    if (full !== undefined) {
      return new BuildEnvironmentError(`${where ?? target} ${full} (${code}); free space there (a build needs about twice the site's size beside --out) or choose another --out`);
    }
    const refused = WRITE_CODES[code];
    if (refused !== undefined && where !== null && besideOutput(where, target)) {
      // A file the build makes beside the output (<out>.lock.*, <out>.render-*) is named by its directory.
      const named = where.startsWith(`${target}.`) ? dirname(target) : where;
      return new BuildEnvironmentError(`${named} ${refused} (${code}); choose a writable --out (a build writes beside it too: <out>.lock, <out>.staging, <out>.render-*)`);
    }
  }
  return null;
}

/** The output, a file a build writes beside it, or a directory above it (a build creates the missing ones). */
function besideOutput(path: string, target: string): boolean {
  return path === target || path.startsWith(`${target}.`) || path.startsWith(`${target}${sep}`) || target.startsWith(path.endsWith(sep) ? path : `${path}${sep}`);
}

/**
 * The errno code of an error: its `code`, or for the full disk and a
 * read-only file system the system's wording in its message (esbuild, run by
 * Vite, reports a failed write as text only).
 */
function errnoOf(error: Error): string | null {
  const { code } = error as NodeJS.ErrnoException;
  if (typeof code === 'string') return code;
  if (/no space left on device/i.test(error.message)) return 'ENOSPC';
  if (/disk quota exceeded/i.test(error.message)) return 'EDQUOT';
  return null;
}
