// Bundles the site's verifiers from the project's own verify and analysis
// code (src/rederive), so a stranger's check runs the very rules the build
// ran and cannot drift from them (issue 24, FORMAT.md 8):
//
// - lib/site-verifier/verify.mjs: one ES module for Node >= 20 that imports
//   nothing but Node's standard library (zod, canonicalize, the importers'
//   archive readers are inside it); published at /verify.mjs.
// - lib/site-verifier/verify-worker.js: the same core for a browser Web
//   Worker (scripts/bundle-browser-verifier.mjs); published at /verify-worker.js.
//
// Deterministic: the same sources and esbuild version give the same bytes
// (paths in the bundle are relative to the project root), so a stranger who
// builds ledgerboard at the version a site names gets the file the site
// publishes, byte for byte.
//
// Plain JavaScript: compile.mjs runs it before anything else is compiled.
import { mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

/** Node's built-in modules, with and without the node: prefix: the only imports verify.mjs keeps. */
const BUILTINS = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** Bundles verify.mjs for Node into `<out>/site-verifier/verify.mjs`. */
export async function bundleNodeVerifier(root, out) {
  const { build } = await import('esbuild');
  const dir = join(out, 'site-verifier');
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: [join(root, 'src', 'rederive', 'verify-script.ts')],
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: BUILTINS,
    // CommonJS dependencies (yauzl) call require() for Node's modules: give the ES module one.
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __lbCreateRequire } from 'node:module';\nconst require = __lbCreateRequire(import.meta.url);" },
    legalComments: 'eof',
    charset: 'utf8',
    outfile: join(dir, 'verify.mjs'),
    logLevel: 'warning',
  });
}
