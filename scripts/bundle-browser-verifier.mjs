// Bundles the in-browser re-derivation (issue 24, item 3): the project's own
// re-derivation core (src/rederive) for a browser Web Worker, entry
// src/rederive/browser/worker.ts, into `<out>/site-verifier/verify-worker.js`
// (the site publishes it at /verify-worker.js; /verify/ starts it through
// public/rederive-browser.js).
//
// Node's modules the core imports are replaced by the browser shims in
// src/rederive/browser/: node:crypto (SHA-256 in plain JavaScript,
// synchronous), node:buffer (the npm `buffer` package, isAscii/isUtf8),
// node:zlib (crc32), and yauzl by a stand-in that refuses (.eval archives are
// re-imported by verify.mjs only). A free `Buffer` is the shim's (inject).
// node:fs and node:path, which the core reaches only through modules that
// also hold disk readers and writers, stand for functions that refuse when
// called (NODE_ONLY below). Any other Node module is an error here.
//
// Deterministic: the same sources and esbuild version give the same bytes
// (paths relative to the project root, no source map, no timestamps).
//
// Plain JavaScript: compile.mjs runs it before anything else is compiled.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** The bundle's browser targets: module workers are not needed (iife), BigInt64Array and TextDecoder fatal are. */
export const BROWSER_TARGETS = ['chrome110', 'firefox110', 'safari16'];

/** Node's modules (and yauzl) and the shim that stands for each in the browser. */
export function browserAliases(root) {
  const shim = (name) => join(root, 'src', 'rederive', 'browser', name);
  return {
    'node:crypto': shim('crypto.ts'),
    crypto: shim('crypto.ts'),
    'node:buffer': shim('buffer.ts'),
    'node:zlib': shim('zlib.ts'),
    zlib: shim('zlib.ts'),
    yauzl: shim('yauzl.ts'),
  };
}

/**
 * Node's modules the core reaches only through modules that also hold disk readers and writers it never calls
 * (the worker test lists the importers). Each stands for a CommonJS module in the bundle (NODE_ONLY_SOURCE), so
 * every name imported from it exists.
 */
export const NODE_ONLY = ['node:fs', 'node:fs/promises', 'node:path'];

/** Every name is a function that throws a NotInBrowserError naming itself when called; `sep` is "/", `constants` empty. */
const NODE_ONLY_SOURCE = `"use strict";
function refuse(name) {
  return function () {
    var error = new Error("node:fs/node:path " + name + "() cannot run in the browser: run verify.mjs (node verify.mjs <site>) to re-derive it");
    error.name = "NotInBrowserError";
    throw error;
  };
}
// sep and constants are own properties too: esbuild's ESM interop copies only own properties, so a named
// import of them (src/files/read.ts reads constants at load) must find them there.
module.exports = new Proxy({ sep: "/", constants: {} }, {
  get: function (_, key) {
    if (typeof key === "symbol" || key === "__esModule" || key === "then") return undefined;
    if (key === "sep") return "/";
    if (key === "constants") return {};
    return refuse(key);
  },
});
`;

/** The esbuild options of the worker bundle (exported for the tests, which bundle it into a temporary directory). */
export function browserBuildOptions(root, outfile) {
  const aliases = browserAliases(root);
  return {
    entryPoints: [join(root, 'src', 'rederive', 'browser', 'worker.ts')],
    absWorkingDir: root,
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: BROWSER_TARGETS,
    inject: [join(root, 'src', 'rederive', 'browser', 'globals.ts')],
    plugins: [
      {
        // 'buffer' is both Node's module and the npm package the shim wraps: only node:buffer is aliased, and a
        // bare 'buffer' from anywhere but the shim itself goes to the shim too.
        name: 'ledgerboard-browser-shims',
        setup(build) {
          build.onLoad({ filter: /.*/, namespace: 'ledgerboard-node-only' }, () => ({ contents: NODE_ONLY_SOURCE, loader: 'js' }));
          build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
            if (args.path in aliases) return { path: aliases[args.path] };
            if (NODE_ONLY.includes(args.path)) return { path: args.path, namespace: 'ledgerboard-node-only' };
            if (args.path === 'buffer') {
              if (args.importer === aliases['node:buffer']) return undefined;
              return { path: aliases['node:buffer'] };
            }
            // node:stream is imported for its types only (src/import/inspect/zip.ts): nothing of it may be bundled.
            if (args.path.startsWith('node:') || ['stream', 'fs', 'path', 'os', 'url', 'util', 'worker_threads', 'child_process'].includes(args.path)) {
              return { errors: [{ text: `${args.path} is a Node module the in-browser verifier cannot have (imported by ${args.importer.replace(root, '.')}): the re-derivation core must not reach it, or a shim in src/rederive/browser/ must stand for it` }] };
            }
            return undefined;
          });
        },
      },
    ],
    legalComments: 'eof',
    charset: 'utf8',
    outfile,
    logLevel: 'warning',
  };
}

/** Bundles the worker into `<out>/site-verifier/verify-worker.js`. */
export async function bundleBrowserVerifier(root, out) {
  const { build } = await import('esbuild');
  const dir = join(out, 'site-verifier');
  mkdirSync(dir, { recursive: true });
  await build(browserBuildOptions(root, join(dir, 'verify-worker.js')));
}
