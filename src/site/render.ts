/**
 * Rendering the pages with Astro: the site model handed to the pages as a
 * virtual module of this one render (siteModelPlugin), the render directory
 * beside the output with its own node_modules links, and the removal of
 * render directories killed builds left behind. buildSite (build-site.ts)
 * calls renderPages once per build.
 */
import { lstat, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SiteModel } from './model.ts';
import type { TaskDetails } from './tasks.ts';
import { taskPageData } from './attempt-rows.ts';
import { cohortOf } from './view.ts';
import type { TranscriptDetails } from './transcripts.ts';
import { processAlive } from './build-lock.ts';

/** The repository root (where astro.config.mjs and src/pages are). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The module id under which the pages import the site model. */
export const SITE_MODEL_MODULE = 'virtual:ledgerboard/site-model';

/**
 * A Vite plugin serving `model` as the module {@link SITE_MODEL_MODULE}
 * (its default export, parsed from JSON): how the model reaches the pages,
 * components and layouts, as data of this one render, never a global.
 */
export function siteModelPlugin(model: SiteModel): VitePlugin {
  const resolved = `\0${SITE_MODEL_MODULE}`;
  const json = JSON.stringify(model);
  return {
    name: 'ledgerboard:site-model',
    resolveId: (id: string) => (id === SITE_MODEL_MODULE ? resolved : undefined),
    load: (id: string) => (id === resolved ? `export default JSON.parse(${JSON.stringify(json)});\n` : undefined),
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
    "import { join } from 'node:path';",
    `const dir = ${JSON.stringify(dir)};`,
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
export async function writePageData(data: PageData | null, dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  if (data === null) return;
  // Page n is written while page n + 1 is made (one page's writes in flight at a time).
  let writing: Promise<unknown> = Promise.resolve();
  for (let n = 0; n < data.pages.length; n++) {
    const detail = (await data.detail(n)) as { html?: unknown };
    let writes: Promise<unknown>;
    if (Array.isArray(detail.html)) {
      const { html, ...rest } = detail as { html: string[] };
      writes = Promise.all([writeFile(join(dir, `${n}.html`), html.join('')), writeFile(join(dir, `${n}.json`), JSON.stringify({ ...rest, htmlLengths: html.map((h) => h.length) }))]);
    } else {
      writes = writeFile(join(dir, `${n}.json`), JSON.stringify(detail));
    }
    // Handled below (awaited); the handler keeps a failure from being reported as unhandled meanwhile.
    writes.catch(() => undefined);
    await writing;
    writing = writes;
  }
  await writing;
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
export async function renderPages(
  model: SiteModel,
  staging: string,
  target: string,
  details: TaskDetails | null = null,
  transcripts: TranscriptDetails | null = null,
): Promise<void> {
  const { build } = await import('astro');
  const { default: projectConfig } = (await import(pathToFileURL(join(PROJECT_ROOT, 'astro.config.mjs')).href)) as { default: AstroInlineConfig };
  const work = await realpath(await mkdtemp(renderPrefix(target)));
  const cwd = process.cwd();
  try {
    await writeFile(join(work, RENDER_MARKER), `${process.pid}\n`);
    await linkPackages(join(work, 'node_modules'));
    const out = join(work, 'out');
    const detailsDir = join(work, 'task-details');
    // Task pages get their rows as HTML already (attempt-rows.ts), each cohort's in its currency.
    await writePageData(details === null ? null : { pages: details.pages, detail: async (n) => taskPageData(await details.detail(n), (id) => cohortOf(model, id).cost.currency) }, detailsDir);
    const transcriptsDir = join(work, 'transcripts');
    await writePageData(transcripts, transcriptsDir);
    process.chdir(work);
    await build({
      ...projectConfig,
      configFile: false,
      root: work,
      srcDir: join(PROJECT_ROOT, 'src'),
      publicDir: join(PROJECT_ROOT, 'public'),
      outDir: out,
      cacheDir: join(work, 'cache'),
      vite: { ...projectConfig.vite, cacheDir: join(work, 'vite'), plugins: [...(projectConfig.vite?.plugins ?? []), siteModelPlugin(model), pageDataPlugin(TASK_DETAILS_MODULE, 'taskDetail', detailsDir), pageDataPlugin(TRANSCRIPTS_MODULE, 'transcript', transcriptsDir)] },
      logLevel: 'error',
      mode: 'production',
    });
    await rm(staging, { recursive: true, force: true });
    await rename(out, staging);
  } finally {
    process.chdir(cwd);
    await removeRender(work);
  }
}

/** Removes a render directory, its marker last: killed midway, it is left with its marker or empty (see removeStaleRenders). */
async function removeRender(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) if (name !== RENDER_MARKER) await rm(join(dir, name), { recursive: true, force: true });
  await rm(dir, { recursive: true, force: true });
}

type AstroInlineConfig = NonNullable<Parameters<typeof import('astro').build>[0]>;

/** The name every render directory of a build into `target` starts with (mkdtemp adds six characters). */
export function renderPrefix(target: string): string {
  return `${resolve(target)}.render-`;
}

/** A file in every render directory holding the pid of the build that made it: how a stale one is recognised. */
export const RENDER_MARKER = '.ledgerboard-render';

/**
 * Makes `dir` a node_modules that resolves every package name as Node
 * resolves it from the project: a link to the package in the first
 * node_modules on the project's lookup path (its own, then its ancestors'),
 * scoped packages one level down. A single link to one node_modules would
 * miss packages hoisted into an ancestor when ledgerboard is installed as a
 * dependency.
 */
async function linkPackages(dir: string): Promise<void> {
  await mkdir(dir);
  const done = new Set<string>();
  for (const modules of lookupPath(PROJECT_ROOT)) {
    const names = await readdir(modules).catch(() => [] as string[]);
    for (const name of names.sort()) {
      if (name.startsWith('.')) continue;
      if (name.startsWith('@')) {
        const scoped = await readdir(join(modules, name)).catch(() => [] as string[]);
        for (const inner of scoped.sort()) await linkOnce(join(modules, name, inner), join(dir, name, inner), `${name}/${inner}`, done);
      } else await linkOnce(join(modules, name), join(dir, name), name, done);
    }
  }
}

async function linkOnce(source: string, link: string, name: string, done: Set<string>): Promise<void> {
  if (done.has(name) || name.endsWith('/.bin')) return;
  done.add(name);
  await mkdir(dirname(link), { recursive: true });
  await symlink(source, link);
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


