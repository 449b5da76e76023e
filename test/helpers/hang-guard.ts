/**
 * Test helper for code that might never return: run a snippet in a child
 * process with a time limit. A synchronous endless loop cannot be stopped by
 * a vitest timeout, so regression tests for the parser's old endless loop on
 * an unterminated string (src/json/strict-json.ts) run through this.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root (where node_modules/tsx is). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A file: URL string of a repository file, for imports in isolated snippets. */
export function repoUrl(relative: string): string {
  return new URL(`../../${relative}`, import.meta.url).href;
}

/** The outcome of an isolated run. */
export interface IsolatedRun {
  timedOut: boolean;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an ES module snippet (TypeScript imports allowed, through tsx) in a child node process, killed after `timeoutMs`; several can run at once. */
export function runIsolatedAsync(code: string, timeoutMs: number): Promise<IsolatedRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', code],
      { cwd: REPO_ROOT, timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'utf8' },
      (error, stdout, stderr) => {
        const killed = (error as (Error & { killed?: boolean; signal?: string }) | null)?.signal === 'SIGKILL';
        const code = (error as (Error & { code?: unknown }) | null)?.code;
        resolve({ timedOut: killed, status: error ? (typeof code === 'number' ? code : null) : 0, stdout, stderr });
      },
    );
  });
}
