/**
 * Before any test: the tests that run `bin/ledgerboard.mjs` as a real process
 * run the compiled CLI in lib/, so lib/ must be compiled from the sources as
 * they are now (recompiled only when src/ changed since).
 *
 * The caches and their key (src/cache/secret.ts) live in the user's cache
 * and config directories: every test process gets its own, made here and
 * removed after, so a test run neither reads nor writes the real ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCompiled } from '../scripts/compile.mjs';

export default async function setup(): Promise<() => void> {
  const home = mkdtempSync(join(tmpdir(), 'lb-test-home-'));
  process.env.XDG_CACHE_HOME = join(home, 'cache');
  process.env.XDG_CONFIG_HOME = join(home, 'config');
  delete process.env.LEDGERBOARD_CACHE_KEY;
  await ensureCompiled();
  return () => rmSync(home, { recursive: true, force: true });
}
