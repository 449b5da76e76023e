// Compiles the CLI (src/**/*.ts) to JavaScript in lib/ with tsc
// (tsconfig.build.json), so `ledgerboard` runs with no TypeScript loader.
// `npm run compile`; npm install and npm ci run it as the prepare step, and
// the test suite's global setup runs it when src/ changed since (lib/ keeps
// the digest of the sources it was compiled from).
//
// Plain JavaScript on purpose: it runs before anything else is compiled.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
const stamp = join(lib, '.source-digest');

/** SHA-256 over every compiled input (path and bytes), in a fixed order. */
function sourceDigest() {
  const hash = createHash('sha256');
  const files = [join(root, 'tsconfig.json'), join(root, 'tsconfig.build.json'), join(root, 'package.json')];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && /\.(ts|mjs)$/.test(entry.name)) files.push(path);
    }
  };
  walk(join(root, 'src'));
  for (const file of files) hash.update(`${relative(root, file)}\0`).update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/**
 * Compiles into a fresh directory beside lib/ and then swaps it in, so nothing
 * stale from a renamed source survives and a CLI started meanwhile (another
 * test run) finds the old lib/ or the new one, almost never none.
 */
export function compile() {
  const digest = sourceDigest();
  const next = `${lib}.next-${process.pid}`;
  const old = `${lib}.old-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', next], { stdio: 'inherit', cwd: root });
  writeFileSync(join(next, '.source-digest'), `${digest}\n`);
  if (existsSync(lib)) renameSync(lib, old);
  renameSync(next, lib);
  rmSync(old, { recursive: true, force: true });
}

/** Compiles unless lib/ was compiled from exactly the current sources. Returns whether it compiled. */
export function ensureCompiled() {
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sourceDigest()) return false;
  compile();
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) compile();
