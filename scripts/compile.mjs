// Compiles the CLI (src/**/*.ts) to JavaScript in lib/ with tsc
// (tsconfig.build.json), so `ledgerboard` runs with no TypeScript loader.
// `npm run compile`; npm install and npm ci run it as the prepare step, and
// the test suite's global setup runs it when src/ changed since (lib/ keeps
// the digest of the sources it was compiled from).
//
// zod is bundled into one module (lib/vendor/zod.js, with its license) and
// the compiled imports of 'zod' point at it: loading zod's ~95 files (60 of
// them locales) one by one was a fifth of `ledgerboard verify`'s start-up
// (docs/benchmarks.md, "Start-up"). The sources, the tests and the site's
// render still import the zod package itself.
//
// It then keeps Astro's server bundle of the site in lib/server-bundle/
// (src/site/build/astro-steps.ts): every `ledgerboard build` from this
// checkout renders with it instead of bundling the pages again, about 4 s
// less per build. The bundle follows the site code identity (src/, public/,
// astro.config.mjs, package.json, the lock file, Node's version), which the
// .ts digest above does not cover whole (a .astro or .css file), so
// ensureCompiled also makes it again when that identity changed. A build
// whose kept bundle is missing or stale bundles the pages itself.
//
// Plain JavaScript on purpose: it runs before anything else is compiled.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleNodeVerifier } from './bundle-verifier.mjs';
import { bundleBrowserVerifier } from './bundle-browser-verifier.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lib = join(root, 'lib');
const stamp = join(lib, '.source-digest');

/** SHA-256 over every compiled input (path and bytes), in a fixed order. */
function sourceDigest() {
  const hash = createHash('sha256');
  const files = [
    join(root, 'tsconfig.json'),
    join(root, 'tsconfig.build.json'),
    join(root, 'package.json'),
    join(root, 'package-lock.json'),
    fileURLToPath(import.meta.url),
    join(root, 'scripts', 'bundle-verifier.mjs'),
    join(root, 'scripts', 'bundle-browser-verifier.mjs'),
  ];
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
export async function compile() {
  const digest = sourceDigest();
  const next = `${lib}.next-${process.pid}`;
  const old = `${lib}.old-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', next], { stdio: 'inherit', cwd: root });
  await bundleZod(next);
  await bundleNodeVerifier(root, next);
  await bundleBrowserVerifier(root, next);
  writeFileSync(join(next, '.source-digest'), `${digest}\n`);
  prebuildServerBundle(next);
  if (existsSync(lib)) renameSync(lib, old);
  renameSync(next, lib);
  rmSync(old, { recursive: true, force: true });
}

/**
 * Compiles unless lib/ was compiled from exactly the current sources, and
 * makes the kept server bundle again if the site code changed since.
 * Returns whether it compiled.
 */
export async function ensureCompiled() {
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === sourceDigest()) {
    prebuildServerBundle(lib, { onlyIfStale: true });
    return false;
  }
  await compile();
  return true;
}

/**
 * Keeps Astro's server bundle in `<out>/server-bundle/`, with the code
 * compiled into `out` (render.ts prebuildServerBundle), in a process of its
 * own (Astro and Vite stay out of the caller's). With onlyIfStale, only when
 * the kept bundle's identity is not the site code's now.
 */
function prebuildServerBundle(out, { onlyIfStale = false } = {}) {
  const url = (path) => JSON.stringify(pathToFileURL(join(out, ...path.split('/'))).href);
  const code = [
    `const { prebuildServerBundle } = await import(${url('site/build/render.js')});`,
    `const { siteCodeIdentity } = await import(${url('site/build/render-cache.js')});`,
    `const { keptBundleIdentity } = await import(${url('site/build/astro-steps.js')});`,
    `const dir = ${JSON.stringify(join(out, 'server-bundle'))};`,
    'const identity = await siteCodeIdentity();',
    `if (${onlyIfStale} && (await keptBundleIdentity(dir)) === identity) process.exit(0);`,
    'const started = Date.now();',
    'const kept = await prebuildServerBundle(dir, identity);',
    "process.stderr.write(kept ? `compile: Astro's server bundle kept in lib/server-bundle (${((Date.now() - started) / 1000).toFixed(1)} s)\\n` : 'compile: no server bundle kept (another Astro version): every build bundles the pages itself\\n');",
  ].join('\n');
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', code], { stdio: 'inherit', cwd: root, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' } });
  } catch (error) {
    // The kept bundle only saves time: without it every build bundles the pages itself, so the compile stands.
    process.stderr.write(`compile: Astro's server bundle could not be kept (${error.message.split('\n')[0]}): every build bundles the pages itself until the next compile\n`);
  }
}

/** The specifier the compiled code imports zod by (tsc keeps the source's quotes). */
const ZOD_IMPORT = /(\bfrom\s*)(['"])zod\2/g;

/**
 * Bundles zod into `<out>/vendor/zod.js` (one ES module, as the package's
 * own `zod` entry exports it) beside its license, and points every compiled
 * `from 'zod'` at it by a relative path. Any other zod specifier (a subpath)
 * is refused: it would load the package a second time.
 */
async function bundleZod(out) {
  const { build } = await import('esbuild');
  const vendor = join(out, 'vendor');
  mkdirSync(vendor, { recursive: true });
  await build({
    stdin: { contents: "export * from 'zod';\n", resolveDir: root, sourcefile: 'zod-entry.js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    legalComments: 'none',
    outfile: join(vendor, 'zod.js'),
    logLevel: 'warning',
  });
  const zodPackage = join(root, 'node_modules', 'zod');
  const { version } = JSON.parse(readFileSync(join(zodPackage, 'package.json'), 'utf8'));
  writeFileSync(join(vendor, 'zod.LICENSE'), `zod ${version} (https://github.com/colinhacks/zod), bundled into zod.js by scripts/compile.mjs.\n\n${readFileSync(join(zodPackage, 'LICENSE'), 'utf8')}`);
  let rewritten = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== vendor) walk(path);
        continue;
      }
      if (!entry.name.endsWith('.js')) continue;
      const text = readFileSync(path, 'utf8');
      let target = relative(dirname(path), join(vendor, 'zod.js')).split(sep).join('/');
      if (!target.startsWith('.')) target = `./${target}`;
      const next = text.replace(ZOD_IMPORT, (_, from, quote) => {
        rewritten += 1;
        return `${from}${quote}${target}${quote}`;
      });
      if (/\bfrom\s*['"]zod\//.test(next) || /\bimport\(\s*['"]zod/.test(next)) throw new Error(`${relative(root, path)} imports zod by a specifier the bundle does not replace`);
      if (next !== text) writeFileSync(path, next);
    }
  };
  walk(out);
  if (rewritten === 0) throw new Error('no compiled module imports zod: the bundling step in scripts/compile.mjs is stale');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await compile();
