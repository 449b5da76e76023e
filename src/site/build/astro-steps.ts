/**
 * Astro's build in its two steps, so the first can be kept and reused.
 *
 * `astro build` bundles the pages' server code with Vite (Rollup and Astro's
 * compiler: about 5 of a one-bundle build's 8 seconds, docs/benchmarks.md)
 * and then renders every page with that bundle. The bundle is a function of
 * the code alone (the pages, components, layouts and the site code they
 * import, the public files, Astro's configuration and the packages): the
 * evidence reaches the pages through virtual modules that read the render
 * directory's files when the pages render (render.ts), never through the
 * bundle's source. So the bundle is made once (`npm run compile` keeps it in
 * `lib/server-bundle/`, render.ts prebuildServerBundle) and each build that
 * finds it made from the same code (the site code identity,
 * render-cache.ts) writes it into its output and only renders.
 *
 * This runs Astro's own build code (AstroBuilder in
 * astro/dist/core/build/index.js: the same calls in the same order; the
 * Vite step `viteBuild` and the render step `staticBuild` of
 * static-build.js), imported from Astro's files because Astro exports no
 * such split. That is Astro's inside, not its API, so it is tied to the one
 * version it was written against ({@link ASTRO_VERSION}, pinned exactly in
 * package.json): under any other version, or for a site the kept form does
 * not cover (middleware, actions, server islands), runAstro runs the public
 * `build()` instead and keeps nothing.
 *
 * What the render step needs from the Vite step is the bundle's files and a
 * few of Astro's build tables (`internals`): each page's module and styles,
 * the bundle's entry map, inlined scripts and component metadata. The kept
 * form is a directory: `bundle.json` (those tables, the identity, each
 * file's SHA-256) and `files/`, the files the Vite step wrote into the
 * output that are not copies of public files (those are copied from the
 * project's public directory again, as Vite copies them). A kept bundle is
 * taken only when its format, Astro's version and the identity match, its
 * pages are exactly the pages Astro finds now, and every file's digest
 * checks; anything else and the build runs in full.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readRegularFile } from '../../files/read.ts';
import { plainPath } from './plain-path.ts';

/** The one version of Astro whose build steps runAstro calls. */
export const ASTRO_VERSION = '5.18.2';

/** The format name in every kept bundle's `bundle.json`. */
export const SERVER_BUNDLE_FORMAT = 'ledgerboard.server-bundle.v1';

export type AstroInlineConfig = NonNullable<Parameters<typeof import('astro').build>[0]>;

/** How one run of Astro goes: reuse a kept bundle, keep the one it makes, render or not. */
export interface AstroRun {
  /** A kept bundle to take if it checks (see the module comment): its directory and the identity it must have. */
  reuse?: { dir: string; identity: string } | null;
  /** Keep the bundle this run makes, in this directory (replaced whole), under this identity. */
  keep?: { dir: string; identity: string } | null;
  /** Render the pages (false: only bundle, for keep). */
  generate: boolean;
}

/** What a run did: took a kept bundle, or bundled with Vite (and kept it, if asked and the site allows). */
export interface AstroRunResult {
  bundle: 'reused' | 'built';
  kept: boolean;
}

/* Astro's build internals, as far as this module touches them. */
interface PageData {
  key: string;
  component: string;
  route: { route: string; prerender: boolean };
  moduleSpecifier: string;
  styles: unknown[];
}
interface Internals {
  pagesByKeys: Map<string, PageData>;
  entrySpecifierToBundleMap: Map<string, string>;
  inlinedScripts: Map<string, string>;
  componentMetadata: Map<string, unknown>;
  manifestFileName?: string;
  middlewareEntryPoint?: URL;
  astroActionsEntryPoint?: URL;
}
interface Settings {
  config: { root: URL; srcDir: URL; outDir: URL; publicDir: URL; site?: string; server: { port: number } };
  buildOutput?: string;
  serverIslandNameMap: Map<string, string>;
}
type Fn = (...args: never[]) => unknown;
interface AstroModules {
  build: (config: AstroInlineConfig) => Promise<void>;
  steps: Record<string, Fn> | null;
}

/** The kept bundle's record (`bundle.json`). */
interface BundleRecord {
  format: string;
  astro: string;
  identity: string;
  /** The project's source directory, absolute (Astro's component metadata is keyed by absolute module ids). */
  srcDir: string;
  /** The source directory relative to the root of the render that made the bundle: the start of every page's component path. */
  srcFromRoot: string;
  pages: [route: string, component: string, page: { styles: unknown[]; prerender: boolean }][];
  entrySpecifierToBundleMap: [string, string][];
  inlinedScripts: [string, string][];
  componentMetadata: [string, unknown][];
  manifestFileName: string | null;
  ssrOutputChunkNames: string[];
  files: [path: string, sha256: string][];
}

let modules: Promise<AstroModules> | undefined;

/** Astro's public build, and its steps when Astro is the version they were written against (else null). */
function astroModules(): Promise<AstroModules> {
  return (modules ??= (async () => {
    const astro = await import('astro');
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('astro/package.json'));
    const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string };
    if (version !== ASTRO_VERSION) return { build: astro.build, steps: null };
    // Each function from the module that defines it (as astro/dist/core/build/index.js imports them).
    const from: [module: string, names: string[]][] = [
      ['core/util.js', ['ensureProcessNodeEnv']],
      ['core/polyfill.js', ['apply']],
      ['core/config/logging.js', ['createNodeLogger']],
      ['core/config/config.js', ['resolveConfig']],
      ['core/config/settings.js', ['createSettings']],
      ['integrations/hooks.js', ['runHookConfigSetup', 'runHookConfigDone', 'runHookBuildStart', 'runHookBuildDone']],
      ['vite-plugin-astro-server/plugin.js', ['createDevelopmentManifest']],
      ['core/routing/index.js', ['createRoutesList']],
      ['core/create-vite.js', ['createVite']],
      ['core/sync/index.js', ['syncInternal']],
      ['core/build/page-data.js', ['collectPagesData']],
      ['core/encryption.js', ['hasEnvironmentKey', 'getEnvironmentKey', 'createKey']],
      ['core/build/static-build.js', ['viteBuild', 'staticBuild']],
      ['core/build/internal.js', ['createBuildInternals', 'trackPageData']],
    ];
    const steps: Record<string, Fn> = {};
    for (const [module, names] of from) {
      const loaded = (await import(pathToFileURL(join(root, 'dist', module)).href)) as Record<string, unknown>;
      for (const name of names) {
        const step = loaded[name];
        // Not where this version keeps it: the public build, nothing kept.
        if (typeof step !== 'function') return { build: astro.build, steps: null };
        steps[name] = step as Fn;
      }
    }
    return { build: astro.build, steps };
  })());
}

/**
 * Runs Astro's build of `config` (whose root is the render directory and
 * the working directory), reusing or keeping the server bundle as `run`
 * says. The pages rendered are the same bytes either way
 * (test/site/server-bundle.test.ts).
 */
export async function runAstro(config: AstroInlineConfig, run: AstroRun): Promise<AstroRunResult> {
  const { build, steps } = await astroModules();
  if (steps === null) {
    if (!run.generate) return { bundle: 'built', kept: false };
    await build(config);
    return { bundle: 'built', kept: false };
  }
  // The untyped calls below are Astro's own, as AstroBuilder makes them (astro/dist/core/build/index.js).
  const call = <T>(name: string, ...args: unknown[]): T => (steps[name] as (...a: unknown[]) => T)(...args);
  call('ensureProcessNodeEnv', 'production');
  call('apply');
  const logger = call<object>('createNodeLogger', config);
  const { astroConfig } = await call<Promise<{ astroConfig: Settings['config'] }>>('resolveConfig', config, 'build');
  let settings = await call<Promise<Settings>>('createSettings', astroConfig, fileURLToPath(astroConfig.root));
  settings = await call<Promise<Settings>>('runHookConfigSetup', { settings, command: 'build', logger });
  const manifest = call<object>('createDevelopmentManifest', settings);
  const routesList = await call<Promise<object>>('createRoutesList', { settings }, logger);
  await call('runHookConfigDone', { settings, logger, command: 'build' });
  const viteConfig = await call<Promise<object>>('createVite', { server: { hmr: false, middlewareMode: true } }, { settings, logger, mode: 'production', command: 'build', sync: false, routesList, manifest });
  await call('syncInternal', { mode: 'production', settings, logger, fs, routesList, command: 'build', manifest });
  await call('runHookBuildStart', { config: settings.config, logger });
  const { allPages } = call<{ allPages: Record<string, PageData> }>('collectPagesData', { settings, logger, manifest: routesList });
  const opts = {
    allPages,
    settings,
    logger,
    routesList,
    runtimeMode: 'production',
    origin: settings.config.site ? new URL(settings.config.site).origin : `http://localhost:${settings.config.server.port}`,
    pageNames: [] as string[],
    teardownCompiler: true,
    viteConfig,
    key: call<boolean>('hasEnvironmentKey') ? call('getEnvironmentKey') : call('createKey'),
  };

  let internals: Internals;
  let chunkNames: string[];
  let bundle: AstroRunResult['bundle'] = 'built';
  let kept = false;
  const reused = run.reuse ? await readBundle(run.reuse.dir, run.reuse.identity, settings, Object.keys(allPages)) : null;
  if (reused !== null) {
    const { record } = reused;
    internals = call<Internals>('createBuildInternals');
    await writeBundleFiles(reused, settings);
    for (const [key, , page] of reused.pages) {
      // readBundle checked that the kept pages are exactly these.
      const pageData = allPages[key]!;
      // As viteBuild tracks each page (it sets moduleSpecifier).
      const moduleId = pageData.component.startsWith('/') ? pageData.component : `/${pageData.component}`;
      call('trackPageData', internals, pageData.component, pageData, moduleId, new URL(`./${pageData.component}`, settings.config.root));
      pageData.styles = page.styles;
      pageData.route.prerender = page.prerender;
    }
    internals.entrySpecifierToBundleMap = new Map(reused.entries);
    internals.inlinedScripts = new Map(record.inlinedScripts);
    internals.componentMetadata = new Map(record.componentMetadata);
    if (record.manifestFileName !== null) internals.manifestFileName = record.manifestFileName;
    chunkNames = record.ssrOutputChunkNames;
    bundle = 'reused';
  } else {
    ({ internals, ssrOutputChunkNames: chunkNames } = await call<Promise<{ internals: Internals; ssrOutputChunkNames: string[] }>>('viteBuild', opts));
    if (settings.serverIslandNameMap.size > 0 && settings.buildOutput !== 'server') throw new Error('server islands need an adapter (Astro: NoAdapterInstalledServerIslands)');
    if (run.keep) kept = await keepBundle(run.keep.dir, run.keep.identity, internals, chunkNames, settings, allPages);
  }
  if (!run.generate) return { bundle, kept };
  await call('staticBuild', opts, internals, chunkNames);
  await call('runHookBuildDone', { settings, pages: opts.pageNames, routes: Object.values(allPages).map((p) => p.route), logger });
  return { bundle, kept };
}

/** Every file under `dir`, as sorted `/`-separated relative paths. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (at: string): Promise<void> => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) out.push(relative(dir, path).split('\\').join('/'));
    }
  };
  await walk(dir);
  return out.sort();
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Keeps the bundle the Vite step just wrote into the output: the files that
 * are not copies of public files, and the tables. Returns false (keeps
 * nothing) for a site the kept form does not cover.
 */
async function keepBundle(dir: string, identity: string, internals: Internals, chunkNames: string[], settings: Settings, allPages: Record<string, PageData>): Promise<boolean> {
  if (internals.middlewareEntryPoint !== undefined || internals.astroActionsEntryPoint !== undefined || settings.serverIslandNameMap.size > 0) return false;
  const out = fileURLToPath(settings.config.outDir);
  const pub = fileURLToPath(settings.config.publicDir);
  const next = `${dir}.next-${process.pid}`;
  await rm(next, { recursive: true, force: true });
  const files: BundleRecord['files'] = [];
  for (const path of await filesUnder(out)) {
    const bytes = await readFile(join(out, ...path.split('/')));
    const copy = await readFile(join(pub, ...path.split('/'))).catch(() => null);
    if (copy !== null && copy.equals(bytes)) continue;
    await mkdir(dirname(join(next, 'files', ...path.split('/'))), { recursive: true });
    await writeFile(join(next, 'files', ...path.split('/')), bytes);
    files.push([path, sha256(bytes)]);
  }
  const record: BundleRecord = {
    format: SERVER_BUNDLE_FORMAT,
    astro: ASTRO_VERSION,
    identity,
    srcDir: settingsSrcDir(settings),
    srcFromRoot: srcFromRoot(settings),
    pages: Object.keys(allPages)
      .sort()
      .map((key) => {
        const page = internals.pagesByKeys.get(key) ?? allPages[key]!;
        return [page.route.route, page.component, { styles: page.styles, prerender: page.route.prerender }];
      }),
    entrySpecifierToBundleMap: [...internals.entrySpecifierToBundleMap],
    inlinedScripts: [...internals.inlinedScripts],
    componentMetadata: [...internals.componentMetadata],
    manifestFileName: internals.manifestFileName ?? null,
    ssrOutputChunkNames: chunkNames,
    files,
  };
  await writeFile(join(next, 'bundle.json'), `${JSON.stringify(record)}\n`);
  const old = `${dir}.old-${process.pid}`;
  await rm(old, { recursive: true, force: true });
  await rename(dir, old).catch(() => undefined);
  // Another process keeping a bundle at the same time may have put its own in place meanwhile: that one stays (each is checked on use).
  const placed = await rename(next, dir).then(() => true, () => false);
  await rm(placed ? old : next, { recursive: true, force: true });
  return placed;
}

/** The identity of the bundle kept in `dir` in this format for this Astro, or null (none, or not one this code reads). */
export async function keptBundleIdentity(dir: string): Promise<string | null> {
  const text = await readKept(join(dir, 'bundle.json'));
  if (text === null) return null;
  try {
    const record: unknown = JSON.parse(text.toString('utf8'));
    return isRecord(record) && record.format === SERVER_BUNDLE_FORMAT && record.astro === ASTRO_VERSION ? record.identity : null;
  } catch {
    return null;
  }
}

/** A kept bundle that checks: its record and its files' bytes. */
interface KeptBundle {
  record: BundleRecord;
  /** The kept pages under this render's root: Astro's page key, the component path, what the Vite step found. */
  pages: [key: string, component: string, page: BundleRecord['pages'][number][2]][];
  /** Astro's entry map under this render's root. */
  entries: [string, string][];
  bytes: Map<string, Buffer>;
}

/** The most bytes read of a kept bundle's record or of one of its files (the demo's largest chunk is under 1 MB). */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;

/** A kept file's bytes: a regular file, no link followed, bounded (files/read.ts); else null. */
const readKept = (path: string): Promise<Buffer | null> => readRegularFile(path, MAX_KEPT_BYTES);

const isString = (v: unknown): v is string => typeof v === 'string';
const isPair = (v: unknown): v is [string, string] => Array.isArray(v) && v.length === 2 && isString(v[0]) && isString(v[1]);

/** Whether a parsed `bundle.json` has the record's shape, member by member (anything else: no kept bundle). */
function isRecord(v: unknown): v is BundleRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  const page = (p: unknown): boolean => {
    if (!Array.isArray(p) || p.length !== 3 || !isString(p[0]) || !isString(p[1]) || typeof p[2] !== 'object' || p[2] === null) return false;
    const data = p[2] as Record<string, unknown>;
    return Array.isArray(data.styles) && typeof data.prerender === 'boolean';
  };
  return (
    isString(r.format) &&
    isString(r.astro) &&
    isString(r.identity) &&
    isString(r.srcDir) &&
    isString(r.srcFromRoot) &&
    Array.isArray(r.pages) &&
    r.pages.every(page) &&
    Array.isArray(r.entrySpecifierToBundleMap) &&
    r.entrySpecifierToBundleMap.every(isPair) &&
    Array.isArray(r.inlinedScripts) &&
    r.inlinedScripts.every(isPair) &&
    Array.isArray(r.componentMetadata) &&
    r.componentMetadata.every((m) => Array.isArray(m) && m.length === 2 && isString(m[0])) &&
    (r.manifestFileName === null || isString(r.manifestFileName)) &&
    Array.isArray(r.ssrOutputChunkNames) &&
    r.ssrOutputChunkNames.every(plainPath) &&
    Array.isArray(r.files) &&
    r.files.every((f) => isPair(f) && plainPath(f[0]) && /^[0-9a-f]{64}$/.test(f[1]))
  );
}

/**
 * The kept bundle in `dir` if it checks against this identity and exactly
 * these pages and every file matches its digest; else null (the build runs
 * in full). The record must have its shape member by member, every path
 * must be plain, and every file is read as a regular file without following
 * a link.
 */
export async function readBundle(dir: string, identity: string, at: RenderPlace, pageKeys: readonly string[]): Promise<KeptBundle | null> {
  const text = await readKept(join(dir, 'bundle.json'));
  if (text === null) return null;
  let record: unknown;
  try {
    record = JSON.parse(text.toString('utf8'));
  } catch {
    return null;
  }
  if (!isRecord(record)) return null;
  if (record.format !== SERVER_BUNDLE_FORMAT || record.astro !== ASTRO_VERSION || record.identity !== identity || record.srcDir !== settingsSrcDir(at)) return null;
  const rehome = rehomer(record.srcFromRoot, srcFromRoot(at));
  const pages: KeptBundle['pages'] = [];
  for (const [route, component, page] of record.pages) {
    const moved = rehome(component);
    if (moved === null) return null;
    // Astro's page key (makePageDataKey in astro/dist/core/build/plugins/util.js).
    pages.push([`${route}&${moved}`, moved, page]);
  }
  const keys = [...pageKeys].sort();
  const kept = pages.map(([key]) => key).sort();
  if (kept.length !== keys.length || kept.some((key, i) => key !== keys[i])) return null;
  const entries: [string, string][] = [];
  for (const [specifier, file] of record.entrySpecifierToBundleMap) {
    if (!specifier.startsWith(PAGE_MODULE)) {
      entries.push([specifier, file]);
      continue;
    }
    const moved = rehome(specifier.slice(PAGE_MODULE.length));
    if (moved === null) return null;
    entries.push([PAGE_MODULE + moved, file]);
  }
  const bytes = new Map<string, Buffer>();
  for (const [path, digest] of record.files) {
    const file = await readKept(join(dir, 'files', ...path.split('/')));
    if (file === null || sha256(file) !== digest) return null;
    bytes.set(path, file);
  }
  return { record, pages, entries, bytes };
}

/** The start of the module id of a page's entry in Astro's entry map (ASTRO_PAGE_RESOLVED_MODULE_ID). */
const PAGE_MODULE = '\0@astro-page:';

/** Where a render runs: Astro's resolved root and source directory. */
export interface RenderPlace {
  config: { root: URL; srcDir: URL };
}

/** The project's source directory as Astro resolved it. */
const settingsSrcDir = (at: RenderPlace): string => fileURLToPath(at.config.srcDir);

/** The source directory relative to the render's root, `/`-separated: how Astro starts each page's component path. */
const srcFromRoot = (at: RenderPlace): string => relative(fileURLToPath(at.config.root), settingsSrcDir(at)).split('\\').join('/');

/** Moves a component path (or a page module id) made under one render root to another; null if it does not start where it should. */
function rehomer(from: string, to: string): (path: string) => string | null {
  return (path) => (path.startsWith(`${from}/`) ? `${to}${path.slice(from.length)}` : null);
}

/** Writes a kept bundle into the output as the Vite step would have: the public files, then the bundle's. */
async function writeBundleFiles(kept: KeptBundle, settings: Settings): Promise<void> {
  const out = fileURLToPath(settings.config.outDir);
  await mkdir(out, { recursive: true });
  const pub = fileURLToPath(settings.config.publicDir);
  if (fs.existsSync(pub)) await cp(pub, out, { recursive: true, force: true });
  for (const [path, bytes] of kept.bytes) {
    await mkdir(dirname(join(out, ...path.split('/'))), { recursive: true });
    await writeFile(join(out, ...path.split('/')), bytes);
  }
}
