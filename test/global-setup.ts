/**
 * Before any test: the tests that run `bin/ledgerboard.mjs` as a real process
 * run the compiled CLI in lib/, so lib/ must be compiled from the sources as
 * they are now (recompiled only when src/ changed since).
 */
import { ensureCompiled } from '../scripts/compile.mjs';

export default async function setup(): Promise<void> {
  await ensureCompiled();
}
