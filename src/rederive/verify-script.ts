/**
 * The entry point of verify.mjs (scripts/bundle-verifier.mjs bundles this
 * file): the command line when run, and the checks as exports for whoever
 * imports the script (tests, a stranger's own tooling).
 */
import { pathToFileURL } from 'node:url';
import { main } from './verify-main.ts';

export { main } from './verify-main.ts';
export { rederiveSite } from './rederive.ts';
export * from './site-checks.mjs';

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Progress on a terminal only: one line, rewritten in place, cleared at the end.
  const progress = process.stderr.isTTY ? (text: string) => process.stderr.write(`\r\x1b[K${text}`) : undefined;
  process.exitCode = await main(process.argv.slice(2), console.log, console.error, { program: 'node verify.mjs', ...(progress ? { progress } : {}) });
}
