/**
 * Before any test: the tests that run `bin/ledgerboard.mjs` as a real process
 * run the compiled CLI in lib/, so lib/ must be compiled from the sources as
 * they are now (recompiled only when src/ changed since).
 *
 * The caches and their key (src/cache/secret.ts) live in the user's cache
 * and config directories: every test process gets its own, made here and
 * removed after, so a test run neither reads nor writes the real ones.
 *
 * After every test: the demo's freeze log (content/history/freeze-log.jsonl,
 * which ./ledgerboard.config.json names, and which `freeze` appends to when a
 * test forgets --log or --config) must hold the bytes it held before, or the
 * run fails naming it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCompiled } from '../scripts/compile.mjs';

export default async function setup(): Promise<() => void> {
  const home = mkdtempSync(join(tmpdir(), 'lb-test-home-'));
  process.env.XDG_CACHE_HOME = join(home, 'cache');
  process.env.XDG_CONFIG_HOME = join(home, 'config');
  delete process.env.LEDGERBOARD_CACHE_KEY;
  await ensureCompiled();
  const demoLog = join(import.meta.dirname, '..', 'content', 'history', 'freeze-log.jsonl');
  const before = existsSync(demoLog) ? readFileSync(demoLog) : null;
  return () => {
    rmSync(home, { recursive: true, force: true });
    const after = existsSync(demoLog) ? readFileSync(demoLog) : null;
    if (before === null ? after !== null : after === null || !before.equals(after)) {
      // A throw here is printed but leaves vitest's exit status 0: set it.
      process.exitCode = 1;
      throw new Error(`a test changed the demo's freeze log ${demoLog} (a freeze without --log or --config appends to the log of ./ledgerboard.config.json): restore it with git checkout and give that freeze --log or --config`);
    }
  };
}
