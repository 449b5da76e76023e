/**
 * The site's own verifiers, bundled from the project's verify and analysis
 * code when ledgerboard is compiled (scripts/bundle-verifier.mjs): verify.mjs
 * (Node) and verify-worker.js (the in-browser re-derivation). The build
 * publishes them at the site's root, and their digests on /verify/, so a
 * reader can compare them with the files the same ledgerboard version makes.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { digestBytes } from '../../json/canonical.ts';

/** One verifier file as published: its URL path, bytes and digest. */
export interface VerifierFile {
  path: '/verify.mjs' | '/verify-worker.js';
  bytes: Uint8Array;
  sha256: string;
}

/** Where the compiled package keeps them. */
export const VERIFIER_DIR = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..'), 'lib', 'site-verifier');

/** Reads both verifiers; throws with what to run when ledgerboard was not compiled. */
export async function readVerifierFiles(dir: string = VERIFIER_DIR): Promise<VerifierFile[]> {
  const files: VerifierFile[] = [];
  for (const [name, path] of [['verify.mjs', '/verify.mjs'], ['verify-worker.js', '/verify-worker.js']] as const) {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(join(dir, name));
    } catch (error) {
      throw new Error(`the site's verifier ${join(dir, name)} is missing (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}): run \`npm run compile\` in the ledgerboard checkout (npm install does it)`);
    }
    files.push({ path, bytes, sha256: digestBytes(bytes) });
  }
  return files;
}
