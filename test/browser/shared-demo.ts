/**
 * One demo build per test run, shared by every suite that only reads it.
 *
 * `npm run build`'s demo site (the config's frozen and imported evidence) is
 * the same bytes whichever suite asks for it, so the first suite that asks
 * builds it into the run's test home (made by test/global-setup.ts, removed
 * after the run) and every other suite, in whatever worker process, waits for
 * that build and opens the same directory. A suite given this directory must
 * only read it: a suite that changes the output copies it first.
 *
 * Coordination is by the file system, since vitest runs files in separate
 * processes: `mkdir` of the lock directory elects the builder; it writes
 * `done` (or `failed` with the error) when it is through; the others poll.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildSite } from './browser.ts';

/** How long a waiting suite waits for another process's build before failing. */
const WAIT_MS = 15 * 60_000;
const POLL_MS = 250;

/** The run's shared directory: beside the per-run cache and config homes global-setup made. */
function sharedRoot(): string {
  const cache = process.env.XDG_CACHE_HOME;
  if (cache === undefined || !/lb-test-home-/.test(cache)) {
    throw new Error('the shared demo build needs the test home made by test/global-setup.ts (run the tests through vitest)');
  }
  return join(dirname(cache), 'shared-demo');
}

let mine: Promise<string> | undefined;

/** The demo built once for this test run; resolves to its output directory (read only). */
export function sharedDemoBuild(): Promise<string> {
  mine ??= buildOrWait();
  return mine;
}

async function buildOrWait(): Promise<string> {
  const root = sharedRoot();
  const out = join(root, 'dist');
  const done = join(root, 'done');
  const failed = join(root, 'failed');
  await mkdir(dirname(root), { recursive: true });
  let builder = true;
  try {
    await mkdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    builder = false;
  }
  if (builder) {
    try {
      await buildSite({ out });
    } catch (error) {
      await writeFile(failed, (error as Error).message);
      throw error;
    }
    await writeFile(done, '');
    return out;
  }
  for (let waited = 0; waited < WAIT_MS; waited += POLL_MS) {
    if (existsSync(done)) return out;
    if (existsSync(failed)) throw new Error(`the shared demo build failed in another test process:\n${await readFile(failed, 'utf8')}`);
    await sleep(POLL_MS);
  }
  throw new Error(`the shared demo build in ${root} did not finish within ${WAIT_MS / 60_000} minutes`);
}
