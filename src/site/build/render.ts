/**
 * Rendering the pages with Astro: the site model handed to the pages as a
 * virtual module of this one render (siteModelPlugin), the render directory
 * beside the output with its own node_modules links, and the removal of
 * render directories killed builds left behind. buildSite (build-site.ts)
 * calls renderPages once per build.
 */
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, open, readdir, readFile, realpath, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SiteModel } from '../model/model.ts';
import type { TaskDetails } from '../model/tasks.ts';
import { taskPageData } from '../model/attempt-rows.ts';
import { cohortOf } from '../model/view.ts';
import type { TranscriptDetails } from '../model/transcripts.ts';
import { processAlive } from './build-lock.ts';
import { escapeAttributesPlugin } from './escape-attributes.ts';
import { runAstro, type AstroInlineConfig } from './astro-steps.ts';

/** The repository root (where astro.config.mjs and src/pages are). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The module id under which the pages import the site model. */
export const SITE_MODEL_MODULE = 'virtual:ledgerboard/site-model';

/**
 * How deep {@link siteModelLines} splits the model: every array and object
 * down to this depth (the model's members are depth 1, a bundle or a board's
 * charts depth 2, a report's bundle depth 3) is written member by member, so
 * one line holds at most one report entry, one bundle's member (a plan page)
 * or one board's chart, compare or tasks: never anything that grows with the
 * number of bundles, boards or cohorts.
 */
const SPLIT_DEPTH = 3;

/**
 * The site model as lines of JSON, each `[path, kind, value]`: kind 0 sets
 * the value at `path` (a list of member names and array indexes), 1 makes an
 * empty object there and 2 an empty array, whose members follow (depth
 * first, in the model's own order, so objects keep their key order and the
 * model read back is the one given, as JSON.parse(JSON.stringify(model))
 * gives it). No line holds more than one part of the model below
 * SPLIT_DEPTH: at 10^4 bundles on 10^4 ledgers the model's JSON is about
 * 600 MB, past the longest string V8 makes (about 512 M characters), which
 * one JSON text of the model was ("Invalid string length").
 */
export function* siteModelLines(model: SiteModel): Generator<string> {
  type Path = (string | number)[];
  function* walk(path: Path, value: unknown): Generator<string> {
    if (path.length >= SPLIT_DEPTH || value === null || typeof value !== 'object') {
      yield `${JSON.stringify([path, 0, value])}\n`;
      return;
    }
    if (Array.isArray(value)) {
      yield `${JSON.stringify([path, 2])}\n`;
      // As JSON.stringify writes them: a hole or undefined is null.
      for (let i = 0; i < value.length; i++) yield* walk([...path, i], value[i] ?? null);
      return;
    }
    yield `${JSON.stringify([path, 1])}\n`;
    for (const [key, member] of Object.entries(value)) {
      // Left out, as JSON.stringify leaves them out.
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      yield* walk([...path, key], member);
    }
  }
  yield* walk([], model);
}

/** Writes {@link siteModelLines} to `file`, 1 MiB at a time; returns how many lines, their characters and the longest line's. */
export async function writeSiteModel(model: SiteModel, file: string): Promise<{ lines: number; chars: number; longest: number }> {
  const handle = await open(file, 'w');
  const written = { lines: 0, chars: 0, longest: 0 };
  try {
    let batch: string[] = [];
    let size = 0;
    for (const line of siteModelLines(model)) {
      batch.push(line);
      size += line.length;
      written.lines++;
      written.chars += line.length;
      if (line.length > written.longest) written.longest = line.length;
      if (size >= 1 << 20) {
        await handle.write(batch.join(''));
        batch = [];
        size = 0;
      }
    }
    await handle.write(batch.join(''));
  } finally {
    await handle.close();
  }
  return written;
}

/**
 * The code that reads the lines of {@link siteModelLines} back into the model
 * (the module's default export): the file read 1 MiB at a time, each line
 * parsed alone, so neither the file nor the model is ever one string. A
 * relative `file` is read from the working directory when the module is
 * evaluated (renderPages: the render directory, so the same code serves
 * every build: astro-steps.ts).
 */
export function siteModelReader(file: string): string {
  return [
    "import { closeSync, openSync, readSync } from 'node:fs';",
    "import { resolve } from 'node:path';",
    `const fd = openSync(resolve(${JSON.stringify(file)}), 'r');`,
    'const chunk = Buffer.allocUnsafe(1 << 20);',
    'let root;',
    'let rest = [];',
    'function put(line) {',
    '  const [path, kind, value] = JSON.parse(line);',
    '  const made = kind === 1 ? {} : kind === 2 ? [] : value;',
    '  if (path.length === 0) { root = made; return; }',
    '  let at = root;',
    '  for (let i = 0; i < path.length - 1; i++) at = at[path[i]];',
    '  const key = path[path.length - 1];',
    // A member named __proto__ is an own member, as JSON.parse makes it.
    '  if (key === \'__proto__\') Object.defineProperty(at, key, { value: made, enumerable: true, writable: true, configurable: true });',
    '  else at[key] = made;',
    '}',
    'try {',
    '  for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {',
    '    let start = 0;',
    '    for (let end = chunk.indexOf(10, 0); end !== -1 && end < n; end = chunk.indexOf(10, start)) {',
    '      rest.push(chunk.subarray(start, end));',
    "      put(Buffer.concat(rest).toString('utf8'));",
    '      rest = [];',
    '      start = end + 1;',
    '    }',
    '    if (start < n) rest.push(Buffer.from(chunk.subarray(start, n)));',
    '  }',
    '} finally {',
    '  closeSync(fd);',
    '}',
    'export default root;',
    '',
  ].join('\n');
}

/**
 * A Vite plugin serving the model written by {@link writeSiteModel} to
 * `file` as the module {@link SITE_MODEL_MODULE} (its default export): how
 * the model reaches the pages, components and layouts, as data of this one
 * render, never a global. The module's code only reads the file when the
 * render runs: the model is in no module's source, so no chunk Vite writes
 * grows with it, and renderPages names it relative to the render directory,
 * so no chunk depends on where a build renders.
 */
export function siteModelPlugin(file: string): VitePlugin {
  const resolved = `\0${SITE_MODEL_MODULE}`;
  const code = siteModelReader(file);
  return {
    name: 'ledgerboard:site-model',
    resolveId: (id: string) => (id === SITE_MODEL_MODULE ? resolved : undefined),
    load: (id: string) => (id === resolved ? code : undefined),
  };
}

/** The module id under which the task page reads its rows (pageDataPlugin). */
export const TASK_DETAILS_MODULE = 'virtual:ledgerboard/task-details';
/** The module id under which the transcript page reads its transcript (pageDataPlugin). */
export const TRANSCRIPTS_MODULE = 'virtual:ledgerboard/transcripts';

/**
 * A Vite plugin serving `moduleId` with one function, `exportName(n)`: the
 * data of page n, read from `<dir>/<n>.json` (and `<n>.html`: see
 * {@link writePageData}), which renderPages writes before Astro runs. The
 * rows of every task page (10^6 attempts) and the transcripts are too many
 * for the site model; each page reads only its own, so a render holds one
 * page's data at a time.
 */
export function pageDataPlugin(moduleId: string, exportName: string, dir: string): VitePlugin {
  const resolved = `\0${moduleId}`;
  const code = [
    "import { readFileSync } from 'node:fs';",
    "import { join, resolve } from 'node:path';",
    `const dir = resolve(${JSON.stringify(dir)});`,
    `export function ${exportName}(n) {`,
    '  const data = JSON.parse(readFileSync(join(dir, `${Number(n)}.json`), \'utf8\'));',
    '  if (Array.isArray(data.htmlLengths)) {',
    '    const all = readFileSync(join(dir, `${Number(n)}.html`), \'utf8\');',
    '    let at = 0;',
    '    data.html = data.htmlLengths.map((length) => all.slice(at, (at += length)));',
    '    delete data.htmlLengths;',
    '  }',
    '  return data;',
    '}',
    '',
  ].join('\n');
  return {
    name: `ledgerboard:${moduleId.slice('virtual:ledgerboard/'.length)}`,
    resolveId: (id: string) => (id === moduleId ? resolved : undefined),
    load: (id: string) => (id === resolved ? code : undefined),
  };
}

/** Pages whose data is written one file per page before the render. */
interface PageData {
  pages: readonly unknown[];
  detail(n: number): Promise<unknown>;
}

/**
 * Writes every page's data, one page at a time: `<n>.json`, and when the
 * data has `html` (a list of HTML strings: a task page's rows, about 1 GB at
 * 10^6 attempts) those strings concatenated in `<n>.html`, their lengths in
 * the JSON as `htmlLengths` (no JSON escaping of the HTML on the way out or
 * back in). The plugin gives the page the same data.
 */
export async function writePageData(data: PageData | null, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const digests: string[] = [];
  if (data === null) return digests;
  // Page n is written while page n + 1 is made (one page's writes in flight at a time).
  let writing: Promise<unknown> = Promise.resolve();
  for (let n = 0; n < data.pages.length; n++) {
    const detail = (await data.detail(n)) as { html?: unknown };
    let writes: Promise<unknown>;
    if (Array.isArray(detail.html)) {
      const { html, ...rest } = detail as { html: string[] };
      const htmlText = html.join('');
      const json = JSON.stringify({ ...rest, htmlLengths: html.map((h) => h.length) });
      digests.push(pageDataDigest(json, htmlText));
      writes = Promise.all([writeFile(join(dir, `${n}.html`), htmlText), writeFile(join(dir, `${n}.json`), json)]);
    } else {
      const json = JSON.stringify(detail);
      digests.push(pageDataDigest(json, null));
      writes = writeFile(join(dir, `${n}.json`), json);
    }
    // Handled below (awaited); the handler keeps a failure from being reported as unhandled meanwhile.
    writes.catch(() => undefined);
    await writing;
    writing = writes;
  }
  await writing;
  return digests;
}

/** The digest of one page's data as written (its JSON and, for a task page, its rows' HTML): in the page's key (page-slices.ts). */
function pageDataDigest(json: string, html: string | null): string {
  const hash = createHash('sha256').update(`${json.length}\0`).update(json);
  if (html !== null) hash.update(`\0${html.length}\0`).update(html);
  return `sha256:${hash.digest('hex')}`;
}

/** The module id through which the pages with getStaticPaths ask whether a page is rendered this time (renderFilterPlugin). */
export const RENDER_PAGES_MODULE = 'virtual:ledgerboard/render-pages';

/** The file in the render directory naming the pages renderFilterPlugin lets render: JSON, null (every page) or a sorted list of paths. */
export const RENDER_PAGES_FILE = 'render-pages.json';

/**
 * A Vite plugin serving {@link RENDER_PAGES_MODULE}: `renders(path)`, true
 * for every page when `file` (read when the pages render, relative to the
 * working directory: the render directory) holds null, else for the paths
 * it lists. The pages with getStaticPaths filter their paths through it, so
 * Astro renders only the pages an incremental build needs (build-site.ts);
 * pages without getStaticPaths (page-paths.ts FIXED_PAGES) render whenever
 * Astro runs. The list is read, not written into the module, so the server
 * bundle is the same for every build (astro-steps.ts).
 */
export function renderFilterPlugin(file: string): VitePlugin {
  const resolved = `\0${RENDER_PAGES_MODULE}`;
  const code = [
    "import { readFileSync } from 'node:fs';",
    "import { resolve } from 'node:path';",
    `const listed = JSON.parse(readFileSync(resolve(${JSON.stringify(file)}), 'utf8'));`,
    'const only = listed === null ? null : new Set(listed);',
    'export function renders(path) { return only === null || only.has(path); }',
    '',
  ].join('\n');
  return { name: 'ledgerboard:render-pages', resolveId: (id: string) => (id === RENDER_PAGES_MODULE ? resolved : undefined), load: (id: string) => (id === resolved ? code : undefined) };
}

/** What an incremental render decides once the pages' data is written: the pages to render (null: all), or 'none' (Astro does not run). */
export type RenderChoice = ReadonlySet<string> | null | 'none';

/** How renderPages hands its work to the build (build-site.ts). */
export interface RenderSteps {
  /** Called with the digests of every task and transcript page's data as written, before Astro runs; absent: every page. */
  choose?: (data: { details: readonly string[]; transcripts: readonly string[] }) => Promise<RenderChoice>;
  /** A kept server bundle to take if it checks (astro-steps.ts); absent or null: Astro bundles the pages itself. */
  serverBundle?: { dir: string; identity: string } | null;
  /** Told whether Astro took the kept bundle or made one. */
  rendered?: (bundle: 'reused' | 'built') => void;
  /** Takes Astro's output directory (null when Astro did not run) and the pages asked for; called before the render directory is removed. */
  take: (out: string | null, asked: ReadonlySet<string> | null) => Promise<void>;
}

type VitePlugin = { name: string; resolveId: (id: string) => string | undefined; load: (id: string) => string | undefined };

/**
 * Astro renders in a directory of its own beside the output
 * (`<out>.render-XXXXXX`), never inside the project, so a build runs from a
 * read-only checkout or install. That directory is Astro's root: its
 * `.astro/`, its caches and its output all lie there, and the pages and
 * public files are read from the project (srcDir, publicDir). Two things
 * keep Astro's server chunks out of the site and apart between builds:
 * the working directory is the render directory while Astro runs (Astro
 * writes its server chunks into the output, and removes them itself, only
 * when the output lies inside the working directory; otherwise it writes
 * them to a shared `.astro/` and copies that whole directory into the
 * output, which once published manifest_*.mjs and content-*.mjs and mixed
 * concurrent builds' chunks), and every path is a real path (no symbolic
 * link), so that test holds. The chunks import their packages from where
 * they lie, so the render directory's `node_modules` links to the packages
 * the project resolves (see linkPackages). The directory is removed when the
 * render ends; one left by a killed build is removed by the next build into
 * the same output (removeStaleRenders, under the build lock).
 */
export async function renderPages(model: SiteModel, target: string, details: TaskDetails | null, transcripts: TranscriptDetails | null, steps: RenderSteps): Promise<void> {
  const work = await realpath(await mkdtemp(renderPrefix(target)));
  const cwd = process.cwd();
  try {
    await writeFile(join(work, RENDER_MARKER), `${process.pid}\n`);
    await linkPackages(join(work, 'node_modules'));
    // Task pages get their rows as HTML already (attempt-rows.ts), each cohort's in its currency.
    const detailDigests = await writePageData(details === null ? null : { pages: details.pages, detail: async (n) => taskPageData(await details.detail(n), (id) => cohortOf(model, id).cost.currency) }, join(work, DETAILS_DIR));
    const transcriptDigests = await writePageData(transcripts, join(work, TRANSCRIPTS_DIR));
    const choice = steps.choose === undefined ? null : await steps.choose({ details: detailDigests, transcripts: transcriptDigests });
    if (choice === 'none') {
      await steps.take(null, new Set());
      return;
    }
    await writeSiteModel(model, join(work, MODEL_FILE));
    await writeFile(join(work, RENDER_PAGES_FILE), JSON.stringify(choice === null ? null : [...choice].sort()));
    process.chdir(work);
    const result = await runAstro(await renderConfig(work), { reuse: steps.serverBundle ?? null, generate: true });
    steps.rendered?.(result.bundle);
    process.chdir(cwd);
    await steps.take(join(work, 'out'), choice);
  } finally {
    process.chdir(cwd);
    await removeRender(work);
  }
}

/** The names of the render's data in the render directory: what the virtual modules read when the pages render. */
const MODEL_FILE = 'site-model.jsonl';
const DETAILS_DIR = 'task-details';
const TRANSCRIPTS_DIR = 'transcripts';

/**
 * Astro's configuration for a render in `work`: the project's, with the
 * render directory as root, the project's pages and public files, and the
 * plugins that serve the render's data (by names relative to the render
 * directory, so the server bundle does not depend on where it is made).
 */
async function renderConfig(work: string): Promise<AstroInlineConfig> {
  const { default: projectConfig } = (await import(pathToFileURL(join(PROJECT_ROOT, 'astro.config.mjs')).href)) as { default: AstroInlineConfig };
  return {
    ...projectConfig,
    configFile: false,
    root: work,
    srcDir: join(PROJECT_ROOT, 'src'),
    publicDir: join(PROJECT_ROOT, 'public'),
    outDir: join(work, 'out'),
    cacheDir: join(work, 'cache'),
    vite: { ...projectConfig.vite, cacheDir: join(work, 'vite'), plugins: [...(projectConfig.vite?.plugins ?? []), serverBundleAsIsPlugin(), escapeAttributesPlugin(), siteModelPlugin(MODEL_FILE), renderFilterPlugin(RENDER_PAGES_FILE), pageDataPlugin(TASK_DETAILS_MODULE, 'taskDetail', DETAILS_DIR), pageDataPlugin(TRANSCRIPTS_MODULE, 'transcript', TRANSCRIPTS_DIR)] },
    logLevel: 'error',
    mode: 'production',
  };
}

/** Where `npm run compile` keeps the server bundle (astro-steps.ts), in the compiled tree. */
export const SERVER_BUNDLE_DIR = join(PROJECT_ROOT, 'lib', 'server-bundle');

/**
 * Makes the server bundle and keeps it in `dir` under `identity` (the site
 * code identity, render-cache.ts), running Astro's Vite step alone in a
 * render directory of its own beside `dir`. Returns whether it was kept (not
 * under another Astro version: astro-steps.ts).
 */
export async function prebuildServerBundle(dir: string, identity: string): Promise<boolean> {
  await mkdir(dirname(dir), { recursive: true });
  await removeStaleRenders(dir);
  const work = await realpath(await mkdtemp(renderPrefix(dir)));
  const cwd = process.cwd();
  try {
    await writeFile(join(work, RENDER_MARKER), `${process.pid}\n`);
    await linkPackages(join(work, 'node_modules'));
    process.chdir(work);
    const result = await runAstro(await renderConfig(work), { keep: { dir, identity }, generate: false });
    return result.kept;
  } finally {
    process.chdir(cwd);
    await removeRender(work);
  }
}

/**
 * A Vite plugin that turns Rollup's tree-shaking off for the server bundle
 * alone: that bundle only renders the pages and is deleted after (Astro's
 * cleanServerOutput), so leaving unused code in it changes no byte of the
 * site, and the build is about 10% faster (docs/benchmarks.md). The
 * browser's scripts are still tree-shaken.
 */
export function serverBundleAsIsPlugin(): { name: string; config: (config: unknown, env: { isSsrBuild?: boolean }) => { build: { rollupOptions: { treeshake: false } } } | undefined } {
  return { name: 'ledgerboard:server-bundle-as-is', config: (_config, env) => (env.isSsrBuild === true ? { build: { rollupOptions: { treeshake: false } } } : undefined) };
}

/** Removes a render directory, its marker last: killed midway, it is left with its marker or empty (see removeStaleRenders). */
async function removeRender(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) if (name !== RENDER_MARKER) await rm(join(dir, name), { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
}


/** The name every render directory of a build into `target` starts with (mkdtemp adds six characters). */
export function renderPrefix(target: string): string {
  return `${resolve(target)}.render-`;
}

/** A file in every render directory holding the pid of the build that made it: how a stale one is recognised. */
export const RENDER_MARKER = '.ledgerboard-render';

/**
 * Makes `dir` a node_modules that resolves every package name as Node
 * resolves it from the project. When only one node_modules lies on the
 * project's lookup path (its own, then its ancestors'), `dir` is a link to
 * it; otherwise `dir` holds a link to each package in the first node_modules
 * that has it, scoped packages one level down (a single link to one
 * node_modules would miss packages hoisted into an ancestor when
 * ledgerboard is installed as a dependency). `lookup` is that path (a
 * test gives its own).
 */
export async function linkPackages(dir: string, lookup: readonly string[] = lookupPath(PROJECT_ROOT)): Promise<void> {
  const present: { modules: string; names: string[] }[] = [];
  for (const modules of lookup) {
    const names = await readdir(modules).catch(() => null);
    if (names !== null) present.push({ modules, names });
  }
  // One node_modules on the path (a checkout, or an install that hoisted nothing above it): one link to it.
  if (present.length === 1) {
    await symlink(present[0]!.modules, dir);
    return;
  }
  await mkdir(dir);
  // Package name to the directory it links to: the first on the lookup path wins.
  const links = new Map<string, string>();
  for (const { modules, names } of present) {
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        const scoped = await readdir(join(modules, name)).catch(() => [] as string[]);
        for (const inner of scoped.sort()) if (!inner.startsWith('.') && !links.has(`${name}/${inner}`)) links.set(`${name}/${inner}`, join(modules, name, inner));
      } else if (!links.has(name)) links.set(name, join(modules, name));
    }
  }
  // The scope directories first, then every link at once (one at a time, the ~450 links of a checkout took 0.6 s of each build).
  await Promise.all([...new Set([...links.keys()].filter((n) => n.includes('/')).map((n) => n.split('/')[0]!))].map((scope) => mkdir(join(dir, scope))));
  await Promise.all([...links].map(([name, source]) => symlink(source, join(dir, ...name.split('/')))));
}

/** Node's node_modules lookup path from a directory (NODE_MODULES_PATHS: a directory named node_modules is not searched inside). */
function lookupPath(from: string): string[] {
  const paths: string[] = [];
  for (let dir = from; ; dir = dirname(dir)) {
    if (basename(dir) !== 'node_modules') paths.push(join(dir, 'node_modules'));
    if (dirname(dir) === dir) return paths;
  }
}

/**
 * Removes the render directories that killed builds into `target` left
 * behind: a directory named `<target>.render-XXXXXX` that holds the render
 * marker, whose build (the pid in the marker) is not running, or that is
 * empty. Call only while
 * holding the build lock on `target`: no live build into `target` can then
 * be rendering. Returns the directories removed.
 */
export async function removeStaleRenders(target: string): Promise<string[]> {
  const prefix = renderPrefix(target);
  const parent = dirname(prefix);
  const removed: string[] = [];
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const path = join(parent, name);
    if (!path.startsWith(prefix) || path.length !== prefix.length + 6) continue;
    const stats = await lstat(path).catch(() => null);
    if (!stats?.isDirectory()) continue;
    const marker = await readFile(join(path, RENDER_MARKER), 'utf8').catch(() => null);
    if (marker === null) {
      // No marker: a render killed while being made or removed leaves it empty; anything else is not provably ours.
      if (await rmdir(path).then(() => true, () => false)) removed.push(path);
      continue;
    }
    const pid = Number(marker.trim());
    // A marker cut short by a kill names no live build either.
    if (Number.isSafeInteger(pid) && pid > 0 && processAlive(pid)) continue;
    await removeRender(path);
    removed.push(path);
  }
  return removed;
}


